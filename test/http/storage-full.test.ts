// A store whose commits fail as on a full disk (StorageFull), in a real service on the embedded chain: every
// command answers 503 storage_full in the envelope with Retry-After — the write path's own failure and the
// refusals of new work alike —, readiness and the metric say so, and once a commit succeeds again the service
// is ready by itself and the trade whose write failed takes the taker's retry. A transition that was not
// stored is never acted on: the effect it starts fails before it sends anything.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { StorageFull, type Store, type StoreWrite } from '../../src/store/index.ts';
import { startService, type TestService } from '../support/service.ts';
import { newSecret, type Secret, Taker } from '../support/taker.ts';

type Json = ReturnType<typeof JSON.parse>;

/** What the wrapped store does with the next commits: take them, fail them all, or fail the one `matches` picks. */
type Disk =
  | { mode: 'ok' }
  | { mode: 'full' }
  | { mode: 'once'; matches: (batch: readonly StoreWrite[]) => boolean };

function fillable(disk: { now: Disk }) {
  return (store: Store): Store =>
    new Proxy(store, {
      get(target, property) {
        if (property === 'commit') {
          return async (batch: readonly StoreWrite[]) => {
            const now = disk.now;
            if (now.mode === 'full' || (now.mode === 'once' && now.matches(batch))) {
              if (now.mode === 'once') disk.now = { mode: 'ok' };
              throw new StorageFull(store.kind, 'SQLITE_FULL', 'the disk is full (test)');
            }
            return target.commit(batch);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
}

/** A 503 storage_full: the envelope, and Retry-After. */
function expectStorageFull(res: { statusCode: number; body: string; headers: Record<string, unknown> }) {
  expect(res.statusCode, res.body).toBe(503);
  expect(JSON.parse(res.body)).toEqual({
    error: { code: 'storage_full', message: expect.any(String), details: [] },
  });
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}

const metric = async (service: TestService, name: string) => {
  const text = (await service.app.inject('/metrics')).body;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return Number(line?.split(' ').at(-1));
};

describe('a store that cannot write for lack of space', { shuffle: false }, () => {
  const disk: { now: Disk } = { now: { mode: 'ok' } };
  let service: TestService;
  let taker: Taker;

  /** A trade through its maker lock: the taker's redeem is next. */
  async function makerLocked(): Promise<{ tradeId: string; secret: Secret; body: Json }> {
    const quote = await taker.quote('SOL', 'USDC', '0.5');
    const secret = newSecret();
    const settled = await taker.settle(quote.quote_id, secret);
    expect(settled.statusCode, settled.body).toBe(201);
    const body = settled.json();
    const locked = await taker.lock(body.trade_id, body.taker_lock_transaction.transaction_base64);
    expect(locked.statusCode, locked.body).toBe(202);
    await taker.waitFor(body.trade_id, (t) => t.next_action?.type === 'redeem', 30_000);
    return { tradeId: body.trade_id, secret, body };
  }

  const ready = () => service.app.inject('/v1/health/ready');

  beforeAll(async () => {
    service = await startService(() => {}, {
      wrapStore: fillable(disk),
      storageWatch: { probeMs: 50, holdMs: 200 },
    });
    taker = new Taker(service.app);
    await taker.airdrop('SOL', '5');
  });
  afterAll(async () => {
    disk.now = { mode: 'ok' };
    await service?.dispose();
  });

  test('every command answers 503 storage_full with Retry-After; readiness and the metric say why; then it carries on', async () => {
    const trade = await makerLocked();
    const open = await taker.quote('SOL', 'USDC', '0.1');
    expect((await ready()).statusCode).toBe(200);
    expect(await metric(service, 'rfq_maker_storage_full')).toBe(0);

    disk.now = { mode: 'full' };
    // The first RFQ meets the full disk in its own commit; later ones are refused before anything is priced.
    const rfq = { input_asset: 'SOL', output_asset: 'USDC', amount: '0.1', taker_wallet: taker.address };
    expectStorageFull(await taker.post('/v1/rfq', rfq));
    expectStorageFull(await taker.post('/v1/rfq', rfq));
    expectStorageFull(await taker.settle(open.quote_id, newSecret()));
    // A command on a running trade tries its own write and fails the same way.
    expectStorageFull(
      await taker.post(`/v1/trades/${trade.tradeId}/redeem`, { preimage: trade.secret.preimage }),
    );
    expectStorageFull(
      await taker.post(`/v1/trades/${trade.tradeId}/redeem`, { preimage: trade.secret.preimage }),
    );

    const notReady = await ready();
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json().error.details).toContain('store: storage_full');
    const operator = (await service.app.inject('/v1/runtime/readiness')).json();
    expect(operator.parts.find((p: { name: string }) => p.name === 'store')).toMatchObject({
      ok: false,
      reason: 'storage_full',
      detail: expect.stringContaining('writes fail for lack of space'),
    });
    expect(await metric(service, 'rfq_maker_storage_full')).toBe(1);
    expect(
      await metric(service, 'rfq_maker_store_commit_failures_total{reason="storage_full"}'),
    ).toBeGreaterThan(0);
    // Reads answer; the trade is where it was stored.
    expect((await taker.trade(trade.tradeId)).substate).toBe('initiated.makerLocked');

    disk.now = { mode: 'ok' };
    // Probes succeed; past the hold the service is ready again, by itself.
    const until = Date.now() + 30_000;
    while ((await ready()).statusCode !== 200 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    expect((await ready()).statusCode).toBe(200);
    expect(await metric(service, 'rfq_maker_storage_full')).toBe(0);
    expect((await taker.post('/v1/rfq', rfq)).statusCode).toBe(200);
    // The taker's retry is taken, and the swap completes.
    const redeem = await taker.post(`/v1/trades/${trade.tradeId}/redeem`, {
      preimage: trade.secret.preimage,
    });
    expect(redeem.statusCode, redeem.body).toBe(202);
    const done = await taker.waitFor(trade.tradeId, (t) => t.settlement_status === 'redeemed', 30_000);
    expect(done.ledger_summary.balanced).toBe(true);
  });

  test('a transition that was not stored is never acted on: its effect sends nothing', async () => {
    const trade = await makerLocked();
    // Only the commit holding the redeem request fails; the very next one succeeds.
    disk.now = {
      mode: 'once',
      matches: (batch) =>
        batch.some((w) => w.kind === 'saveTransition' && w.events.some((e) => e.type === 'REDEEM_REQUESTED')),
    };
    expectStorageFull(
      await taker.post(`/v1/trades/${trade.tradeId}/redeem`, { preimage: trade.secret.preimage }),
    );
    // The store writes again: the trade is taken up from what was stored, and the taker's retry goes through.
    const until = Date.now() + 30_000;
    let retried = await taker.post(`/v1/trades/${trade.tradeId}/redeem`, { preimage: trade.secret.preimage });
    while (retried.statusCode === 503 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      retried = await taker.post(`/v1/trades/${trade.tradeId}/redeem`, { preimage: trade.secret.preimage });
    }
    expect(retried.statusCode, retried.body).toBe(202);
    await taker.waitFor(trade.tradeId, (t) => t.settlement_status === 'redeemed', 30_000);
    // Every intent to redeem for the taker follows a stored redeem request: none came of the one not stored.
    const events = (await service.store.tradeEvents(trade.tradeId)).map((e) => ({
      type: e.type,
      kind: (e.payload as { kind?: string }).kind,
    }));
    const requested = events.findIndex((e) => e.type === 'REDEEM_REQUESTED');
    const intents = events.flatMap((e, i) =>
      e.type === 'TX_INTENT' && e.kind === 'taker_redeem' ? [i] : [],
    );
    expect(requested).toBeGreaterThanOrEqual(0);
    expect(intents.length).toBe(1);
    for (const i of intents) expect(i, JSON.stringify(events)).toBeGreaterThan(requested);
  });
});
