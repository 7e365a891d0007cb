// GET /v1/inventory: an operator route (the token when one is configured), documented, costing no chain call,
// that shows each asset's balance and reservations — and, without a hedging section, no targets.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startService, type TestService, WALLET } from '../support/service.ts';

const TOKEN = 'inventory-operator-token-0123456789';

describe('GET /v1/inventory', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService();
  });
  afterAll(async () => service?.dispose());

  test('shows every asset’s balance and what open quotes reserve; no targets without hedging', async () => {
    const rfq = await service.app.inject({
      method: 'POST',
      url: '/v1/rfq',
      payload: { input_asset: 'USDC', output_asset: 'SOL', amount: '1000', taker_wallet: WALLET },
    });
    const reservedSol = BigInt(rfq.json().output.amount_raw);
    const res = await service.app.inject('/v1/inventory');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.hedging).toBeNull();
    // No Gateway in the test config (the shipped one runs the embedded Gateway: test/e2e/gateway-inventory).
    expect(body.gateway).toBeNull();
    expect(body.hedges_in_flight).toEqual([]);
    expect(body.recent_hedges).toEqual([]);
    expect(body.assets.map((a: { asset: string }) => a.asset)).toEqual([
      'SOL',
      'USDC',
      'USDT',
      'BONK',
      'JUP',
    ]);
    const sol = body.assets[0];
    expect(sol).toMatchObject({
      mint: 'So11111111111111111111111111111111111111112',
      decimals: 9,
      balance_raw: (10_000n * 10n ** 9n).toString(),
      balance: '10000.000000000',
      reserved_raw: reservedSol.toString(),
      target: null,
    });
    expect(body.balances_read_at).toEqual(expect.any(String));
  });

  test('is documented as an operator route in the OpenAPI document', async () => {
    const doc = (await service.app.inject('/v1/openapi.json')).json();
    const op = doc.paths['/v1/inventory'].get;
    expect(op.operationId).toBe('getInventory');
    expect(op.security).toEqual([{ operatorBearer: [] }, { operatorQueryToken: [] }]);
    expect(op.responses['200'].content['application/json'].schema).toBeDefined();
  });
});

describe('GET /v1/inventory with an operator token configured', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService((doc) => {
      doc.http.operator_token = TOKEN;
    });
  });
  afterAll(async () => service?.dispose());

  test('answers 401 without the token or with a wrong one, 200 with it', async () => {
    expect((await service.app.inject('/v1/inventory')).statusCode).toBe(401);
    const wrong = await service.app.inject({
      url: '/v1/inventory',
      headers: { authorization: 'Bearer nope-nope-nope-nope' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('unauthorized');
    const bearer = await service.app.inject({
      url: '/v1/inventory',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(bearer.statusCode).toBe(200);
    expect((await service.app.inject(`/v1/inventory?access_token=${TOKEN}`)).statusCode).toBe(200);
  });
});
