// GET /v1/trades/{id}/stream over a real socket: the trade as it is now, then each of its events with the
// trade after it, live through a whole swap; replay with ?after= and Last-Event-ID with no gap and no
// duplicate; no other trade's events; the stream cap; errors before any stream opens.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listenOnLoopback, startService, type TestService } from '../support/service.ts';
import { type Json, openSse } from '../support/sse.ts';
import { newSecret, Taker } from '../support/taker.ts';

let service: TestService;
let port: number;

beforeAll(async () => {
  service = await startService(undefined, { pollIntervalMs: 50, lockWaitMs: 3_000 });
  port = await listenOnLoopback(service);
});
afterAll(async () => service.dispose());

/** A settled, unlocked trade. */
async function pendingTrade(taker = new Taker(service.app)) {
  const quote = await taker.quote('SOL', 'USDC', '1');
  const secret = newSecret();
  const settled = await taker.settle(quote.quote_id, secret);
  expect(settled.statusCode, settled.body).toBe(201);
  return { taker, secret, settlement: settled.json(), tradeId: settled.json().trade_id as string };
}

const history = async (tradeId: string) =>
  (await service.app.inject(`/v1/trades/${tradeId}/events`)).json().events as Json[];

/** A stream opened once the server has room for it: a 429 (too many open) is asked again until a ceiling. */
async function openOnceRoom(path: string, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const stream = openSse(port, path);
    await stream.ready;
    if (stream.status !== 429) return stream;
    stream.close();
    if (Date.now() > until) throw new Error(`${path} still 429 after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('GET /v1/trades/{trade_id}/stream', () => {
  test('follows a whole swap: the trade first, then each event with the trade after it', async () => {
    const taker = new Taker(service.app);
    await taker.airdrop('SOL', '2');
    const { secret, settlement, tradeId } = await pendingTrade(taker);
    const before = await history(tradeId);

    const stream = openSse(port, `/v1/trades/${tradeId}/stream`);
    expect((await stream.ready).statusCode).toBe(200);
    expect(stream.headers()['content-type']).toContain('text/event-stream');
    await stream.until(() => stream.frames.length >= 1);
    const [opening] = stream.frames;
    expect(opening?.event).toBe('trade');
    expect(opening?.id).toBe(before.at(-1)?.seq);
    expect(opening?.data).toMatchObject({ trade_id: tradeId, settlement_status: 'pending' });

    const locked = await taker.lock(tradeId, settlement.taker_lock_transaction.transaction_base64);
    expect(locked.statusCode, locked.body).toBe(202);
    await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked');
    expect((await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).statusCode).toBe(
      202,
    );
    const done = await taker.waitFor(tradeId, (t) => t.settlement_status === 'redeemed' && !t.next_action);
    const after = await history(tradeId);
    const live = after.filter((e) => e.seq > (opening?.id ?? 0));
    await stream.until(() => stream.frames.length >= 1 + live.length);
    await new Promise((r) => setTimeout(r, 200)); // nothing further may follow
    stream.close();

    const frames = stream.frames.slice(1);
    expect(frames.map((f) => f.event)).toEqual(live.map(() => 'trade-event'));
    expect(frames.map((f) => f.id)).toEqual(live.map((e) => e.seq));
    expect(frames.map((f) => f.data.event)).toEqual(live);
    // Events name substates as TradeResponse does (docs/interface.md#substates), not by the machine's paths.
    expect(frames.map((f) => f.data.event.substate)).toContain('initiated.makerLocked');
    for (const frame of frames) expect(frame.data.trade.trade_id).toBe(tradeId);
    // The trade after the last event is the trade as the route answers it, signatures included.
    expect(frames.at(-1)?.data.trade).toEqual(done);
    expect(done.settlement_status).toBe('redeemed');
    // Nothing secret travels: the preimage is public once redeemed, but never the signed lock.
    expect(stream.text).not.toContain(settlement.taker_lock_transaction.transaction_base64);
  });

  test('?after=0 replays the whole history; Last-Event-ID resumes with no gap and no duplicate', async () => {
    const { taker, secret, tradeId } = await pendingTrade();
    await taker.post(`/v1/trades/${tradeId}/abandon`, { secret_hash: secret.secretHash });
    await taker.waitFor(tradeId, (t) => t.settlement_status !== 'pending');
    const all = await history(tradeId);
    expect(all.length).toBeGreaterThanOrEqual(2);

    const whole = openSse(port, `/v1/trades/${tradeId}/stream?after=0`);
    await whole.until(() => whole.frames.length >= 1 + all.length);
    whole.close();
    expect(whole.frames[0]).toMatchObject({ id: 0, event: 'trade' });
    expect(whole.frames.slice(1).map((f) => f.data.event)).toEqual(all);
    // Never locked: the commitment guards abandon, so no frame may show it.
    expect(whole.text).not.toContain(secret.secretHash);

    // EventSource sends the last id it saw; the header wins over the original ?after=.
    const resumed = openSse(port, `/v1/trades/${tradeId}/stream?after=0`, {
      'last-event-id': String(all[0].seq),
    });
    await resumed.until(() => resumed.frames.length >= all.length);
    resumed.close();
    expect(resumed.frames[0]).toMatchObject({ id: all[0].seq, event: 'trade' });
    expect(resumed.frames.slice(1).map((f) => f.id)).toEqual(all.slice(1).map((e) => e.seq));
  });

  test('carries only its own trade’s events', async () => {
    const mine = await pendingTrade();
    const stream = openSse(port, `/v1/trades/${mine.tradeId}/stream`);
    await stream.until(() => stream.frames.length >= 1);
    const other = await pendingTrade();
    await other.taker.post(`/v1/trades/${other.tradeId}/abandon`, { secret_hash: other.secret.secretHash });
    await other.taker.waitFor(other.tradeId, (t) => t.settlement_status !== 'pending');
    await mine.taker.post(`/v1/trades/${mine.tradeId}/abandon`, { secret_hash: mine.secret.secretHash });
    await stream.until(() => stream.frames.length >= 2);
    await new Promise((r) => setTimeout(r, 200));
    stream.close();
    expect(stream.frames.length).toBeGreaterThanOrEqual(2);
    for (const frame of stream.frames.slice(1)) expect(frame.data.event.trade_id).toBe(mine.tradeId);
  });

  test('past 8 open streams of one trade: 429 rate_limited; closing one makes room', async () => {
    const { tradeId } = await pendingTrade();
    const open = Array.from({ length: 8 }, () => openSse(port, `/v1/trades/${tradeId}/stream`));
    for (const s of open) await s.until(() => s.frames.length >= 1);
    const ninth = await fetch(`http://127.0.0.1:${port}/v1/trades/${tradeId}/stream`);
    expect(ninth.status).toBe(429);
    expect(((await ninth.json()) as Json).error.code).toBe('rate_limited');
    open[0]?.close();
    // Room is made once the server has seen that socket close: asked again until then (on a loaded machine
    // that can take longer than any fixed pause).
    const again = await openOnceRoom(`/v1/trades/${tradeId}/stream`);
    await again.until(() => again.frames.length >= 1);
    for (const s of [...open, again]) s.close();
  });

  test('an unknown trade is 404, a malformed id 400, before any stream opens', async () => {
    const unknown = await service.app.inject('/v1/trades/0190f7d2-0000-7000-8000-000000000000/stream');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('trade_not_found');
    const malformed = await service.app.inject('/v1/trades/not-a-uuid/stream');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.code).toBe('validation_failed');
    const badHeader = await service.app.inject({
      url: `/v1/trades/${(await pendingTrade()).tradeId}/stream`,
      headers: { 'last-event-id': 'x' },
    });
    expect(badHeader.statusCode).toBe(400);
  });
});
