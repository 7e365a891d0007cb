import { afterEach, describe, expect, test } from 'vitest';
import { OTHER_WALLET, startService, type TestService, WALLET } from '../support/service.ts';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

/** No budget below the inventory itself: open quotes hold their output in full, as one client may. */
const WHOLE_INVENTORY = { client_share_bps: 10_000, wallet_share_bps: 10_000, unfunded_share_bps: 10_000 };

const rfq = (s: TestService, body: Record<string, unknown>) =>
  s.app.inject({
    method: 'POST',
    url: '/v1/rfq',
    payload: { input_asset: 'SOL', output_asset: 'USDC', amount: '1.5', taker_wallet: WALLET, ...body },
  });

describe('POST /v1/rfq', () => {
  test('an accepted quote carries every field of the interface with its exact names, types and bounds', async () => {
    const now = Date.parse('2026-11-22T10:00:00.000Z');
    service = await startService(undefined, { nowMs: () => now });
    const res = await rfq(service, { input_asset: 'sol', output_asset: 'usdc' });
    expect(res.statusCode).toBe(200);
    const quote = res.json();
    expect(Object.keys(quote).sort()).toEqual(
      [
        'status',
        'quote_id',
        'quoted_output_amount_raw',
        'spread_bps',
        'expires_at',
        'htlc_terms',
        'risk_checks',
        'integration_status',
        'pair',
        'input',
        'output',
        'next_action',
        'prices', // the extension: the prices it was priced from
        'spread_breakdown', // the extension: how spread_bps is made up
      ].sort(),
    );
    expect(quote.status).toBe('accepted');
    expect(quote.quote_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.isInteger(quote.quoted_output_amount_raw)).toBe(true);
    expect(String(quote.quoted_output_amount_raw)).toBe(quote.output.amount_raw);
    expect(quote.spread_bps).toBeGreaterThanOrEqual(8);
    expect(quote.spread_bps).toBeLessThanOrEqual(10000);
    expect(quote.expires_at).toBe('2026-11-22T10:00:30.000Z');
    expect(quote.htlc_terms).toEqual({
      settlement_model: 'solana_htlc',
      escrow_mint: 'So11111111111111111111111111111111111111112',
      expires_at: '2026-11-22T10:15:30.000Z',
      hashlock: null,
    });
    expect(quote.risk_checks).toEqual([
      'pair_enabled',
      'price_freshness',
      'price_confidence',
      'price_deviation',
      'min_notional',
      'max_notional',
      'inventory',
      'reservation_budget',
      'wallet_limits',
    ]);
    // The static source's prices never move: no volatility, no option term; the rest is size and skew.
    expect(quote.spread_breakdown).toEqual({
      base_bps: 8,
      confidence_bps: 0,
      option_bps: 0,
      size_and_skew_bps: quote.spread_bps - 8,
      option: {
        window_seconds: 420,
        input: { asset: 'SOL', volatility_annual: null, bps: 0 },
        output: { asset: 'USDC', volatility_annual: null, bps: 0 },
      },
    });
    expect(quote.integration_status).toBe('runtime_orchestrated');
    expect(quote.pair).toEqual({ input_asset: 'SOL', output_asset: 'USDC' });
    expect(quote.input).toEqual({
      asset: 'SOL',
      amount: '1.500000000',
      amount_raw: '1500000000',
      decimals: 9,
      mint: 'So11111111111111111111111111111111111111112',
    });
    expect(quote.output.asset).toBe('USDC');
    expect(quote.output.decimals).toBe(6);
    expect(quote.output.amount).toMatch(/^\d+\.\d{6}$/);
    // The static source's prices as the quote records them.
    expect(quote.prices).toEqual({
      input: {
        asset: 'SOL',
        source: 'static',
        feed_account: null,
        feed_id: null,
        price: '187.42',
        confidence: '0.00',
        ema_price: '187.42',
        price_raw: '18742',
        conf_raw: '0',
        exponent: -2,
        publish_time: '2026-11-21T12:00:00.000Z',
      },
      output: expect.objectContaining({ asset: 'USDC', price: '1', exponent: 0 }),
    });
    // 1.5 SOL at 187.42 is 281.13 USDC at mid: the quote is below it by about the spread.
    const out = BigInt(quote.output.amount_raw);
    expect(out).toBeLessThan(281_130_000n);
    expect(out).toBeGreaterThanOrEqual((281_130_000n * BigInt(10000 - quote.spread_bps)) / 10000n);
    expect(quote.next_action).toEqual({
      type: 'start_wallet_settlement',
      method: 'POST',
      path: `/v1/quotes/${quote.quote_id}/wallet-settlement`,
    });
  });

  test('assets match by mint as well as by symbol, case-insensitively', async () => {
    service = await startService();
    const res = await rfq(service, {
      input_asset: 'so11111111111111111111111111111111111111112',
      output_asset: 'EPJFWDD5AUFQSSQEM2QN1XZYBAPC8G4WEGGKZWYTDT1V',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().pair).toEqual({ input_asset: 'SOL', output_asset: 'USDC' });
  });

  test('an asset with 5 decimals formats with exactly 5 fraction digits', async () => {
    service = await startService();
    const res = await rfq(service, { input_asset: 'USDC', output_asset: 'BONK', amount: '10' });
    expect(res.statusCode).toBe(200);
    expect(res.json().output.amount).toMatch(/^\d+\.\d{5}$/);
    expect(res.json().output.decimals).toBe(5);
  });

  test('expiry_seconds sets the quote expiry; outside 1..max is a 400', async () => {
    const now = Date.parse('2026-11-22T10:00:00.000Z');
    service = await startService(undefined, { nowMs: () => now });
    expect((await rfq(service, { expiry_seconds: 300 })).json().expires_at).toBe('2026-11-22T10:05:00.000Z');
    for (const expiry_seconds of [0, -1, 301, 1.5, '30']) {
      const res = await rfq(service, { expiry_seconds });
      expect(res.statusCode, String(expiry_seconds)).toBe(400);
      expect(res.json().error.code).toBe('validation_failed');
      expect(res.json().error.details.join('\n')).toContain('body.expiry_seconds');
    }
  });

  test('the configured maximum below 300 also bounds expiry_seconds', async () => {
    service = await startService((doc) => {
      doc.quotes.max_expiry_seconds = 60;
    });
    const res = await rfq(service, { expiry_seconds: 61 });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual(['body.expiry_seconds: must be an integer 1..60']);
  });

  test('int64 amounts above 2^53 are serialized exactly', async () => {
    service = await startService((doc) => {
      doc.assets.push({
        symbol: 'WETH',
        name: 'Wrapped Ether',
        mint: '7vfCXTUXx5WJV5JADk17DUJ4ksgau7utNKj4b963voxs',
        decimals: 18,
      });
      doc.prices.push({ asset: 'WETH', usd: '3000', as_of: '2026-11-21T12:00:00Z' });
      doc.inventory.push({ asset: 'WETH', amount: '9' });
      doc.reservations = WHOLE_INVENTORY;
      doc.pairs.push({
        input: 'USDC',
        output: 'WETH',
        base_spread_bps: 0,
        min_input: '1',
        max_input: '250000',
        paused: false,
      });
    });
    const res = await rfq(service, { input_asset: 'USDC', output_asset: 'WETH', amount: '15000' });
    expect(res.statusCode).toBe(200);
    const raw = /"quoted_output_amount_raw":(\d+)/.exec(res.body)?.[1];
    expect(raw).toBeDefined();
    expect(BigInt(raw as string)).toBeGreaterThan(2n ** 53n);
    expect(raw).toBe(res.json().output.amount_raw);
  });

  test.each([
    ['too large', { amount: '2000.5' }, ['max_notional']],
    ['too small', { amount: '0.001' }, ['min_notional']],
  ])('a %s order is a 200 risk rejection naming the failing check', async (_name, body, failing) => {
    service = await startService();
    const res = await rfq(service, body);
    expect(res.statusCode).toBe(200);
    const rejection = res.json();
    expect(rejection.status).toBe('rejected');
    expect(rejection.rejection_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(rejection.reasons.map((r: { check: string }) => r.check)).toEqual(failing);
    expect(rejection.risk_checks).not.toContain(failing[0]);
    expect(rejection.integration_status).toBe('runtime_orchestrated');
    expect(rejection.pair).toEqual({ input_asset: 'SOL', output_asset: 'USDC' });
    expect(rejection.input.amount_raw).toBe(String(BigInt(Math.round(Number(body.amount) * 1e9))));
  });

  test('a paused pair is rejected by pair_enabled', async () => {
    service = await startService((doc) => {
      (doc.pairs[0] as { paused: boolean }).paused = true;
    });
    const res = await rfq(service, {});
    expect(res.json().reasons.map((r: { check: string }) => r.check)).toEqual(['pair_enabled']);
  });

  test('a stale price is rejected by price_freshness', async () => {
    const now = Date.parse('2026-11-22T10:00:00.000Z');
    service = await startService(undefined, {
      nowMs: () => now,
      prices: {
        latest: (mint) => ({
          usd: { num: mint.startsWith('So1') ? 187n : 1n, den: 1n },
          asOf: new Date(now - 301_000),
          alwaysFresh: false,
        }),
      },
    });
    const res = await rfq(service, {});
    expect(res.json().status).toBe('rejected');
    expect(res.json().reasons).toEqual([
      { check: 'price_freshness', message: expect.stringContaining('old') },
    ]);
  });

  test('inventory after reservations: open quotes hold output until they expire', async () => {
    let now = Date.parse('2026-11-22T10:00:00.000Z');
    service = await startService(
      (doc) => {
        doc.inventory[1] = { asset: 'USDC', amount: '500' };
        doc.risk.max_open_per_wallet = 100;
        doc.reservations = WHOLE_INVENTORY;
      },
      { nowMs: () => now },
    );
    expect((await rfq(service, { amount: '2', expiry_seconds: 10 })).json().status).toBe('accepted'); // ~374 USDC
    const second = (await rfq(service, { amount: '1' })).json(); // ~187 USDC: 374 + 187 > 500
    expect(second.status).toBe('rejected');
    // With every share at the whole inventory, the budget says what the inventory says.
    expect(second.reasons.map((r: { check: string }) => r.check)).toEqual([
      'inventory',
      'reservation_budget',
    ]);
    now += 10_000; // the first quote expires and its reservation with it
    expect((await rfq(service, { amount: '1' })).json().status).toBe('accepted');
  });

  test('too many open quotes for one wallet is rejected by wallet_limits; other wallets are unaffected', async () => {
    service = await startService((doc) => {
      doc.risk.max_open_per_wallet = 2;
    });
    expect((await rfq(service, {})).json().status).toBe('accepted');
    expect((await rfq(service, {})).json().status).toBe('accepted');
    const third = (await rfq(service, {})).json();
    expect(third.reasons.map((r: { check: string }) => r.check)).toEqual(['wallet_limits']);
    expect((await rfq(service, { taker_wallet: OTHER_WALLET })).json().status).toBe('accepted');
  });

  test('every failing check is named at once', async () => {
    service = await startService((doc) => {
      (doc.pairs[0] as { paused: boolean }).paused = true;
      doc.inventory[1] = { asset: 'USDC', amount: '1' };
    });
    const res = await rfq(service, { amount: '5000' });
    expect(
      res
        .json()
        .reasons.map((r: { check: string }) => r.check)
        .sort(),
    ).toEqual(['inventory', 'max_notional', 'pair_enabled', 'reservation_budget'].sort());
  });

  test('quotes issued concurrently never reserve more than the inventory', async () => {
    service = await startService((doc) => {
      doc.inventory[1] = { asset: 'USDC', amount: '2000' };
      doc.risk.max_open_per_wallet = 1000;
    });
    const s = service;
    const answers = await Promise.all(Array.from({ length: 40 }, () => rfq(s, { amount: '1' })));
    const accepted = answers.map((r) => r.json()).filter((q) => q.status === 'accepted');
    const reserved = accepted.reduce((sum, q) => sum + BigInt(q.quoted_output_amount_raw), 0n);
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.length).toBeLessThan(40);
    expect(reserved).toBeLessThanOrEqual(2_000_000_000n);
    expect(s.quotes.reservations.reserved('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(reserved);
  });

  test.each([
    [{ input_asset: 'DOGE' }, 'body.input_asset'],
    [{ output_asset: 'SOL' }, 'body.output_asset'],
    [{ input_asset: 'BONK', output_asset: 'SOL' }, 'body.output_asset'],
    [{ amount: '1.0000000001' }, 'body.amount'],
    [{ amount: '0' }, 'body.amount'],
    [{ amount: '1e3' }, 'body.amount'],
    [{ amount: '-1' }, 'body.amount'],
    [{ amount: ' 1' }, 'body.amount'],
    [{ amount: 1 }, 'body.amount'],
    [{ amount: '99999999999999999999' }, 'body.amount'],
    [{ taker_wallet: 'not-a-wallet' }, 'body.taker_wallet'],
    [{ taker_wallet: '1111111111111111111111111111111111111111111' }, 'body.taker_wallet'],
    [{ extra: true }, 'body.extra'],
  ])('a bad RFQ (%j) is a 400 naming %s', async (body, field) => {
    service = await startService();
    const res = await rfq(service, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('validation_failed');
    expect(res.json().error.details.some((d: string) => d.startsWith(`${field}:`))).toBe(true);
    expect(service.quotes.reservations.size).toBe(0);
  });
});

describe('GET /v1/quotes/{quote_id}', () => {
  test('shows the quote as issued and whether it is open or expired', async () => {
    let now = Date.parse('2026-11-22T10:00:00.000Z');
    service = await startService(undefined, { nowMs: () => now });
    const quote = (await rfq(service, { expiry_seconds: 5 })).json();
    const open = await service.app.inject(`/v1/quotes/${quote.quote_id}`);
    expect(open.statusCode).toBe(200);
    expect(open.json()).toEqual({ state: 'open', quote });
    now += 5_000;
    expect((await service.app.inject(`/v1/quotes/${quote.quote_id}`)).json().state).toBe('expired');
  });

  test('an unknown quote is a 404 quote_not_found; a malformed id a 400', async () => {
    service = await startService();
    const missing = await service.app.inject('/v1/quotes/00000000-0000-4000-8000-000000000000');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('quote_not_found');
    const bad = await service.app.inject('/v1/quotes/nope');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details).toEqual([expect.stringContaining('params.quote_id')]);
  });

  test('quotes survive a restart on the same DATA_DIR and keep their reservation', async () => {
    service = await startService((doc) => {
      doc.inventory[1] = { asset: 'USDC', amount: '300' };
      doc.reservations = WHOLE_INVENTORY;
    });
    const quote = (await rfq(service, {})).json();
    const { dataDir } = service;
    await service.close();
    const { createService } = await import('../../src/service.ts');
    const { resolveConfig } = await import('../../src/config/index.ts');
    const { defaultConfigDocument } = await import('../support/service.ts');
    const doc = defaultConfigDocument();
    doc.inventory[1] = { asset: 'USDC', amount: '300' };
    doc.reservations = WHOLE_INVENTORY;
    const again = await createService({ dataDir, config: resolveConfig(doc) });
    try {
      // All but the spread's breakdown, which the store does not keep.
      const { spread_breakdown: _breakdown, ...stored } = quote;
      expect((await again.app.inject(`/v1/quotes/${quote.quote_id}`)).json().quote).toEqual(stored);
      const second = await again.app.inject({
        method: 'POST',
        url: '/v1/rfq',
        payload: { input_asset: 'SOL', output_asset: 'USDC', amount: '1', taker_wallet: WALLET },
      });
      // The reloaded quote still holds its output, and still counts against its wallet's share.
      expect(second.json().reasons.map((r: { check: string }) => r.check)).toEqual([
        'inventory',
        'reservation_budget',
      ]);
    } finally {
      await again.close();
    }
  });
});
