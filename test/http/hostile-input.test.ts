// Every route the OpenAPI document lists, public and operator, asked with hostile values in each path and
// query parameter (and the stream routes' Last-Event-ID): integers past int64 and past any float, negative
// ones, NUL and other control characters, bytes that are not UTF-8, very long strings, forged cursors. A
// client's bad input is its own error: never a 5xx, always the error envelope. Runs on SQLite, and on
// PostgreSQL under TEST_STORE=postgres (npm run test:postgres), whose types refuse what SQLite stores.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listenOnLoopback, startService, TEST_STORE, type TestService } from '../support/service.ts';

const TOKEN = 'hostile-input-operator-token-0123456789';
const UUID = '0190f2a0-0000-7000-8000-000000000001';

/** A base64url cursor of the shape this service issues, carrying what it must never pass to the store. */
const forgedCursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Raw URL fragments (already escaped where a URL needs it): sent byte for byte. */
const HOSTILE = [
  '9223372036854775807',
  '9223372036854775808',
  '99999999999999999999999999999999',
  '1e300',
  '1e308',
  '-1',
  '-9223372036854775809',
  '1.5',
  'NaN',
  'Infinity',
  '0x10',
  '%20',
  '',
  '%00',
  'a%00b',
  '%0d%0aSet-Cookie:%20x=1',
  '%FF%FE',
  '%C0%80',
  '%E2%28%A1',
  '%ED%A0%80',
  '%25',
  '..%2F..%2Fetc%2Fpasswd',
  '%27%20OR%201%3D1%20--',
  'x'.repeat(8_000),
  forgedCursor(['2026-01-01T00:00:00Z\u0000', UUID]),
  forgedCursor(['\u0000', '\u0000']),
  forgedCursor(['2026-01-01T00:00:00Z', `${UUID}\u0000`]),
  forgedCursor([1, 2]),
  forgedCursor(['9999-99-99T99:99:99Z', UUID]),
  encodeURIComponent(forgedCursor(['2026-01-01T00:00:00Z', UUID]).repeat(20)),
];

const HOSTILE_HEADERS = ['9223372036854775808', '1e300', '-1', '99999999999999999999', '1'.repeat(200)];

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  streams: boolean;
}

let service: TestService;
let port: number;
let operations: Operation[];

beforeAll(async () => {
  service = await startService((doc) => {
    doc.http.operator_token = TOKEN;
    // Hundreds of requests from one address: the limit is not what this test measures.
    doc.http.rate_limit_per_minute = 1_000_000;
  });
  port = await listenOnLoopback(service);
  const document = (await service.app.inject('/v1/openapi.json')).json() as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: { in: string; name: string }[];
          responses?: Record<string, { content?: Record<string, unknown> }>;
        }
      >
    >;
  };
  operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      pathParams: (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
      queryParams: (op.parameters ?? [])
        .filter((p) => p.in === 'query' && p.name !== 'access_token')
        .map((p) => p.name),
      streams: Object.values(op.responses ?? {}).some((r) => r.content?.['text/event-stream'] !== undefined),
    })),
  );
}, 60_000);
afterAll(async () => service.dispose());

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** One request over a real socket, its target sent as written; a stream is closed once its head arrived. */
function send(method: string, target: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path: target,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        timeout: 15_000,
      },
      (res) => {
        const contentType = String(res.headers['content-type'] ?? '');
        if (contentType.startsWith('text/event-stream')) {
          resolve({ status: res.statusCode ?? 0, contentType, body: '' });
          res.destroy();
          return;
        }
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${target.slice(0, 120)}: no answer`)));
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

/** The path with every parameter a plausible value, one of them (if named) replaced by `value`. */
function fill(op: Operation, hostileParam?: string, value?: string): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    name === hostileParam ? (value as string) : name === 'asset' ? 'SOL' : UUID,
  );
}

function expectClientError(answer: Answer, what: string): void {
  expect(answer.status, `${what} → ${answer.status} ${answer.body.slice(0, 300)}`).toBeLessThan(500);
  if (answer.status >= 400) {
    expect(answer.contentType, what).toContain('application/json');
    expect(JSON.parse(answer.body).error?.code, what).toEqual(expect.any(String));
  }
}

describe(`hostile parameters on every documented route (${TEST_STORE})`, () => {
  test('the document lists the routes the test walks', () => {
    const routes = operations.map((op) => `${op.method} ${op.path}`);
    expect(routes).toEqual(
      expect.arrayContaining(['GET /v1/runtime/events', 'GET /v1/trades', 'POST /v1/rfq']),
    );
    expect(operations.filter((op) => op.queryParams.length > 0).length).toBeGreaterThan(5);
  });

  test('hostile path parameters are a 4xx with the envelope, never a 5xx', async () => {
    for (const op of operations) {
      for (const param of op.pathParams) {
        for (const value of HOSTILE) {
          if (value === '') continue; // an empty segment is another route
          const target = fill(op, param, value);
          expectClientError(await send(op.method, target), `${op.method} ${target.slice(0, 160)}`);
        }
      }
    }
  }, 120_000);

  test('hostile query parameters are a 4xx with the envelope, never a 5xx', async () => {
    for (const op of operations) {
      for (const param of op.queryParams) {
        for (const value of HOSTILE) {
          const target = `${fill(op)}?${param}=${value}`;
          expectClientError(await send(op.method, target), `${op.method} ${target.slice(0, 160)}`);
        }
      }
    }
  }, 120_000);

  test('hostile Last-Event-ID headers on the stream routes are a 4xx, never a 5xx', async () => {
    for (const op of operations.filter((o) => o.streams)) {
      for (const value of HOSTILE_HEADERS) {
        const answer = await send(op.method, fill(op), { 'last-event-id': value });
        expectClientError(answer, `${op.method} ${op.path} Last-Event-ID: ${value.slice(0, 40)}`);
      }
    }
  }, 60_000);

  test('the bad integers and cursors that reached the database are refused by the schema: 400', async () => {
    for (const target of [
      '/v1/runtime/events?after=1e300',
      '/v1/runtime/events?after=9223372036854775808',
      '/v1/runtime/events/stream?after=9223372036854775808',
      `/v1/trades/${UUID}/stream?after=1e300`,
      `/v1/trades?cursor=${forgedCursor(['2026-01-01T00:00:00Z\u0000', UUID])}`,
      `/v1/runtime/trades?cursor=${forgedCursor(['\u0000', '\u0000'])}`,
      '/v1/trades?cursor=a%00b',
    ]) {
      const answer = await send('GET', target);
      expect(answer.status, `${target} → ${answer.body}`).toBe(400);
      expect(JSON.parse(answer.body).error.code).toBe('validation_failed');
    }
  });
});
