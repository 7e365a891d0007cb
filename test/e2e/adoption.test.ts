// A trade the new run could not adopt (the chain was unreachable at start) answers 503 until
// POST /resume succeeds, then carries on.
import { afterEach, expect, test } from 'vitest';
import type { ChainPort } from '../../src/chain/index.ts';
import { ChainError } from '../../src/chain/index.ts';
import { createService, type Service } from '../../src/service.ts';
import { startService, type TestService } from '../support/service.ts';
import { newSecret, Taker } from '../support/taker.ts';

let first: TestService | undefined;
let second: Service | undefined;
afterEach(async () => {
  await second?.close();
  await first?.dispose();
  first = undefined;
  second = undefined;
});

/**
 * The real chain, except that while `down` is set it cannot be reached (as a cluster outage looks). The
 * push feed stays subscribed: during an outage it simply has nothing to say.
 */
function outage(chain: ChainPort, state: { down: boolean }): ChainPort {
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

test('a trade that could not be adopted answers 503 runtime_unavailable until /resume succeeds', async () => {
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
  await first.close();

  const chainState = { down: true };
  second = await createService({
    dataDir: first.dataDir,
    config: first.config,
    pollIntervalMs: 50,
    wrapChain: (chain) => outage(chain, chainState),
  }).catch((error: unknown) => {
    throw new Error(`the service must start even when the chain is down: ${(error as Error).message}`);
  });
  const t2 = new Taker(second.app);
  const unavailable = await t2.get(`/v1/trades/${tradeId}`);
  expect(unavailable.statusCode).toBe(503);
  expect(unavailable.json().error.code).toBe('runtime_unavailable');
  const redeemDown = await t2.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage });
  expect(redeemDown.statusCode).toBe(503);
  // Resuming while the chain is still down fails the same way, and changes nothing.
  expect((await t2.post(`/v1/trades/${tradeId}/resume`)).statusCode).toBe(503);

  chainState.down = false;
  const resumed = await t2.post(`/v1/trades/${tradeId}/resume`);
  expect(resumed.statusCode, resumed.body).toBe(202);
  expect(resumed.json().current_run).toBe(true);
  expect(resumed.json().run_id).toBe(first.runId);
  expect((await t2.post(`/v1/trades/${tradeId}/resume`)).statusCode).toBe(202); // idempotent
  expect((await t2.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).statusCode).toBe(202);
  const done = await t2.waitFor(tradeId, (t) => t.settlement_status === 'redeemed');
  expect(done.tx_signature_kinds.map((s: { kind: string }) => s.kind)).toEqual([
    'taker_lock',
    'maker_lock',
    'taker_redeem',
    'maker_redeem',
  ]);
});
