// The Runtime group: status, runs, trades, ledger, the event log (polled and streamed), the machine's
// definition and the visualiser page; the operator token on all of them; and the commitment kept out of
// every event until the taker lock is on chain.
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { listenOnLoopback, startService, type TestService } from '../support/service.ts';
import { type Json, openSse } from '../support/sse.ts';
import { newSecret, Taker } from '../support/taker.ts';

const TOKEN = 'operator-token-for-tests-0123456789';
const ROUTES = [
  '/v1/runtime',
  '/v1/runtime/runs',
  '/v1/runtime/trades',
  '/v1/runtime/ledger',
  '/v1/runtime/events',
  '/v1/runtime/machines/trade',
  '/v1/viz',
];

const start = (change?: Parameters<typeof startService>[0], options = {}) =>
  startService(change, { pollIntervalMs: 50, lockWaitMs: 3_000, ...options });

/** A settled but unlocked trade, and the commitment it was settled with. */
async function pendingTrade(s: TestService) {
  const taker = new Taker(s.app);
  const quote = await taker.quote('SOL', 'USDC', '1');
  const secret = newSecret();
  const settled = await taker.settle(quote.quote_id, secret);
  expect(settled.statusCode, settled.body).toBe(201);
  return { taker, secret, tradeId: settled.json().trade_id as string };
}

describe('runtime routes after a whole swap', () => {
  let service: TestService;
  let tradeId: string;

  beforeAll(async () => {
    service = await start();
    const taker = new Taker(service.app);
    await taker.airdrop('SOL', '3');
    const quote = await taker.quote('SOL', 'USDC', '1.5');
    const secret = newSecret();
    const settlement = (await taker.settle(quote.quote_id, secret)).json();
    tradeId = settlement.trade_id;
    const locked = await taker.lock(tradeId, settlement.taker_lock_transaction.transaction_base64);
    expect(locked.statusCode, locked.body).toBe(202);
    await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked');
    expect((await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).statusCode).toBe(
      202,
    );
    await taker.waitFor(tradeId, (t) => t.settlement_status === 'redeemed' && !t.next_action);
  });
  afterAll(async () => service.dispose());

  const get = async (url: string) => {
    const res = await service.app.inject(url);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  test('GET /v1/runtime: run, actors by state, chain, store and maker balances', async () => {
    const body = await get('/v1/runtime');
    expect(body).toMatchObject({ run_id: service.runId, version: expect.any(String) });
    expect(Date.parse(body.started_at)).not.toBeNaN();
    expect(Object.keys(body.actors.by_state).sort()).toEqual(
      ['failed', 'initiated', 'pending', 'redeemed', 'refunded'].sort(),
    );
    expect(body.actors.count).toBe(body.actors.active + body.actors.at_rest);
    expect(body.actors.active).toBe(body.actors.list.length);
    expect(body.chain).toMatchObject({
      kind: 'embedded',
      healthy: true,
      program_id: service.chain.programId.toBase58(),
      maker_wallet: service.chain.makerWallet.toBase58(),
      chain_time_unix: expect.any(Number),
    });
    expect(Date.parse(body.chain.chain_time)).not.toBeNaN();
    expect(body.store).toMatchObject({ ok: true, path: service.store.location });
    const usdc = body.balances.find((b: { asset: string }) => b.asset === 'USDC');
    expect(usdc).toMatchObject({ decimals: 6, amount_raw: expect.stringMatching(/^[0-9]+$/) });
    expect(body.last_event_seq).toBeGreaterThan(0);
  });

  test('owned trades are counted by state and substate; a waiting trade is at rest, not an actor', async () => {
    const before = await get('/v1/runtime');
    const { tradeId: pending } = await pendingTrade(service);
    const body = await get('/v1/runtime');
    expect(body.actors.list.map((a: { trade_id: string }) => a.trade_id)).not.toContain(pending);
    expect(body.actors.at_rest).toBe(before.actors.at_rest + 1);
    expect(body.actors.by_state.pending).toBe(before.actors.by_state.pending + 1);
    expect(body.actors.by_substate['pending.awaitingLock']).toBe(
      (before.actors.by_substate['pending.awaitingLock'] ?? 0) + 1,
    );
    expect(body.actors.failing_effects).toEqual([]);
  });

  test('GET /v1/runtime/runs: every run with its trade counts', async () => {
    const { runs } = await get('/v1/runtime/runs');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ run_id: service.runId, current: true, stopped_at: null });
    expect(runs[0].trades_created).toBeGreaterThanOrEqual(1);
    expect(runs[0].trades_owned).toBe(runs[0].trades_created);
  });

  test('GET /v1/runtime/trades: the current run’s trades by default, a run’s by run_id, paged', async () => {
    const owned = await get('/v1/runtime/trades');
    expect(owned.trades.map((t: { trade_id: string }) => t.trade_id)).toContain(tradeId);
    expect(owned.trades.every((t: { current_run: boolean }) => t.current_run)).toBe(true);
    const created = await get(`/v1/runtime/trades?run_id=${service.runId}&limit=1`);
    expect(created.trades).toHaveLength(1);
    expect(created.trades[0].trade_id).toBe(tradeId);
    expect(created.next_cursor).toEqual(expect.any(String));
    const next = await get(
      `/v1/runtime/trades?run_id=${service.runId}&limit=1&cursor=${created.next_cursor}`,
    );
    expect(next.trades[0].trade_id).not.toBe(tradeId);
    const other = await get('/v1/runtime/trades?run_id=00000000-0000-4000-8000-000000000000');
    expect(other).toEqual({ trades: [], next_cursor: null });
    const bad = await service.app.inject('/v1/runtime/trades?cursor=nonsense');
    expect(bad.statusCode).toBe(400);
  });

  test('GET /v1/runtime/ledger: entries with exact string amounts and a balanced summary per trade', async () => {
    const all = await get('/v1/runtime/ledger');
    const mine = await get(`/v1/runtime/ledger?trade_id=${tradeId}`);
    expect(mine.entries.length).toBeGreaterThanOrEqual(8);
    expect(all.entries.length).toBeGreaterThanOrEqual(mine.entries.length);
    for (const entry of mine.entries) {
      expect(entry).toMatchObject({
        trade_id: tradeId,
        amount_raw: expect.stringMatching(/^[0-9]+$/),
        side: expect.stringMatching(/^(debit|credit)$/),
      });
    }
    expect(mine.entries.map((e: { movement: string }) => e.movement)).toEqual(
      expect.arrayContaining(['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem']),
    );
    expect(mine.summaries).toEqual([
      {
        trade_id: tradeId,
        balanced: true,
        entry_count: mine.entries.length,
        net_usdc_estimate: expect.any(String),
      },
    ]);
    const trade = await get(`/v1/trades/${tradeId}`);
    expect(mine.summaries[0]).toEqual({ trade_id: tradeId, ...trade.ledger_summary });
    const missing = await service.app.inject(
      '/v1/runtime/ledger?trade_id=00000000-0000-4000-8000-000000000000',
    );
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('trade_not_found');
  });

  test('GET /v1/runtime/events: stable seq order, paged by next_cursor', async () => {
    const first = await get('/v1/runtime/events?after=0&limit=3');
    expect(first.events).toHaveLength(3);
    const seqs = first.events.map((e: { seq: number }) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(first.next_cursor).toBe(seqs[2]);
    const rest = await get(`/v1/runtime/events?after=${first.next_cursor}&limit=1000`);
    expect(rest.events[0].seq).toBeGreaterThan(seqs[2]);
    const again = await get('/v1/runtime/events?after=0&limit=1000');
    expect(again.events).toEqual([...first.events, ...rest.events]);
    const end = await get(`/v1/runtime/events?after=${rest.next_cursor}`);
    expect(end).toEqual({ events: [], next_cursor: rest.next_cursor });
    const mine = again.events.filter((e: { trade_id: string }) => e.trade_id === tradeId);
    expect(mine.map((e: { substate: string }) => e.substate)).toContain('initiated.makerLocked');
    expect(mine[0]).toMatchObject({ type: 'SETTLEMENT_STARTED', run_id: service.runId, trade_id: tradeId });
  });

  test('GET /v1/runtime/machines/trade: the machine’s definition', async () => {
    const body = await get('/v1/runtime/machines/trade');
    expect(body.id).toBe('trade');
    expect(body.initial).toBe('trade.pending');
    expect(body.states.map((s: { path: string }) => s.path)).toEqual(
      expect.arrayContaining(['pending', 'initiated.redeeming.makerLocked', 'redeemed.closed']),
    );
    // Each state names the substate TradeResponse and the events show in it; a state grouping others, none.
    const byPath = new Map(body.states.map((s: { path: string }) => [s.path, s]));
    expect(byPath.get('initiated.redeeming.makerLocked')).toMatchObject({
      substate: 'initiated.makerLocked',
    });
    expect(byPath.get('initiated.redeeming')).toMatchObject({ substate: null });
    expect(byPath.get('redeemed.closed')).toMatchObject({ substate: 'redeemed.closed' });
    expect(body.transitions).toContainEqual(
      expect.objectContaining({
        source: 'trade.pending',
        event: 'ABANDON',
        guard: 'and(secretHashMatches, hasNoLockSignature)',
      }),
    );
    expect(body.transitions.some((t: { kind: string }) => t.kind === 'always')).toBe(true);
  });

  test('GET /v1/viz: the page with the chart, served from the process', async () => {
    const res = await service.app.inject('/v1/viz');
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('data-state="initiated.redeeming.makerLocked"');
    expect(res.body).toContain('ABANDON [and(secretHashMatches, hasNoLockSignature)]');
    expect(res.body).not.toMatch(/<script[^>]+src=/);
    expect(res.body).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
  });

  test('the runtime routes are in the OpenAPI document; the stream as text/event-stream', async () => {
    const doc = (await service.app.inject('/v1/openapi.json')).json();
    for (const path of [...ROUTES, '/v1/runtime/events/stream']) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
    expect(Object.keys(doc.paths['/v1/runtime/events/stream'].get.responses['200'].content)).toEqual([
      'text/event-stream',
    ]);
    expect(Object.keys(doc.paths['/v1/viz'].get.responses['200'].content)).toEqual(['text/html']);
  });

  test('real responses match their documented schemas', async () => {
    const doc = (await service.app.inject('/v1/openapi.json')).json();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    (ajvFormats as unknown as { default: (a: Ajv2020) => void }).default(ajv);
    const urls: [string, string][] = [
      ['/v1/runtime', '/v1/runtime'],
      ['/v1/runtime/runs', '/v1/runtime/runs'],
      ['/v1/runtime/trades', `/v1/runtime/trades?run_id=${service.runId}`],
      ['/v1/runtime/ledger', `/v1/runtime/ledger?trade_id=${tradeId}`],
      ['/v1/runtime/events', '/v1/runtime/events?limit=1000'],
      ['/v1/runtime/machines/trade', '/v1/runtime/machines/trade'],
    ];
    for (const [path, url] of urls) {
      const validate = ajv.compile(doc.paths[path].get.responses['200'].content['application/json'].schema);
      expect(validate(await get(url)), `${url}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});

describe('the operator token', () => {
  let service: TestService | undefined;
  afterEach(async () => {
    await service?.dispose();
    service = undefined;
  });

  test('with no token configured the routes are open', async () => {
    service = await start();
    for (const url of ROUTES) expect((await service.app.inject(url)).statusCode, url).toBe(200);
  });

  test('a configured token: wrong → 401 envelope; right as bearer header or access_token → 200', async () => {
    service = await start((doc) => {
      doc.http.operator_token = TOKEN;
    });
    const app = service.app;
    for (const url of ROUTES) {
      const wrong = await app.inject({ url, headers: { authorization: 'Bearer not-the-operator-token' } });
      expect(wrong.statusCode, url).toBe(401);
      expect(wrong.json()).toEqual({
        error: { code: 'unauthorized', message: expect.any(String), details: [] },
      });
      const wrongQuery = await app.inject(`${url}?access_token=not-the-operator-token`);
      expect(wrongQuery.statusCode, url).toBe(401);
      expect((await app.inject({ url, headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(200);
      expect((await app.inject(`${url}?access_token=${TOKEN}`)).statusCode, url).toBe(200);
    }
  });

  test('a configured token is required on every listener: no token is a 401, on loopback too', async () => {
    service = await start((doc) => {
      doc.http.operator_token = TOKEN;
    });
    for (const url of [...ROUTES, '/v1/runtime/events/stream']) {
      const res = await service.app.inject(url);
      expect(res.statusCode, url).toBe(401);
      expect(res.json().error.code).toBe('unauthorized');
    }
    expect((await service.app.inject(`/v1/runtime?access_token=${TOKEN}`)).statusCode).toBe(200);
  });
});

// ── Server-Sent Events over a real socket ─────────────────────────────────────────────────────────

describe('GET /v1/runtime/events/stream', () => {
  let service: TestService;
  let port: number;

  beforeAll(async () => {
    service = await start();
    port = await listenOnLoopback(service);
  });
  afterAll(async () => service.dispose());

  const pollAll = async () =>
    (await service.app.inject('/v1/runtime/events?after=0&limit=1000')).json().events as Json[];

  test('streams the poll route’s events; resumes after Last-Event-ID with no gap and no duplicate', async () => {
    for (let i = 0; i < 3; i++) {
      const { taker, secret, tradeId } = await pendingTrade(service);
      await taker.post(`/v1/trades/${tradeId}/abandon`, { secret_hash: secret.secretHash });
    }
    const logged = await pollAll();
    expect(logged.length).toBeGreaterThanOrEqual(6);

    const first = openSse(port, '/v1/runtime/events/stream?after=0');
    const res = await first.ready;
    expect(res.statusCode).toBe(200);
    expect(first.headers()['content-type']).toContain('text/event-stream');
    await first.until(() => first.frames.length >= 2);
    first.close();
    const got = first.frames.slice(0, 2);
    expect(got.map((f) => f.event)).toEqual(['trade', 'trade']);
    expect(got.map((f) => f.data)).toEqual(logged.slice(0, 2));
    expect(got.map((f) => f.id)).toEqual(logged.slice(0, 2).map((e) => e.seq));

    // Last-Event-ID wins over the original ?after=, as when EventSource reconnects.
    const resumed = openSse(port, '/v1/runtime/events/stream?after=0', {
      'last-event-id': String(got[1]?.id),
    });
    await resumed.until(() => resumed.frames.length >= logged.length - 2);
    // New events arrive live on the open stream.
    await pendingTrade(service);
    const now = await pollAll();
    await resumed.until(() => resumed.frames.length >= now.length - 2);
    resumed.close();
    const seqs = [...got, ...resumed.frames].map((f) => f.id);
    expect(seqs).toEqual(now.map((e) => e.seq));
    expect([...got, ...resumed.frames].map((f) => f.data)).toEqual(now);
  });

  test('without a cursor the stream starts at the log’s end; comments open it', async () => {
    const before = await pollAll();
    const live = openSse(port, '/v1/runtime/events/stream');
    await live.ready;
    await live.until(() => live.comments.length >= 1);
    const { tradeId } = await pendingTrade(service);
    await live.until(() => live.frames.length >= 1);
    live.close();
    expect(live.frames[0]?.data).toMatchObject({ trade_id: tradeId, type: 'SETTLEMENT_STARTED' });
    expect(live.frames[0]?.id).toBeGreaterThan(before.at(-1)?.seq ?? 0);
  });

  test('a malformed Last-Event-ID is a 400 envelope', async () => {
    const bad = await service.app.inject({
      url: '/v1/runtime/events/stream',
      headers: { 'last-event-id': 'yesterday' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('validation_failed');
  });

  test('no event, polled or streamed, carries the commitment before the lock is on chain', async () => {
    const stream = openSse(port, '/v1/runtime/events/stream');
    await stream.ready;
    const { taker, secret, tradeId } = await pendingTrade(service);
    // A wrong hash, then the right one: the abandon command carries the commitment itself.
    await taker.post(`/v1/trades/${tradeId}/abandon`, { secret_hash: newSecret().secretHash });
    const abandoned = await taker.post(`/v1/trades/${tradeId}/abandon`, { secret_hash: secret.secretHash });
    expect(abandoned.statusCode).toBe(202);
    await stream.until(() =>
      stream.frames.some((f) => f.data.trade_id === tradeId && f.data.type === 'ABANDON'),
    );
    stream.close();
    const hash = new RegExp(secret.secretHash, 'i');
    expect(stream.text).not.toMatch(hash);
    for (const url of [
      '/v1/runtime/events?after=0&limit=1000',
      `/v1/trades/${tradeId}/events`,
      '/v1/runtime/trades?limit=200',
      '/v1/runtime',
    ]) {
      expect((await service.app.inject(url)).body, url).not.toMatch(hash);
    }
  });

  test('closing the app ends open streams instead of waiting for them', async () => {
    const other = await start();
    const otherPort = await listenOnLoopback(other);
    const stream = openSse(otherPort, '/v1/runtime/events/stream?after=0');
    await stream.ready;
    await other.dispose();
    await stream.until(() => stream.ended, 15_000);
    expect(stream.ended).toBe(true);
  });
});
