import { afterEach, describe, expect, test } from 'vitest';
import { startService, type TestService } from '../support/service.ts';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

describe('Health', () => {
  test('liveness names the version and the run', async () => {
    service = await startService();
    const res = await service.app.inject('/v1/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ok',
      version: '0.1.0',
      run_id: service.runId,
      uptime_seconds: expect.any(Number),
    });
  });

  test('readiness is 200 with every part ok, and a 503 envelope naming the failing part', async () => {
    service = await startService();
    const ready = await service.app.inject('/v1/health/ready');
    expect(ready.statusCode).toBe(200);
    expect(ready.json().status).toBe('ready');
    service.store.close();
    const down = await service.app.inject('/v1/health/ready');
    expect(down.statusCode).toBe(503);
    expect(down.json().error.code).toBe('not_ready');
    expect(down.json().error.details).toEqual(['store: not answering']);
  });

  test('public readiness says why in words: no balance, count, slot or store kind', async () => {
    service = await startService();
    const ready = await service.app.inject('/v1/health/ready');
    expect(ready.json()).toEqual({
      status: 'ready',
      parts: [
        { name: 'store', ok: true, reason: 'answering' },
        { name: 'chain', ok: true, reason: 'answering' },
        { name: 'runtime', ok: true, reason: 'running' },
        { name: 'maker_balances', ok: true, reason: 'read' },
        { name: 'maker_fee_balance', ok: true, reason: 'sufficient' },
        { name: 'prices', ok: true, reason: 'every feed fresh' },
        { name: 'mints', ok: true, reason: 'checked' },
      ],
    });
    expect(ready.body).not.toMatch(/[0-9]|sqlite|postgres|lamports|slot/i);
    // The numbers behind it are the operator's.
    const operator = (await service.app.inject('/v1/runtime/readiness')).json();
    expect(operator.status).toBe('ready');
    const detail = Object.fromEntries(
      operator.parts.map((p: { name: string; detail: string }) => [p.name, p.detail]),
    );
    expect(detail.store).toMatch(/^(sqlite|postgres) answers$/);
    expect(detail.maker_fee_balance).toMatch(/^\d+ lamports$/);
    expect(detail.runtime).toMatch(/^\d+ trades watched, \d+ actors active$/);
    expect(detail.chain).toMatch(/^last read \d+ ms ago/);
  });

  test('a readiness probe costs no chain call: the parts read what the service learnt already', async () => {
    let calls = 0;
    service = await startService(undefined, {
      wrapChain: (chain) =>
        new Proxy(chain, {
          get(target, key, receiver) {
            const value = Reflect.get(target, key, receiver);
            if (typeof value !== 'function') return value;
            return (...args: unknown[]) => {
              calls++;
              return value.apply(target, args);
            };
          },
        }),
    });
    const before = calls;
    for (let i = 0; i < 100; i++) {
      expect((await service.app.inject('/v1/health/ready')).statusCode).toBe(200);
    }
    // Only the timers that follow the chain anyway called it meanwhile (a refresh a second: a handful).
    expect(calls - before).toBeLessThan(30);
  });
});

describe('Assets and Pairs', () => {
  test('lists the configured assets with their real mints and decimals', async () => {
    service = await startService();
    const { assets } = (await service.app.inject('/v1/assets')).json();
    expect(assets).toContainEqual({
      id: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      symbol: 'USDC',
      name: 'USD Coin',
      decimals: 6,
    });
    expect(assets.map((a: { symbol: string }) => a.symbol)).toEqual(['SOL', 'USDC', 'USDT', 'BONK', 'JUP']);
    expect(assets.find((a: { symbol: string }) => a.symbol === 'BONK').decimals).toBe(5);
  });

  test.each([
    'usdc',
    'USDC',
    'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    'epjfwdd5aufqssqem2qn1xzybapc8g4wegGkzwytdt1v',
  ])('finds an asset by id or symbol, case-insensitively (%s)', async (key) => {
    service = await startService();
    const res = await service.app.inject(`/v1/assets/${key}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().symbol).toBe('USDC');
  });

  test('an unknown asset is a 404 asset_not_found', async () => {
    service = await startService();
    const res = await service.app.inject('/v1/assets/DOGE');
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('asset_not_found');
  });

  test('pairs show spread, size limits in display units and whether paused', async () => {
    service = await startService();
    const { pairs } = (await service.app.inject('/v1/pairs')).json();
    expect(pairs[0]).toEqual({
      input_asset: 'SOL',
      output_asset: 'USDC',
      input_mint: 'So11111111111111111111111111111111111111112',
      output_mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      base_spread_bps: 8,
      min_input: '0.010000000',
      max_input: '2000.000000000',
      paused: false,
    });
  });
});
