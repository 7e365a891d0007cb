// GET /metrics on the real service: the exposition parses and keeps ids out of labels, and the series move
// when RFQs, a swap, failing effects and chain errors happen.
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, test } from 'vitest';
import { ChainError, type ChainPort } from '../../src/chain/index.ts';
import { listenOnLoopback, startService, type TestService } from '../support/service.ts';
import { openSse } from '../support/sse.ts';
import { newSecret, Taker } from '../support/taker.ts';
import { type Family, parseExposition, sampleValue } from './exposition.ts';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

const start = (options: Parameters<typeof startService>[1] = {}) =>
  startService(undefined, { pollIntervalMs: 50, lockWaitMs: 3_000, ...options });

async function scrape(s: TestService, url = '/metrics'): Promise<Map<string, Family>> {
  const res = await s.app.inject(url);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(res.body);
}

/** Waits until the scraped value satisfies `done`; answers the families of that scrape. */
async function scrapeUntil(
  s: TestService,
  done: (families: Map<string, Family>) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<Map<string, Family>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const families = await scrape(s);
    if (done(families)) return families;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const num = (families: Map<string, Family>, name: string, labels: Record<string, string> = {}) =>
  sampleValue(families, name, labels) ?? 0;

const SERVICE_FAMILIES = [
  'rfq_maker_info',
  'rfq_maker_rfqs_total',
  'rfq_maker_rfq_rejections_total',
  'rfq_maker_rfq_duration_seconds',
  'rfq_maker_settlement_start_duration_seconds',
  'rfq_maker_settlement_duration_seconds',
  'rfq_maker_trade_status_changes_total',
  'rfq_maker_maker_losses_total',
  'rfq_maker_effect_failures_total',
  'rfq_maker_effect_retries_total',
  'rfq_maker_chain_call_duration_seconds',
  'rfq_maker_chain_call_errors_total',
  'rfq_maker_store_commit_duration_seconds',
  'rfq_maker_store_commit_batch_size',
  'rfq_maker_open_trades',
  'rfq_maker_chain_unreachable_seconds',
  'rfq_maker_trade_actors',
  'rfq_maker_failing_effect_trades',
  'rfq_maker_escrow_funds_raw',
  'rfq_maker_nearest_deadline_seconds',
  'rfq_maker_balance_raw',
  'rfq_maker_reserved_raw',
  'rfq_maker_fee_balance_lamports',
  'rfq_maker_fee_balance_min_lamports',
  'rfq_maker_chain_up',
  'rfq_maker_chain_feed_live',
  'rfq_maker_event_streams_open',
];

/** Ids this test saw; none may appear in a label. */
function expectNoIdsInLabels(families: Map<string, Family>, ids: readonly string[]): void {
  const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
  const base58Key = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
  const hex32 = /^[0-9a-f]{64}$/i;
  for (const family of families.values()) {
    for (const sample of family.samples) {
      for (const [name, value] of Object.entries(sample.labels)) {
        const where = `${sample.name} ${name}="${value}"`;
        expect(uuid.test(value), where).toBe(false);
        expect(base58Key.test(value), where).toBe(false);
        expect(hex32.test(value), where).toBe(false);
        for (const id of ids) expect(value.includes(id), where).toBe(false);
      }
    }
  }
}

const hasPromtool = spawnSync('promtool', ['--version']).status === 0;

describe('GET /metrics', () => {
  test('a fresh service exposes every family in the text format, each with its help', async () => {
    service = await start();
    const res = await service.app.inject('/metrics');
    const families = parseExposition(res.body);
    for (const name of SERVICE_FAMILIES) {
      expect(families.has(name), name).toBe(true);
      expect(families.get(name)?.help, name).not.toBe('');
    }
    // The process's own: event-loop lag, memory, CPU.
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'process_resident_memory_bytes',
      'process_cpu_seconds_total',
    ]) {
      expect(families.has(name), name).toBe(true);
    }
    expect(num(families, 'rfq_maker_info', { chain: 'embedded' })).toBe(1);
    expect(num(families, 'rfq_maker_chain_up')).toBe(1);
    expect(num(families, 'rfq_maker_chain_feed_live')).toBe(1);
    // The embedded chain funds the configured inventory; the fee floor is the readiness check's.
    for (const asset of service.config.assets.list) {
      expect(num(families, 'rfq_maker_balance_raw', { asset: asset.symbol }), asset.symbol).toBe(
        Number(service.config.inventory.get(asset.mint) ?? 0n),
      );
    }
    expect(num(families, 'rfq_maker_fee_balance_lamports')).toBeGreaterThan(
      num(families, 'rfq_maker_fee_balance_min_lamports'),
    );
    expect(num(families, 'rfq_maker_fee_balance_min_lamports')).toBeGreaterThan(0);
    // Series of the fixed sets exist at zero before anything happens.
    expect(sampleValue(families, 'rfq_maker_rfqs_total', { outcome: 'quoted' })).toBe(0);
    expect(sampleValue(families, 'rfq_maker_rfq_rejections_total', { check: 'inventory' })).toBe(0);
    expect(sampleValue(families, 'rfq_maker_effect_failures_total', { effect: 'makerLock' })).toBe(0);
    expect(sampleValue(families, 'rfq_maker_maker_losses_total')).toBe(0);
    expect(families.get('rfq_maker_nearest_deadline_seconds')?.samples).toEqual([]);
  });

  // prom-client's own process gauges nodejs_active_{handles,requests,resources}_total break the lint's "_total
  // only on counters" rule; ours are linted alone.
  test.skipIf(!hasPromtool)('promtool lints the service’s metrics clean (names, units, types)', async () => {
    service = await start();
    const text = (await service.app.inject('/metrics')).body;
    const ours = text.split('\n').filter((line) => /^(# (HELP|TYPE) )?rfq_maker_/.test(line));
    expect(ours.length).toBeGreaterThan(SERVICE_FAMILIES.length * 2);
    const input = `${ours.join('\n')}\n`;
    const out = spawnSync('promtool', ['check', 'metrics'], { input, encoding: 'utf8' });
    expect(`${out.stdout}${out.stderr}`.trim()).toBe('');
    expect(out.status).toBe(0);
  });

  test('RFQs count by outcome and rejections by failing check, with their latency', async () => {
    service = await start();
    const taker = new Taker(service.app);
    const before = await scrape(service);
    await taker.quote('SOL', 'USDC', '1.5');
    const rejected = await taker.post('/v1/rfq', {
      input_asset: 'SOL',
      output_asset: 'USDC',
      amount: '5000',
      taker_wallet: taker.address,
    });
    expect(rejected.json().status).toBe('rejected');
    const failing = rejected.json().reasons.map((r: { check: string }) => r.check) as string[];
    expect(failing).toContain('max_notional');
    const after = await scrape(service);
    const moved = (name: string, labels: Record<string, string>) =>
      num(after, name, labels) - num(before, name, labels);
    expect(moved('rfq_maker_rfqs_total', { outcome: 'quoted' })).toBe(1);
    expect(moved('rfq_maker_rfqs_total', { outcome: 'rejected' })).toBe(1);
    for (const check of failing) expect(moved('rfq_maker_rfq_rejections_total', { check }), check).toBe(1);
    expect(moved('rfq_maker_rfq_rejections_total', { check: 'pair_enabled' })).toBe(0);
    expect(moved('rfq_maker_rfq_duration_seconds_count', { outcome: 'quoted' })).toBe(1);
    expect(moved('rfq_maker_rfq_duration_seconds_count', { outcome: 'rejected' })).toBe(1);
    expect(num(after, 'rfq_maker_rfq_duration_seconds_sum', { outcome: 'quoted' })).toBeGreaterThan(0);
    // The accepted quote holds its output until it expires.
    expect(num(after, 'rfq_maker_reserved_raw', { asset: 'USDC' })).toBeGreaterThan(0);
    // The quote was durable before it was answered: a group commit of at least one write.
    expect(moved('rfq_maker_store_commit_batch_size_count', {})).toBeGreaterThanOrEqual(1);
  });

  test('a swap moves the trade, actor, escrow, deadline, chain and store series; no id becomes a label', async () => {
    service = await start();
    const taker = new Taker(service.app);
    await taker.airdrop('SOL', '5');
    const quote = await taker.quote('SOL', 'USDC', '1.5');
    const secret = newSecret();
    const settled = await taker.settle(quote.quote_id, secret);
    expect(settled.statusCode).toBe(201);
    const settlement = settled.json();
    const tradeId = settlement.trade_id as string;

    const pending = await scrape(service);
    expect(num(pending, 'rfq_maker_settlement_start_duration_seconds_count', { outcome: 'created' })).toBe(1);
    expect(
      num(pending, 'rfq_maker_open_trades', { status: 'pending', substate: 'pending.awaitingLock' }),
    ).toBe(1);
    expect(
      num(pending, 'rfq_maker_trade_actors', { state: 'active' }) +
        num(pending, 'rfq_maker_trade_actors', { state: 'at_rest' }),
    ).toBe(1);
    expect(num(pending, 'rfq_maker_chain_call_duration_seconds_count', { method: 'buildTakerLock' })).toBe(1);

    const repeated = await taker.settle(quote.quote_id, secret);
    expect(repeated.statusCode).toBe(200);
    const locked = await taker.lock(tradeId, settlement.taker_lock_transaction.transaction_base64);
    expect(locked.statusCode, locked.body).toBe(202);
    const ready = await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked');

    const inFlight = await scrapeUntil(
      service,
      (f) => num(f, 'rfq_maker_escrow_funds_raw', { asset: 'USDC', side: 'maker' }) > 0,
      'the maker escrow to show',
    );
    expect(num(inFlight, 'rfq_maker_settlement_start_duration_seconds_count', { outcome: 'repeated' })).toBe(
      1,
    );
    expect(num(inFlight, 'rfq_maker_trade_status_changes_total', { from: 'pending', to: 'initiated' })).toBe(
      1,
    );
    expect(
      num(inFlight, 'rfq_maker_open_trades', {
        status: 'initiated',
        substate: 'initiated.makerLocked',
      }),
    ).toBe(1);
    expect(num(inFlight, 'rfq_maker_escrow_funds_raw', { asset: 'SOL', side: 'taker' })).toBe(
      Number(quote.input.amount_raw),
    );
    expect(num(inFlight, 'rfq_maker_escrow_funds_raw', { asset: 'USDC', side: 'maker' })).toBe(
      Number(quote.output.amount_raw),
    );
    expect(num(inFlight, 'rfq_maker_escrow_funds_raw', { asset: 'USDC', side: 'taker' })).toBe(0);
    // Deadlines in chain seconds from now: the maker expiry, and redeem_by a landing margin before it.
    const toMakerExpiry = num(inFlight, 'rfq_maker_nearest_deadline_seconds', { deadline: 'maker_expiry' });
    const { settlement: timing } = service.config;
    expect(toMakerExpiry).toBeGreaterThan(0);
    expect(toMakerExpiry).toBeLessThanOrEqual(timing.makerTimelockSeconds);
    expect(Date.parse(ready.maker_expires_at) / 1000 - Date.now() / 1000).toBeCloseTo(toMakerExpiry, -1);
    expect(
      toMakerExpiry - num(inFlight, 'rfq_maker_nearest_deadline_seconds', { deadline: 'redeem_by' }),
    ).toBe(timing.landingMarginSeconds);
    expect(sampleValue(inFlight, 'rfq_maker_nearest_deadline_seconds', { deadline: 'taker_expiry' })).toBe(
      undefined,
    );
    for (const method of ['signMakerLock', 'land', 'readEscrowsAndClock']) {
      expect(
        num(inFlight, 'rfq_maker_chain_call_duration_seconds_count', { method }),
        method,
      ).toBeGreaterThan(0);
    }
    // The maker's output left its balance for the escrow; nothing holds it in reservations any more.
    expect(num(inFlight, 'rfq_maker_reserved_raw', { asset: 'USDC' })).toBe(0);

    const redeem = await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage });
    expect(redeem.statusCode, redeem.body).toBe(202);
    const done = await taker.waitFor(tradeId, (t) => t.settlement_status === 'redeemed' && !t.next_action);
    const after = await scrapeUntil(
      service,
      (f) => num(f, 'rfq_maker_settlement_duration_seconds_count', { status: 'redeemed' }) === 1,
      'the settlement to be observed',
    );
    expect(num(after, 'rfq_maker_trade_status_changes_total', { from: 'initiated', to: 'redeemed' })).toBe(1);
    for (const side of ['taker', 'maker']) {
      for (const asset of ['SOL', 'USDC']) {
        expect(num(after, 'rfq_maker_escrow_funds_raw', { asset, side }), `${asset} ${side}`).toBe(0);
      }
    }
    expect(after.get('rfq_maker_nearest_deadline_seconds')?.samples).toEqual([]);
    expect(sampleValue(after, 'rfq_maker_open_trades', { status: 'initiated' })).toBe(undefined);
    expect(num(after, 'rfq_maker_store_commit_duration_seconds_count')).toBeGreaterThan(
      num(pending, 'rfq_maker_store_commit_duration_seconds_count'),
    );
    expect(num(after, 'rfq_maker_maker_losses_total')).toBe(0);

    const signatures = (done.tx_signature_kinds as { signature: string }[]).map((s) => s.signature);
    expectNoIdsInLabels(after, [
      tradeId,
      quote.quote_id,
      taker.address,
      service.runId,
      secret.secretHash,
      secret.preimage,
      settlement.taker_escrow,
      settlement.maker_escrow,
      service.chain.makerWallet.toBase58(),
      ...signatures,
    ]);
  });

  test('event streams open count by stream while they are open, and not after', async () => {
    service = await start();
    const port = await listenOnLoopback(service);
    const taker = new Taker(service.app);
    const quote = await taker.quote('SOL', 'USDC', '1');
    const tradeId = (await taker.settle(quote.quote_id, newSecret())).json().trade_id as string;
    const idle = await scrape(service);
    expect(num(idle, 'rfq_maker_event_streams_open', { stream: 'trade' })).toBe(0);
    expect(num(idle, 'rfq_maker_event_streams_open', { stream: 'runtime' })).toBe(0);

    const open = [
      openSse(port, `/v1/trades/${tradeId}/stream`),
      openSse(port, `/v1/trades/${tradeId}/stream`),
      openSse(port, '/v1/runtime/events/stream'),
    ];
    for (const stream of open) await stream.ready;
    await open[0]?.until(() => (open[0]?.frames.length ?? 0) >= 1);
    const busy = await scrape(service);
    expect(num(busy, 'rfq_maker_event_streams_open', { stream: 'trade' })).toBe(2);
    expect(num(busy, 'rfq_maker_event_streams_open', { stream: 'runtime' })).toBe(1);

    for (const stream of open) stream.close();
    const closed = await scrapeUntil(
      service,
      (f) =>
        num(f, 'rfq_maker_event_streams_open', { stream: 'trade' }) === 0 &&
        num(f, 'rfq_maker_event_streams_open', { stream: 'runtime' }) === 0,
      'every stream closed',
    );
    expect(num(closed, 'rfq_maker_event_streams_open', { stream: 'trade' })).toBe(0);
  });

  test('failing effects count by effect, retries too, chain errors by method and code', async () => {
    const outage = { on: false };
    service = await start({ wrapChain: (chain) => failingBalances(chain, outage) });
    const taker = new Taker(service.app);
    await taker.airdrop('SOL', '5');
    const quote = await taker.quote('SOL', 'USDC', '1.5');
    const settlement = (await taker.settle(quote.quote_id, newSecret())).json();
    outage.on = true;
    const locked = await taker.lock(
      settlement.trade_id,
      settlement.taker_lock_transaction.transaction_base64,
    );
    expect(locked.statusCode, locked.body).toBe(202);

    // checkInventory reads the maker's balance: it fails, and is retried with backoff in chain seconds (1, 2,
    // 4, 8 … plus up to 25 %). Moving the chain's clock past each backoff makes the retry due at once, until
    // the trade counts as failing: 5 failures in a row.
    let failing = await scrape(service);
    let seen = 0;
    for (const until = Date.now() + 45_000; ; ) {
      if (num(failing, 'rfq_maker_failing_effect_trades', { effect: 'checkInventory' }) === 1) break;
      const failures = num(failing, 'rfq_maker_effect_failures_total', { effect: 'checkInventory' });
      if (Date.now() > until) {
        const trade = await taker.trade(settlement.trade_id);
        throw new Error(`checkInventory failed ${failures} times; the trade is ${JSON.stringify(trade)}`);
      }
      if (failures > seen) {
        seen = failures;
        await service.devChain?.advanceClock(Math.ceil(2 ** (failures - 1) * 1.25) + 1);
      }
      await new Promise((r) => setTimeout(r, 50));
      failing = await scrape(service);
    }
    expect(
      num(failing, 'rfq_maker_effect_failures_total', { effect: 'checkInventory' }),
    ).toBeGreaterThanOrEqual(5);
    expect(
      num(failing, 'rfq_maker_effect_retries_total', { effect: 'checkInventory' }),
    ).toBeGreaterThanOrEqual(4);
    expect(num(failing, 'rfq_maker_effect_failures_total', { effect: 'makerLock' })).toBe(0);
    expect(
      num(failing, 'rfq_maker_chain_call_errors_total', { method: 'tokenBalance', code: 'unavailable' }),
    ).toBeGreaterThanOrEqual(5);
    expect(
      num(failing, 'rfq_maker_open_trades', { status: 'initiated', substate: 'initiated.assessing' }),
    ).toBe(1);

    outage.on = false;
    await service.devChain?.advanceClock(90);
    await taker.waitFor(settlement.trade_id, (t) => t.substate === 'initiated.makerLocked');
    const recovered = await scrape(service);
    expect(num(recovered, 'rfq_maker_failing_effect_trades', { effect: 'checkInventory' })).toBe(0);
    expect(num(recovered, 'rfq_maker_effect_retries_total', { effect: 'checkInventory' })).toBeGreaterThan(
      num(failing, 'rfq_maker_effect_retries_total', { effect: 'checkInventory' }),
    );
  }, 60_000);
});

describe('the operator token on GET /metrics', () => {
  const TOKEN = 'metrics-operator-token-0123456789';

  test('with no token configured the route is open', async () => {
    service = await start();
    expect((await service.app.inject('/metrics')).statusCode).toBe(200);
  });

  test('a configured token is required, on loopback too; a wrong one is a 401', async () => {
    service = await startService((doc) => {
      doc.http.operator_token = TOKEN;
    });
    expect((await service.app.inject('/metrics')).statusCode).toBe(401);
    const wrong = await service.app.inject({
      url: '/metrics',
      headers: { authorization: 'Bearer not-the-operator-token' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('unauthorized');
    expect((await service.app.inject('/metrics?access_token=nope')).statusCode).toBe(401);
  });

  test('the token is accepted as a bearer header or access_token', async () => {
    service = await startService((doc) => {
      doc.http.operator_token = TOKEN;
    });
    const none = await service.app.inject('/metrics');
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({
      error: { code: 'unauthorized', message: expect.any(String), details: [] },
    });
    const bearer = await service.app.inject({
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(bearer.statusCode).toBe(200);
    expect(bearer.body).toContain('# TYPE rfq_maker_rfqs_total counter');
    expect((await service.app.inject(`/metrics?access_token=${TOKEN}`)).statusCode).toBe(200);
  });

  test('the route is documented as an operator route returning text', async () => {
    service = await start();
    const doc = (await service.app.inject('/v1/openapi.json')).json();
    const operation = doc.paths['/metrics'].get;
    expect(operation.operationId).toBe('getMetrics');
    expect(operation.security).toEqual([{ operatorBearer: [] }, { operatorQueryToken: [] }]);
    expect(Object.keys(operation.responses['200'].content)).toEqual(['text/plain']);
    expect(operation.responses['401']).toBeDefined();
  });
});

/** The chain with the maker's token balance reads failing while `outage.on`, as an unreachable RPC would. */
function failingBalances(chain: ChainPort, outage: { on: boolean }): ChainPort {
  return new Proxy(chain, {
    get(target, key, receiver) {
      if (key === 'tokenBalance' && outage.on) {
        return async () => {
          throw new ChainError('unavailable', 'tokenBalance failed: connection refused');
        };
      }
      const value = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
