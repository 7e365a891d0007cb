import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startService, type TestService, WALLET } from '../support/service.ts';

let service: TestService;
// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked dynamically here.
let doc: any;

beforeAll(async () => {
  service = await startService((d) => {
    d.http.body_limit_bytes = 2048;
  });
  const res = await service.app.inject('/v1/openapi.json');
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(async () => service.dispose());

const ajv = new Ajv2020({ strict: false, allErrors: true });
(ajvFormats as unknown as { default: (a: Ajv2020) => void }).default(ajv);

function responseSchema(path: string, method: string, status: number) {
  const operation = doc.paths[path]?.[method];
  expect(operation, `${method} ${path} is documented`).toBeDefined();
  const response = operation.responses[String(status)];
  expect(response, `${method} ${path} documents ${status}`).toBeDefined();
  return response.content['application/json'].schema;
}

describe('the OpenAPI document', () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test('documents every route: the API under /v1, and /metrics for scrapers', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/metrics',
        '/v1/assets',
        '/v1/assets/{asset}',
        '/v1/desk',
        '/v1/desk/changes',
        '/v1/desk/hedging/{asset}',
        '/v1/desk/pairs/{pair}',
        '/v1/desk/pairs/{pair}/pause',
        '/v1/desk/pairs/{pair}/resume',
        '/v1/desk/pause',
        '/v1/desk/resume',
        '/v1/dev/airdrop',
        '/v1/dev/rpc',
        '/v1/health',
        '/v1/health/ready',
        '/v1/inventory',
        '/v1/pairs',
        '/v1/prices',
        '/v1/quotes/{quote_id}',
        '/v1/quotes/{quote_id}/wallet-settlement',
        '/v1/rfq',
        '/v1/runtime',
        '/v1/runtime/events',
        '/v1/runtime/events/stream',
        '/v1/runtime/ledger',
        '/v1/runtime/machines/trade',
        '/v1/runtime/readiness',
        '/v1/runtime/runs',
        '/v1/runtime/trades',
        '/v1/trades',
        '/v1/trades/{trade_id}',
        '/v1/trades/{trade_id}/abandon',
        '/v1/trades/{trade_id}/events',
        '/v1/trades/{trade_id}/lock',
        '/v1/trades/{trade_id}/redeem',
        '/v1/trades/{trade_id}/refund',
        '/v1/trades/{trade_id}/resume',
        '/v1/trades/{trade_id}/stream',
        '/v1/viz',
      ].sort(),
    );
  });

  test('the docs UI is served from the process', async () => {
    const page = await service.app.inject('/v1/docs/');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    const asset = await service.app.inject('/v1/docs/static/swagger-ui-bundle.js');
    expect(asset.statusCode).toBe(200);
  });

  const rfqBody = (amount: string) => ({
    input_asset: 'SOL',
    output_asset: 'USDC',
    amount,
    taker_wallet: WALLET,
  });
  const cases: [string, string, string, () => Record<string, unknown>, number][] = [
    ['/v1/health', 'get', '/v1/health', () => ({}), 200],
    ['/v1/health/ready', 'get', '/v1/health/ready', () => ({}), 200],
    ['/v1/assets', 'get', '/v1/assets', () => ({}), 200],
    ['/v1/assets/{asset}', 'get', '/v1/assets/sol', () => ({}), 200],
    ['/v1/assets/{asset}', 'get', '/v1/assets/doge', () => ({}), 404],
    ['/v1/pairs', 'get', '/v1/pairs', () => ({}), 200],
    ['/v1/rfq', 'post', '/v1/rfq', () => ({ payload: rfqBody('1') }), 200],
    ['/v1/rfq', 'post', '/v1/rfq', () => ({ payload: rfqBody('99999') }), 200],
    ['/v1/rfq', 'post', '/v1/rfq', () => ({ payload: { amount: 'x' } }), 400],
    ['/v1/rfq', 'post', '/v1/rfq', () => ({ payload: { pad: 'x'.repeat(4000) } }), 413],
    ['/v1/rfq', 'post', '/v1/rfq', () => ({ payload: 'a', headers: { 'content-type': 'text/plain' } }), 415],
    ['/v1/quotes/{quote_id}', 'get', '/v1/quotes/00000000-0000-4000-8000-000000000000', () => ({}), 404],
  ];

  test.each(cases)('real responses match it: %s %s → %i', async (path, method, url, extra, status) => {
    const res = await service.app.inject({ method: method.toUpperCase() as 'GET', url, ...extra() });
    expect(res.statusCode).toBe(status);
    const validate = ajv.compile(responseSchema(path, method, status));
    expect(validate(res.json()), JSON.stringify(validate.errors)).toBe(true);
  });

  test('a quote looked up by id matches it', async () => {
    const quote = (
      await service.app.inject({ method: 'POST', url: '/v1/rfq', payload: rfqBody('2') })
    ).json();
    const res = await service.app.inject(`/v1/quotes/${quote.quote_id}`);
    const validate = ajv.compile(responseSchema('/v1/quotes/{quote_id}', 'get', 200));
    expect(validate(res.json()), JSON.stringify(validate.errors)).toBe(true);
  });
});
