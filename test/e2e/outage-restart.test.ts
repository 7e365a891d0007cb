// A maker that is killed while a taker redeems on chain, and comes back while the cluster is dark, still
// redeems the taker's escrow before the taker's expiry, with no command from anyone: the preimage is public,
// and nothing but time stands between the maker and its payment. The service runs as the built bundle on
// `chain.kind = "rpc"` behind the fault proxy (the campaign's world), is killed with SIGKILL, and is started
// again during an outage switched on at the proxy; the taker reaches the chain straight, as a wallet would.
import { createHash, randomBytes } from 'node:crypto';
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { ServiceClient } from '../../scripts/campaign/client.ts';
import { ChainAccess, redeemMakerEscrow } from '../../scripts/campaign/wallet.ts';
import { startWorld, type World } from '../../scripts/campaign/world.ts';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import { seededRandom } from '../../src/dev-chain/faults/index.ts';
import { loopbackDevChain } from '../../src/dev-chain/index.ts';
import { nth, TEST_STORE } from '../support/service.ts';

let world: World | undefined;
beforeAll(async () => {
  world = await startWorld({
    store: TEST_STORE,
    instances: 1,
    seed: 'outage-restart',
    logLevel: 'warn',
    ...(TEST_STORE === 'postgres' ? { postgresAdminUrl: inject('postgresAdminUrl') } : {}),
  });
  await world.start(nth(world.instances, 0));
}, 90_000);
afterAll(async () => world?.close(false));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('killed while the taker redeems on chain, back during an outage: once the chain answers the maker redeems before the taker expiry, with no command', async () => {
  const w = world as World;
  const instance = nth(w.instances, 0);
  const client = new ServiceClient(
    w,
    seededRandom('outage-restart', 'client'),
    { requests: 0, unanswered: 0, unavailable: 0, rateLimited: 0 },
    60_000,
  );
  const programId = DEFAULT_HTLC_PROGRAM_ID;
  const direct = new ChainAccess(w.chain.url, w.chain.wsUrl, programId, 'direct');
  const sol = w.config.assets.list.find((a) => a.symbol === 'SOL');
  const usdc = w.config.assets.list.find((a) => a.symbol === 'USDC');
  if (!sol || !usdc) throw new Error('the default config lists SOL and USDC');

  const taker = Keypair.generate();
  await loopbackDevChain(w.chain.url).airdrop({
    wallet: taker.publicKey,
    mint: new PublicKey(sol.mint),
    amount: 1_000_000_000n,
  });
  const preimage = randomBytes(32);
  const secretHash = createHash('sha256').update(preimage).digest('hex');
  const quote = await client.call('POST', '/v1/rfq', {
    input_asset: 'SOL',
    output_asset: 'USDC',
    amount: '0.5',
    taker_wallet: taker.publicKey.toBase58(),
  });
  expect(quote.json.status, JSON.stringify(quote.json)).toBe('accepted');
  const settled = await client.call('POST', `/v1/quotes/${quote.json.quote_id}/wallet-settlement`, {
    taker_wallet: taker.publicKey.toBase58(),
    secret_hash: secretHash,
  });
  expect(settled.status).toBe(201);
  const tradeId = settled.json.trade_id as string;
  const lock = Transaction.from(
    Buffer.from(settled.json.taker_lock_transaction.transaction_base64, 'base64'),
  );
  lock.partialSign(taker);
  const locked = await client.call('POST', `/v1/trades/${tradeId}/lock`, {
    transaction_base64: lock.serialize().toString('base64'),
  });
  expect(locked.status, JSON.stringify(locked.json)).toBe(202);
  const trade = () => client.call('GET', `/v1/trades/${tradeId}`);
  for (let t = await trade(); t.json.next_action?.type !== 'redeem'; t = await trade()) {
    expect(t.json.settlement_status).toBe('initiated');
    await sleep(200);
  }

  // The maker is killed; the taker redeems the maker escrow straight on chain, revealing the preimage; the
  // cluster goes dark for the service (the taker's own path to the chain stays up) and the maker comes back.
  await w.kill9(instance);
  const takerExpiry = Math.floor(Date.parse(settled.json.expires_at) / 1000);
  const redeemed = await direct.submit(
    taker,
    redeemMakerEscrow(
      programId,
      taker.publicKey,
      new PublicKey(settled.json.maker_escrow),
      new PublicKey(usdc.mint),
      preimage,
    ),
  );
  expect(redeemed).toMatchObject({ landed: true, err: null });
  w.proxy.control.outage('on', 'refuse');
  await w.start(instance);
  // While dark: it answers, says the chain is out of reach, and the trade waits (nothing to do but wait).
  await sleep(3_000);
  const dark = await client.once(instance, 'GET', `/v1/trades/${tradeId}`);
  expect(dark.answer.status).toBe(200);
  expect(dark.answer.json.settlement_status).toBe('initiated');
  w.proxy.control.outage('off');

  // No command from here on: reads only, until the maker's redeem lands.
  const until = Date.now() + 60_000;
  let last = dark.answer.json;
  while (last.settlement_status !== 'redeemed' && Date.now() < until) {
    await sleep(300);
    last = (await trade()).json;
  }
  expect(last.settlement_status, JSON.stringify(last)).toBe('redeemed');
  expect(last.tx_signature_kinds.map((k: { kind: string }) => k.kind)).toContain('maker_redeem');
  const escrow = await direct.escrow(new PublicKey(settled.json.taker_escrow));
  expect(escrow === null || escrow.status !== 'locked').toBe(true);
  const { unix: now } = await direct.clock();
  expect(now).toBeLessThan(takerExpiry);
}, 180_000);
