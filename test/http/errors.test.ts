import { afterEach, describe, expect, test } from 'vitest';
import { startService, type TestService, WALLET } from '../support/service.ts';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

const expectEnvelope = (body: unknown, code: string) => {
  expect(body).toEqual({ error: { code, message: expect.any(String), details: expect.any(Array) } });
};

describe('every error is the interface envelope', () => {
  test('malformed JSON is a 400 invalid_json', async () => {
    service = await startService();
    for (const payload of ['{"input_asset":', '{bad}', 'null x', '']) {
      const res = await service.app.inject({
        method: 'POST',
        url: '/v1/rfq',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, payload).toBe(400);
      expectEnvelope(res.json(), 'invalid_json');
    }
  });

  test('schema failures list one details line per offending field', async () => {
    service = await startService();
    const res = await service.app.inject({
      method: 'POST',
      url: '/v1/rfq',
      payload: { input_asset: '', amount: 5, taker_wallet: 'x', expiry_seconds: 0 },
    });
    expect(res.statusCode).toBe(400);
    expectEnvelope(res.json(), 'validation_failed');
    const fields = res.json().error.details.map((line: string) => line.split(':')[0]);
    expect(new Set(fields)).toEqual(
      new Set([
        'body.input_asset',
        'body.output_asset',
        'body.amount',
        'body.taker_wallet',
        'body.expiry_seconds',
      ]),
    );
  });

  test('a body that is not an object is a 400 validation_failed', async () => {
    service = await startService();
    const res = await service.app.inject({
      method: 'POST',
      url: '/v1/rfq',
      payload: '[1,2]',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expectEnvelope(res.json(), 'validation_failed');
  });

  test('an unknown route is a 404 route_not_found', async () => {
    service = await startService();
    for (const [method, url] of [
      ['GET', '/v1/nope'],
      ['GET', '/rfq'],
      ['DELETE', '/v1/rfq'],
    ] as const) {
      const res = await service.app.inject({ method, url });
      expect(res.statusCode).toBe(404);
      expectEnvelope(res.json(), 'route_not_found');
    }
  });

  test('a wrong content type is a 415', async () => {
    service = await startService();
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await service.app.inject({
        method: 'POST',
        url: '/v1/rfq',
        headers: { 'content-type': contentType },
        payload: 'input_asset=SOL',
      });
      expect(res.statusCode, contentType).toBe(415);
      expectEnvelope(res.json(), 'unsupported_media_type');
    }
  });

  test('an oversized body is a 413', async () => {
    service = await startService((doc) => {
      doc.http.body_limit_bytes = 2048;
    });
    const res = await service.app.inject({
      method: 'POST',
      url: '/v1/rfq',
      payload: {
        input_asset: 'SOL',
        output_asset: 'USDC',
        amount: '1',
        taker_wallet: WALLET,
        pad: 'x'.repeat(4096),
      },
    });
    expect(res.statusCode).toBe(413);
    expectEnvelope(res.json(), 'payload_too_large');
  });

  test('past the per-IP rate limit requests are a 429 with retry-after', async () => {
    service = await startService((doc) => {
      doc.http.rate_limit_per_minute = 3;
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await service.app.inject('/v1/health')).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await service.app.inject('/v1/assets');
    expect(limited.statusCode).toBe(429);
    expectEnvelope(limited.json(), 'rate_limited');
    expect(limited.headers['retry-after']).toBeDefined();
    // Another client is not limited.
    expect((await service.app.inject({ url: '/v1/health', remoteAddress: '127.0.0.9' })).statusCode).toBe(
      200,
    );
  });

  test('responses carry a request id, a given one is echoed', async () => {
    service = await startService();
    const res = await service.app.inject({ url: '/v1/health', headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers['x-request-id']).toBe('abc-123');
    expect((await service.app.inject('/v1/health')).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('CORS for browser takers', () => {
  test('a preflight from an allowed origin is answered', async () => {
    service = await startService((doc) => {
      doc.http.cors_origins = ['https://taker.example'];
    });
    const res = await service.app.inject({
      method: 'OPTIONS',
      url: '/v1/rfq',
      headers: {
        origin: 'https://taker.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://taker.example');
    const other = await service.app.inject({
      url: '/v1/health',
      headers: { origin: 'https://evil.example' },
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
