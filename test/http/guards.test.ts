// The doors a browser or a proxy could open onto the operator's routes, and request lines that would name
// another host: a configured operator token is required on every listener; without one, only a loopback
// client naming a loopback host gets in; no operator route answers a browser across origins, and public
// routes only the origins the config lists; a request line in absolute form is refused before any route.
import { connect } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { type ConfigDocument, listenOnLoopback, startService, type TestService } from '../support/service.ts';

const TOKEN = 'guards-operator-token-0123456789';
const OPERATOR_ROUTES = [
  '/v1/runtime',
  '/v1/runtime/ledger',
  '/v1/trades',
  '/metrics',
  '/v1/runtime/readiness',
];

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

const start = async (change: (doc: ConfigDocument) => void = () => {}) => {
  service = await startService(change);
  return service;
};

describe('the operator token', () => {
  test('a configured token is required on loopback too: none is a 401, the right one a 200', async () => {
    const { app } = await start((doc) => {
      doc.http.operator_token = TOKEN;
    });
    for (const url of OPERATOR_ROUTES) {
      const none = await app.inject({ url, remoteAddress: '127.0.0.1' });
      expect(none.statusCode, url).toBe(401);
      expect(none.json().error.code).toBe('unauthorized');
      // A token of another length is wrong the same way (compared as digests: no length to learn).
      for (const wrong of ['x', `${TOKEN}x`, TOKEN.slice(0, -1), 'y'.repeat(4096)]) {
        const res = await app.inject({ url, headers: { authorization: `Bearer ${wrong}` } });
        expect(res.statusCode, `${url} ${wrong.length}`).toBe(401);
      }
      expect((await app.inject({ url, headers: { authorization: `Bearer ${TOKEN}` } })).statusCode, url).toBe(
        200,
      );
    }
  });

  test('a configured token is required over a real loopback socket', async () => {
    const svc = await start((doc) => {
      doc.http.operator_token = TOKEN;
    });
    const port = await listenOnLoopback(svc);
    expect((await fetch(`http://127.0.0.1:${port}/v1/runtime/ledger`)).status).toBe(401);
    const ok = await fetch(`http://127.0.0.1:${port}/v1/runtime/ledger?access_token=${TOKEN}`);
    expect(ok.status).toBe(200);
  });

  test('without a token, operator routes answer only a loopback client that names a loopback host', async () => {
    const { app } = await start();
    for (const url of OPERATOR_ROUTES) {
      for (const host of ['localhost', 'localhost:8080', '127.0.0.1:8080', '[::1]:8080']) {
        expect((await app.inject({ url, headers: { host } })).statusCode, `${url} ${host}`).toBe(200);
      }
      // A page whose name was rebound to 127.0.0.1, or a reverse proxy on the same host passing its Host on.
      for (const host of [
        'evil.example',
        'evil.example:8080',
        'maker.example.com',
        '127.0.0.1.evil.example',
      ]) {
        const res = await app.inject({ url, headers: { host } });
        expect(res.statusCode, `${url} ${host}`).toBe(401);
        expect(res.json().error.code).toBe('unauthorized');
      }
      // A client that is not on loopback.
      expect((await app.inject({ url, remoteAddress: '203.0.113.5' })).statusCode, url).toBe(401);
    }
    // Public routes are public whatever the Host.
    expect((await app.inject({ url: '/v1/assets', headers: { host: 'evil.example' } })).statusCode).toBe(200);
  });
});

describe('CORS', () => {
  const preflight = (url: string, origin: string, method = 'GET') => ({
    method: 'OPTIONS' as const,
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization',
    },
  });

  test('by default no other origin may read anything: the swap page is served from the service itself', async () => {
    const { app } = await start();
    for (const url of ['/v1/assets', ...OPERATOR_ROUTES]) {
      const res = await app.inject({ url, headers: { origin: 'https://evil.example' } });
      expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
      const pre = await app.inject(preflight(url, 'https://evil.example'));
      expect(pre.headers['access-control-allow-origin'], url).toBeUndefined();
      expect(pre.headers['access-control-allow-methods'], url).toBeUndefined();
    }
  });

  test('operator routes never answer across origins, even with "*" written in the config', async () => {
    const { app } = await start((doc) => {
      doc.http.cors_origins = ['*'];
    });
    // Public routes: any origin, as configured.
    expect(
      (await app.inject({ url: '/v1/assets', headers: { origin: 'https://a.example' } })).headers[
        'access-control-allow-origin'
      ],
    ).toBe('*');
    expect((await app.inject(preflight('/v1/rfq', 'https://a.example', 'POST'))).statusCode).toBe(204);
    // Operator routes: no header on the answer, and the preflight is refused (404, no CORS headers).
    for (const url of [
      ...OPERATOR_ROUTES,
      '/v1/runtime/events/stream',
      `/v1/trades/${'0'.repeat(8)}/events`,
    ]) {
      if (!url.endsWith('/stream')) {
        const res = await app.inject({ url, headers: { origin: 'https://evil.example' } });
        expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
      }
      const pre = await app.inject(preflight(url, 'https://evil.example'));
      expect(pre.headers['access-control-allow-origin'], url).toBeUndefined();
      expect(pre.statusCode, url).toBe(404);
    }
    const airdrop = await app.inject(preflight('/v1/dev/airdrop', 'https://evil.example', 'POST'));
    expect(airdrop.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('an allow-list lets its origins call the public routes, and only those', async () => {
    const { app } = await start((doc) => {
      doc.http.cors_origins = ['https://taker.example'];
    });
    const allowed = await app.inject(preflight('/v1/rfq', 'https://taker.example', 'POST'));
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://taker.example');
    const other = await app.inject(preflight('/v1/rfq', 'https://evil.example', 'POST'));
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const operator = await app.inject({ url: '/v1/runtime', headers: { origin: 'https://taker.example' } });
    expect(operator.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('request lines', () => {
  /** Sends raw bytes; answers the status line and the body. */
  function raw(port: number, head: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(head));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('end', () => {
        const status = Number(text.split(' ')[1]);
        resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
      });
      socket.on('error', reject);
    });
  }

  test('a request line in absolute form is refused with 400 and the envelope, on every route', async () => {
    const svc = await start();
    const port = await listenOnLoopback(svc);
    for (const line of [
      'GET http://127.0.0.1:9/v1/health HTTP/1.1',
      'GET http://127.0.0.1:9/v1/assets HTTP/1.1',
      'POST http://127.0.0.1:9/v1/trades/0190f2a0-0000-7000-8000-000000000001/resume HTTP/1.1',
      'GET https://example.com/nowhere HTTP/1.1',
      'GET //127.0.0.1:9/v1/health HTTP/1.1',
    ]) {
      const res = await raw(
        port,
        `${line}\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      expect(res.status, line).toBe(400);
      expect(JSON.parse(res.body).error.code, line).toBe('validation_failed');
    }
    // Origin form is served as ever.
    const ok = await raw(port, 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(ok.status).toBe(200);
  });
});
