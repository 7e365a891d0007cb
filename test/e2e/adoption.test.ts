// A run started while the chain cannot be reached takes up every trade of the runs before it at once, and
// acts the moment the chain answers: nothing waits for POST /resume, whatever happened on chain meanwhile.
import { afterEach, expect, test } from 'vitest';
import type { ChainPort } from '../../src/chain/index.ts';
import { ChainError } from '../../src/chain/index.ts';
import { createService, type Service } from '../../src/service.ts';
import { startService, type TestService } from '../support/service.ts';
import { newSecret, signAsWallet, Taker } from '../support/taker.ts';

let first: TestService | undefined;
let second: Service | undefined;
afterEach(async () => {
  await second?.close();
  await first?.dispose();
  first = undefined;
  second = undefined;
});

/**
 * The real chain, except that while `down` is set the service cannot reach it (as a cluster outage looks to
 * it); `raw` is the chain itself, which the taker still reaches. The push feed stays subscribed: during an
 * outage it simply has nothing to say.
 */
function outage(chain: ChainPort, state: { down: boolean; raw?: ChainPort }): ChainPort {
  state.raw = chain;
  return new Proxy(chain, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || key === 'close' || key === 'watchAccounts') return value;
      return (...args: unknown[]) => {
        if (state.down)
          return Promise.reject(new ChainError('unavailable', 'chain unreachable (test outage)'));
        return value.apply(target, args);
      };
    },
  });
}

test('the taker redeems on chain while no service runs, the next one starts during an outage: once the chain answers the maker redeems, with no command', async () => {
  first = await startService(undefined, { pollIntervalMs: 50 });
  const taker = new Taker(first.app);
  await taker.airdrop('SOL', '3');
  const quote = await taker.quote('SOL', 'USDC', '1');
  const secret = newSecret();
  const settlement = (await taker.settle(quote.quote_id, secret)).json();
  const tradeId = settlement.trade_id as string;
  expect((await taker.lock(tradeId, settlement.taker_lock_transaction.transaction_base64)).statusCode).toBe(
    202,
  );
  await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked');
  // The taker's own redeem, built while the service ran; it reaches the chain only once the service is gone.
  const walletRedeem = await taker.post(`/v1/trades/${tradeId}/redeem?mode=wallet`, {
    preimage: secret.preimage,
  });
  expect(walletRedeem.statusCode, walletRedeem.body).toBe(200);
  const redeem = signAsWallet(walletRedeem.json().transaction.transaction_base64, taker.wallet);
  await first.close();

  const chainState: { down: boolean; raw?: ChainPort } = { down: true };
  second = await createService({
    dataDir: first.dataDir,
    config: first.config,
    pollIntervalMs: 50,
    wrapChain: (chain) => outage(chain, chainState),
  }).catch((error: unknown) => {
    throw new Error(`the service must start even when the chain is down: ${(error as Error).message}`);
  });
  // The preimage is public now: the taker holds the output, and the maker must redeem before the taker's
  // expiry.
  await chainState.raw?.submitSigned(redeem);
  const t2 = new Taker(second.app);
  // The trade is the new run's already: it answers, while the chain cannot.
  const during = await t2.get(`/v1/trades/${tradeId}`);
  expect(during.statusCode, during.body).toBe(200);
  expect(during.json()).toMatchObject({ current_run: true, run_id: first.runId });
  // The maker's balances were never read: a quote is refused as unavailable, never priced as if the maker
  // held nothing; readiness says why, and how long the outage has eaten into the nearest maker deadline.
  const quoteDown = await t2.post('/v1/rfq', {
    input_asset: 'SOL',
    output_asset: 'USDC',
    amount: '1',
    taker_wallet: t2.address,
  });
  expect(quoteDown.statusCode, quoteDown.body).toBe(503);
  expect(quoteDown.json().error.code).toBe('chain_unavailable');
  // Public readiness says why in words; the operator's says how long against which deadline.
  let ready = await t2.get('/v1/health/ready');
  for (let tries = 0; !ready.body.includes('chain: not answering') && tries < 50; tries++) {
    await new Promise((r) => setTimeout(r, 100));
    ready = await t2.get('/v1/health/ready');
  }
  expect(ready.statusCode).toBe(503);
  expect(ready.json().error.details).toEqual(
    expect.arrayContaining(['chain: not answering', 'maker_balances: not read yet']),
  );
  // Once the service's own probe confirmed the outage, the operator's detail names it.
  const chainDetail = async () =>
    (await t2.get('/v1/runtime/readiness')).json().parts.find((p: { name: string }) => p.name === 'chain')
      ?.detail as string;
  for (let tries = 0; !(await chainDetail()).startsWith('unreachable') && tries < 50; tries++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(await chainDetail()).toMatch(
    /^unreachable for \d+ s; the nearest maker escrow expiry is in \d+ s by this host's clock$/,
  );

  chainState.down = false;
  const done = await t2.waitFor(tradeId, (t) => t.settlement_status === 'redeemed');
  let after = await t2.get('/v1/health/ready');
  for (let tries = 0; after.statusCode !== 200 && tries < 50; tries++) {
    await new Promise((r) => setTimeout(r, 100));
    after = await t2.get('/v1/health/ready');
  }
  expect(after.statusCode, after.body).toBe(200);
  expect(done.tx_signature_kinds.map((s: { kind: string }) => s.kind)).toEqual([
    'taker_lock',
    'maker_lock',
    'taker_redeem',
    'maker_redeem',
  ]);
  expect(done.ledger_summary.balanced).toBe(true);
  const commands = (await second.store.tradeEvents(tradeId)).filter((e) =>
    ['REDEEM_REQUESTED', 'REFUND_REQUESTED'].includes(e.type),
  );
  expect(commands).toEqual([]);
});
