// The control plane on one instance, on the store this run tests (SQLite, or PostgreSQL with
// TEST_STORE=postgres): an operator pauses and resumes pairs and the whole desk, changes a pair's spread,
// size limits and lifetimes, a hedged asset's band, and sourcing and hedging — each change validated as the
// config file is, refused with the envelope and nothing applied when it is not, in force at once for
// GET /v1/pairs and new quotes, logged with who made it, and kept across a restart. A pause in the middle
// of a flood of takers stops new quotes and settlement starts at once and lets every started trade finish.
import { afterEach, describe, expect, test } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { createService } from '../../src/service.ts';
import {
  type ConfigDocument,
  defaultConfigDocument,
  startService,
  type TestService,
  tempDir,
  testStore,
  WALLET,
} from '../support/service.ts';
import { newSecret, Taker } from '../support/taker.ts';

type Json = ReturnType<typeof JSON.parse>;

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef01';

let services: TestService[] = [];
afterEach(async () => {
  await Promise.all(services.map((s) => s.dispose()));
  services = [];
});

async function start(change: (doc: ConfigDocument) => void = () => {}): Promise<TestService> {
  const service = await startService(change);
  services.push(service);
  return service;
}

/** An operator request (the loopback client when no token is given). */
async function operator(
  service: TestService,
  method: 'GET' | 'POST' | 'PATCH',
  url: string,
  payload?: unknown,
  token?: string,
) {
  return service.app.inject({
    method,
    url,
    ...(payload === undefined ? {} : { payload: payload as object }),
    ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }),
  });
}

const pairsOf = async (service: TestService) =>
  (await service.app.inject('/v1/pairs')).json().pairs as Json[];
const pairIn = (pairs: Json[], input: string, output: string) =>
  pairs.find((p) => p.input_asset === input && p.output_asset === output);
const rfq = (service: TestService, input: string, output: string, amount: string, extra: object = {}) =>
  service.app.inject({
    method: 'POST',
    url: '/v1/rfq',
    payload: { input_asset: input, output_asset: output, amount, taker_wallet: WALLET, ...extra },
  });

describe('pausing', () => {
  test('a pair paused by the operator: GET /v1/pairs shows it at once, its RFQs are rejected, its open quotes cannot start a settlement (409 trading_paused); resumed, they can', async () => {
    const service = await start();
    const taker = new Taker(service.app);
    const quote = await taker.quote('SOL', 'USDC', '1');
    const paused = await operator(service, 'POST', '/v1/desk/pairs/SOL-USDC/pause');
    expect(paused.statusCode, paused.body).toBe(200);
    expect(paused.json().changes).toMatchObject([
      {
        target: 'pair:SOL-USDC',
        field: 'paused',
        before: false,
        after: true,
        override: true,
        actor: 'loopback',
      },
    ]);
    expect(pairIn(await pairsOf(service), 'SOL', 'USDC').paused).toBe(true);
    // The other direction is not paused.
    expect(pairIn(await pairsOf(service), 'USDC', 'SOL').paused).toBe(false);
    const refused = (await rfq(service, 'SOL', 'USDC', '1')).json();
    expect(refused.status).toBe('rejected');
    expect(refused.reasons).toEqual([{ check: 'pair_enabled', message: 'pair SOL->USDC is paused' }]);
    const refusedStart = await taker.settle(quote.quote_id, newSecret());
    expect(refusedStart.statusCode).toBe(409);
    expect(refusedStart.json().error.code).toBe('trading_paused');
    // Pausing what is paused changes nothing, and logs nothing.
    expect((await operator(service, 'POST', '/v1/desk/pairs/sol-usdc/pause')).json().changes).toEqual([]);

    expect((await operator(service, 'POST', '/v1/desk/pairs/SOL-USDC/resume')).statusCode).toBe(200);
    expect(pairIn(await pairsOf(service), 'SOL', 'USDC').paused).toBe(false);
    // The quote given before the pause is honoured.
    expect((await taker.settle(quote.quote_id, newSecret())).statusCode).toBe(201);
  });

  test('the kill switch stops every pair; lifting it leaves a pair paused on its own paused', async () => {
    const service = await start();
    await operator(service, 'PATCH', '/v1/desk/pairs/USDC-SOL', { paused: true });
    const kill = await operator(service, 'POST', '/v1/desk/pause');
    expect(kill.json().changes).toMatchObject([
      { target: 'desk', field: 'paused', before: false, after: true },
    ]);
    expect(kill.json().desk.paused).toBe(true);
    expect((await pairsOf(service)).every((p) => p.paused)).toBe(true);
    const refused = (await rfq(service, 'USDT', 'USDC', '10')).json();
    expect(refused.reasons[0]).toEqual({
      check: 'pair_enabled',
      message: 'the desk is paused: no pair is quoted (pair USDT->USDC)',
    });
    await operator(service, 'POST', '/v1/desk/resume');
    const pairs = await pairsOf(service);
    expect(pairs.filter((p) => p.paused).map((p) => `${p.input_asset}-${p.output_asset}`)).toEqual([
      'USDC-SOL',
    ]);
    expect((await rfq(service, 'USDT', 'USDC', '10')).json().status).toBe('accepted');
  });
});

describe('changing terms', () => {
  test('spread, size limits and lifetimes are in force for the next RFQ, and null puts the config file’s value back', async () => {
    const service = await start();
    const before = (await rfq(service, 'SOL', 'USDC', '1')).json();
    expect(before.spread_breakdown.base_bps).toBe(8);
    const set = await operator(service, 'PATCH', '/v1/desk/pairs/SOL-USDC', {
      base_spread_bps: 40,
      max_input: '5',
      max_expiry_seconds: 20,
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().changes.map((c: Json) => [c.field, c.before, c.after])).toEqual([
      ['base_spread_bps', 8, 40],
      ['max_input', '2000.000000000', '5.000000000'],
      ['max_expiry_seconds', 300, 20],
    ]);
    const after = (await rfq(service, 'SOL', 'USDC', '1')).json();
    expect(after.spread_breakdown.base_bps).toBe(40);
    // The size term prices an input against the pair's max_input: 1 SOL of 5 costs more than 1 of 2000.
    expect(after.spread_breakdown.size_and_skew_bps).toBeGreaterThan(
      before.spread_breakdown.size_and_skew_bps,
    );
    expect(after.spread_bps - before.spread_bps).toBe(
      32 + after.spread_breakdown.size_and_skew_bps - before.spread_breakdown.size_and_skew_bps,
    );
    expect(pairIn(await pairsOf(service), 'SOL', 'USDC')).toMatchObject({
      base_spread_bps: 40,
      max_input: '5.000000000',
    });
    expect((await rfq(service, 'SOL', 'USDC', '6')).json().reasons.map((r: Json) => r.check)).toContain(
      'max_notional',
    );
    const long = await rfq(service, 'SOL', 'USDC', '1', { expiry_seconds: 21 });
    expect(long.statusCode).toBe(400);
    // Back to the file's value: the override is gone, the log says so.
    const reset = await operator(service, 'PATCH', '/v1/desk/pairs/SOL-USDC', { base_spread_bps: null });
    expect(reset.json().changes).toMatchObject([
      { field: 'base_spread_bps', before: 40, after: 8, override: null },
    ]);
    const desk = (await operator(service, 'GET', '/v1/desk')).json();
    expect(desk.overrides.map((o: Json) => `${o.target} ${o.field}=${o.value}`)).toEqual([
      'pair:SOL-USDC max_expiry_seconds=20',
      'pair:SOL-USDC max_input=5',
    ]);
  });

  test('sourcing off stops sourced quotes; hedging bands change in GET /v1/inventory', async () => {
    const service = await start((doc) => {
      doc.venue = { fee_bps: 30, keeper_trigger_bps: null };
      doc.inventory = doc.inventory.map((e) => (e.asset === 'SOL' ? { ...e, amount: '2' } : e));
      doc.hedging = {
        enabled: false,
        quote_asset: 'USDC',
        assets: { SOL: { target: '2', band: '1', max_clip: '25', min_clip: '1' } },
      };
    });
    // A quote that lapses at once: on PostgreSQL an open sourced quote counts its whole output in the store.
    const sourced = (await rfq(service, 'USDC', 'SOL', '1000', { expiry_seconds: 1 })).json();
    expect(sourced.risk_checks).toContain('sourcing');
    await operator(service, 'PATCH', '/v1/desk', { sourcing_enabled: false });
    const refused = (await rfq(service, 'USDC', 'SOL', '1000')).json();
    expect(refused.status).toBe('rejected');
    expect(refused.reasons.map((r: Json) => r.check)).toContain('inventory');
    await operator(service, 'PATCH', '/v1/desk', { sourcing_enabled: true });
    while (Date.now() <= Date.parse(sourced.expires_at)) await new Promise((r) => setTimeout(r, 50));
    expect((await rfq(service, 'USDC', 'SOL', '1000')).json().status).toBe('accepted');

    // A band of 75 % of the target (1.5 SOL) in place of the file's 1 SOL; a band below min_clip is not one.
    const band = await operator(service, 'PATCH', '/v1/desk/hedging/SOL', { band_bps: 7500 });
    expect(band.statusCode, band.body).toBe(200);
    expect(band.json().desk.hedging).toEqual([
      {
        asset: 'SOL',
        target: '2.000000000',
        band: '1.500000000',
        band_bps: 7500,
        max_clip: '25.000000000',
        min_clip: '1.000000000',
      },
    ]);
    const inventory = (await service.app.inject('/v1/inventory')).json();
    expect(inventory.assets.find((a: Json) => a.asset === 'SOL').target.band).toBe('1.500000000');
    const narrow = await operator(service, 'PATCH', '/v1/desk/hedging/SOL', { band: '0.5' });
    expect(narrow.statusCode).toBe(400);
    expect(narrow.json().error.details).toEqual([
      expect.stringMatching(/min_clip: must not exceed the band/),
    ]);
    // A band replaces the band_bps: an entry has one of the two.
    const plain = await operator(service, 'PATCH', '/v1/desk/hedging/SOL', { band: '1.2' });
    expect(plain.json().changes.map((c: Json) => [c.field, c.before, c.after, c.override])).toEqual([
      ['band', '1.500000000', '1.200000000', '1.2'],
      ['band_bps', 7500, null, null],
    ]);
    await operator(service, 'PATCH', '/v1/desk', { hedging_enabled: true });
    expect(service.hedger?.enabled).toBe(true);
  });
});

describe('refusals', () => {
  test('an invalid change is refused with the envelope and nothing is applied, nor logged', async () => {
    const service = await start();
    const desk = (await operator(service, 'GET', '/v1/desk')).json();
    const cases: [string, string, unknown, number, string][] = [
      // The config's own meaning checks, named as the config names them.
      ['PATCH', '/v1/desk/pairs/SOL-USDC', { max_input: '0.001' }, 400, 'validation_failed'],
      ['PATCH', '/v1/desk/pairs/SOL-USDC', { maker_timelock_seconds: 1 }, 400, 'validation_failed'],
      // The schema's: the config field's own bounds and shape.
      ['PATCH', '/v1/desk/pairs/SOL-USDC', { base_spread_bps: 20_000 }, 400, 'validation_failed'],
      ['PATCH', '/v1/desk/pairs/SOL-USDC', { min_input: '1e3' }, 400, 'validation_failed'],
      ['PATCH', '/v1/desk/pairs/SOL-USDC', { paused: 'yes' }, 400, 'validation_failed'],
      ['PATCH', '/v1/desk/pairs/SOL-USDC', { colour: 'red' }, 400, 'validation_failed'],
      ['PATCH', '/v1/desk/pairs/SOL-USDC', {}, 400, 'validation_failed'],
      // No such pair, no hedging section to switch.
      ['PATCH', '/v1/desk/pairs/SOL-BONK', { paused: true }, 404, 'pair_not_found'],
      ['POST', '/v1/desk/pairs/SOL-DOGE/pause', undefined, 404, 'pair_not_found'],
      ['PATCH', '/v1/desk', { hedging_enabled: true }, 400, 'validation_failed'],
      ['PATCH', '/v1/desk/hedging/SOL', { band: '1' }, 404, 'asset_not_found'],
    ];
    for (const [method, url, body, status, code] of cases) {
      const res = await operator(service, method as 'PATCH', url, body);
      expect(res.statusCode, `${method} ${url} ${JSON.stringify(body)}: ${res.body}`).toBe(status);
      expect(res.json()).toEqual({
        error: { code, message: expect.any(String), details: expect.any(Array) },
      });
    }
    const invalid = await operator(service, 'PATCH', '/v1/desk/pairs/SOL-USDC', { max_input: '0.001' });
    expect(invalid.json().error.details).toEqual([
      expect.stringMatching(/^body\.max_input: must not be below min_input/),
    ]);
    expect((await operator(service, 'GET', '/v1/desk')).json()).toEqual(desk);
    expect((await operator(service, 'GET', '/v1/desk/changes')).json().changes).toEqual([]);
    expect(pairIn(await pairsOf(service), 'SOL', 'USDC').max_input).toBe('2000.000000000');
  });

  test('the desk routes take the operator token, and name its holder in the log', async () => {
    const service = await start((doc) => {
      doc.http.operator_token = ALICE;
      doc.http.operator_tokens = [{ name: 'bob', token: BOB }];
    });
    expect((await operator(service, 'POST', '/v1/desk/pause')).statusCode).toBe(401);
    expect(
      (await operator(service, 'POST', '/v1/desk/pause', undefined, 'wrong-token-0123456789')).statusCode,
    ).toBe(401);
    expect((await operator(service, 'GET', '/v1/desk')).statusCode).toBe(401);
    expect((await operator(service, 'POST', '/v1/desk/pause', undefined, ALICE)).statusCode).toBe(200);
    expect((await operator(service, 'POST', '/v1/desk/resume', undefined, BOB)).statusCode).toBe(200);
    const log = (await operator(service, 'GET', '/v1/desk/changes', undefined, BOB)).json();
    expect(log.changes.map((c: Json) => [c.actor, c.after])).toEqual([
      ['bob', false],
      ['operator', true],
    ]);
  });
});

describe('durability and the log', () => {
  test('a restart keeps every override (the kill switch too); the config file stays the boot default', async () => {
    const doc = defaultConfigDocument();
    const dir = tempDir();
    const open = async () =>
      createService({ dataDir: dir.path, config: resolveConfig(doc), ...(await testStore(dir.path)) });
    let service = await open();
    try {
      await service.app.inject({ method: 'POST', url: '/v1/desk/pause' });
      await service.app.inject({
        method: 'PATCH',
        url: '/v1/desk/pairs/SOL-USDC',
        payload: { base_spread_bps: 30 },
      });
      await service.close();
      service = await open();
      const pairs = (await service.app.inject('/v1/pairs')).json().pairs as Json[];
      expect(pairs.every((p) => p.paused)).toBe(true);
      expect(pairIn(pairs, 'SOL', 'USDC').base_spread_bps).toBe(30);
      const desk = (await service.app.inject('/v1/desk')).json();
      expect(desk.paused).toBe(true);
      expect(desk.overrides.map((o: Json) => `${o.target} ${o.field}`)).toEqual([
        'desk paused',
        'pair:SOL-USDC base_spread_bps',
      ]);
      expect((await rfq(service as TestService, 'SOL', 'USDC', '1')).json().status).toBe('rejected');
    } finally {
      await service.close();
      dir.remove();
    }
  });

  test('the log holds every change, newest first, with who, when, before and after, paged', async () => {
    const service = await start();
    const t0 = Date.now();
    const steps: [string, string, unknown][] = [
      ['POST', '/v1/desk/pause', undefined],
      ['PATCH', '/v1/desk/pairs/SOL-USDC', { base_spread_bps: 12, min_input: '0.5' }],
      ['POST', '/v1/desk/pairs/USDC-SOL/pause', undefined],
      ['PATCH', '/v1/desk/pairs/SOL-USDC', { min_input: null }],
      ['POST', '/v1/desk/resume', undefined],
    ];
    for (const [method, url, body] of steps) {
      expect((await operator(service, method as 'POST', url, body)).statusCode).toBe(200);
    }
    const log = (await operator(service, 'GET', '/v1/desk/changes')).json();
    expect(log.next_before).toBeNull();
    expect(log.changes.map((c: Json) => [c.target, c.field, c.before, c.after])).toEqual([
      ['desk', 'paused', true, false],
      ['pair:SOL-USDC', 'min_input', '0.500000000', '0.010000000'],
      ['pair:USDC-SOL', 'paused', false, true],
      ['pair:SOL-USDC', 'min_input', '0.010000000', '0.500000000'],
      ['pair:SOL-USDC', 'base_spread_bps', 8, 12],
      ['desk', 'paused', false, true],
    ]);
    const seqs = log.changes.map((c: Json) => c.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    for (const c of log.changes) {
      expect(c.actor).toBe('loopback');
      expect(c.run_id).toBe(service.runId);
      expect(Date.parse(c.at)).toBeGreaterThanOrEqual(t0 - 1000);
    }
    const page = (await operator(service, 'GET', '/v1/desk/changes?limit=4')).json();
    expect(page.changes).toHaveLength(4);
    const rest = (
      await operator(service, 'GET', `/v1/desk/changes?limit=4&before=${page.next_before}`)
    ).json();
    expect([...page.changes, ...rest.changes]).toEqual(log.changes);
  });
});

describe('a pause mid-flood', () => {
  test('stops new quotes and settlement starts the moment it is answered; every trade already started finishes', async () => {
    const service = await start((doc) => {
      doc.http.rate_limit_per_minute = 100_000;
      doc.risk.max_open_per_wallet = 100;
    });
    let pausedAt: number | null = null;
    const afterPause: { kind: 'rfq' | 'start'; ok: boolean }[] = [];
    const started: string[] = [];
    const secrets = new Map<string, string>();
    const takers = Array.from({ length: 8 }, () => new Taker(service.app));
    for (const taker of takers) await taker.airdrop('SOL', '10');
    // Each taker goes round: quote, start, lock; every trade it started it locks and, once the maker has
    // locked, redeems — paused or not. It stops once it has asked for a quote after the pause was answered
    // (however long its requests in flight took then: on a loaded machine a lock can outlast any fixed window).
    const flood = takers.map(async (taker) => {
      let askedAfterPause = false;
      while (!askedAfterPause) {
        const sentAt = Date.now();
        const quote = (await rfq(service, 'SOL', 'USDC', '0.5', { taker_wallet: taker.address })).json();
        const after = pausedAt !== null && sentAt > pausedAt;
        askedAfterPause = after;
        if (after) afterPause.push({ kind: 'rfq', ok: quote.status === 'accepted' });
        if (quote.status !== 'accepted') continue;
        const secret = newSecret();
        const startSent = Date.now();
        const start = await taker.settle(quote.quote_id, secret);
        if (pausedAt !== null && startSent > pausedAt)
          afterPause.push({ kind: 'start', ok: start.statusCode === 201 });
        if (start.statusCode !== 201) {
          expect(start.json().error.code).toBe('trading_paused');
          continue;
        }
        const trade = start.json();
        started.push(trade.trade_id);
        secrets.set(trade.trade_id, secret.preimage);
        const locked = await taker.lock(trade.trade_id, trade.taker_lock_transaction.transaction_base64);
        expect(locked.statusCode, locked.body).toBe(202);
      }
    });
    // Pause once the flood has trades under way.
    while (started.length < 6) await new Promise((r) => setTimeout(r, 20));
    const paused = await operator(service, 'POST', '/v1/desk/pause');
    expect(paused.statusCode).toBe(200);
    pausedAt = Date.now();
    await Promise.all(flood);
    expect(afterPause.length).toBeGreaterThan(0);
    expect(afterPause.filter((r) => r.ok)).toEqual([]);
    // Every trade started, before the pause or in flight while it came, settles.
    const redeemer = new Taker(service.app);
    for (const tradeId of started) {
      await redeemer.waitFor(tradeId, (t) => t.next_action?.type === 'redeem', 30_000);
      const redeem = await redeemer.post(`/v1/trades/${tradeId}/redeem`, { preimage: secrets.get(tradeId) });
      expect(redeem.statusCode, redeem.body).toBe(202);
    }
    for (const tradeId of started) {
      const done = await redeemer.waitFor(tradeId, (t) => t.settlement_status === 'redeemed', 30_000);
      expect(done.failure_reason ?? null).toBeNull();
    }
  });
});
