// The source burn of a trade closed before a restart: the trade mints just in time, settles and is redeemed
// while the dev Gateway's operator has not burned yet (it looks only once a minute in the first process); the
// service stops, and the next process on the same DATA_DIR — whose operator burns at once — follows the
// transfer its store lists as minted, though the trade never moves again, and the trade lists its
// gateway_burn. Before the transfers were stored, the burn follower learnt of transfers only from trades
// that moved in its own run, and this trade's burn was never shown.
import { afterEach, expect, test } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { createService } from '../../src/service.ts';
import { lockedTrade, mintingConfig, unifiedCounted, until } from '../support/gateway-mint.ts';
import {
  type ConfigDocument,
  defaultConfigDocument,
  type TestService,
  tempDir,
  testStore,
} from '../support/service.ts';

type Json = ReturnType<typeof JSON.parse>;

const dir = tempDir('rfq-burn-restart-');
const opened: TestService[] = [];
afterEach(async () => {
  for (const service of opened.splice(0)) await service.close().catch(() => undefined);
  dir.remove();
});

/** The service on the test's DATA_DIR, its dev Gateway's operator burning every `settleMs`. */
async function serviceOn(settleMs: number): Promise<TestService> {
  const doc: ConfigDocument = defaultConfigDocument();
  mintingConfig()(doc);
  // The test reads the trade every 50 ms until its burn shows.
  (doc.http as Record<string, unknown>).rate_limit_per_minute = 1_000_000;
  (doc.gateway as { embedded: { settle_interval_ms: number } }).embedded.settle_interval_ms = settleMs;
  const service = await createService({
    dataDir: dir.path,
    config: resolveConfig(doc),
    ...(await testStore(dir.path)),
  });
  const started = Object.assign(service, { dataDir: dir.path, dispose: () => service.close() });
  opened.push(started);
  return started;
}

const burnsOf = (trade: Json) =>
  (trade.tx_signature_kinds as Json[]).filter((s) => s.kind === 'gateway_burn').map((s) => s.signature);

test('a trade redeemed before a restart, its burn unseen, lists its gateway_burn after it', async () => {
  const first = await serviceOn(60_000);
  await unifiedCounted(first);
  const { taker, tradeId, secret } = await lockedTrade(first);
  await taker.waitFor(tradeId, (t) => t.next_action?.type === 'redeem', 60_000);
  expect((await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).statusCode).toBe(
    202,
  );
  const redeemed = await taker.waitFor(tradeId, (t) => t.settlement_status === 'redeemed', 30_000);
  expect(redeemed.tx_signature_kinds.map((s: Json) => s.kind)).toContain('gateway_mint');
  expect(burnsOf(redeemed)).toEqual([]);
  // The transfer is stored minted, with the mint's signature, and is the one transfer open.
  const mint = redeemed.tx_signature_kinds.find((s: Json) => s.kind === 'gateway_mint').signature;
  const [transfer] = await first.store.transfersOfTrades([tradeId]);
  expect(transfer).toMatchObject({ tradeId, status: 'minted', mintSignature: mint, purpose: 'trade_mint' });
  expect(await first.store.openTransfers()).toEqual([transfer]);
  await first.close();
  opened.splice(0);

  const second = await serviceOn(100);
  const burned = await until(
    'the gateway_burn after the restart',
    async () => {
      const trade = (await second.app.inject(`/v1/trades/${tradeId}`)).json();
      return burnsOf(trade).length > 0 ? trade : undefined;
    },
    30_000,
  );
  expect(burned.settlement_status).toBe('redeemed');
  const [burn] = burnsOf(burned);
  expect(burnsOf(burned)).toEqual([expect.stringMatching(/^0x[0-9a-f]{64}$/)]);
  expect(await second.store.getTransfer(transfer?.transferId as string)).toMatchObject({
    status: 'burned',
    burnTx: burn,
    mintSignature: mint,
  });
  expect(await second.store.openTransfers()).toEqual([]);
}, 240_000);
