// Forwarding a command to the instance that owns its trade: relayed as asked, answered as the owner
// answered, never forwarded twice, and a silent owner is a 503 with Retry-After (its lease will lapse).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, expect, test } from 'vitest';
import {
  FORWARDED_BY,
  forwardTarget,
  forwardToOwner,
  OwnerWatch,
  TradeOwnedElsewhere,
} from '../../src/cluster/index.ts';
import { envelope } from '../../src/http/errors.ts';

const TRADE = '0190f2a0-0000-7000-8000-000000000001';
const OWNER_RUN = '0190f2a0-0000-4000-8000-0000000000aa';

let owner: Server | undefined;
let app: FastifyInstance | undefined;
let watch: OwnerWatch | undefined;
/** Each forward's outcome, as the service's metrics count them. */
let outcomes: string[] = [];
afterEach(async () => {
  watch?.stop();
  watch = undefined;
  await app?.close();
  await new Promise((resolve) => (owner ? owner.close(resolve) : resolve(undefined)));
  owner = app = undefined;
  outcomes = [];
});

/** The owner instance: records what reached it, answers 200 with a body of its own. */
async function startOwner(): Promise<{ url: string; seen: { req: IncomingMessage; body: string }[] }> {
  const seen: { req: IncomingMessage; body: string }[] = [];
  owner = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ req, body });
      res.writeHead(409, { 'content-type': 'application/json', 'retry-after': '3' });
      res.end('{"error":{"code":"not_abandonable","message":"from the owner"}}');
    });
  });
  await new Promise<void>((resolve) => owner?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(owner.address() as AddressInfo).port}`, seen };
}

/** An instance whose every command finds the trade owned at ownerUrl. */
async function nonOwner(
  ownerUrl: string | null,
  ownerGone?: (tradeId: string) => Promise<boolean>,
  maxAnswerBytes?: number,
) {
  app = Fastify();
  if (ownerGone) watch = new OwnerWatch({ takeIfOwnerGone: ownerGone, pollMs: 50 });
  const options = {
    runId: 'self-run',
    timeoutMs: 2_000,
    retryAfterSeconds: 10,
    unavailable: (message: string) => envelope('runtime_unavailable', message),
    ...(watch ? { owners: watch } : {}),
    ...(maxAnswerBytes !== undefined ? { maxAnswerBytes } : {}),
    onOutcome: (outcome: string) => outcomes.push(outcome),
  };
  app.setErrorHandler((error, request, reply) =>
    error instanceof TradeOwnedElsewhere
      ? forwardToOwner(error, request, reply, options)
      : reply.code(500).send(error),
  );
  app.post('/v1/trades/:id/abandon', async () => {
    throw new TradeOwnedElsewhere(TRADE, OWNER_RUN, ownerUrl);
  });
  return app;
}

test('a command reaching a non-owner is relayed to the owner, and the owner’s answer comes back as it was', async () => {
  const { url, seen } = await startOwner();
  const instance = await nonOwner(url);
  const reply = await instance.inject({
    method: 'POST',
    url: `/v1/trades/${TRADE}/abandon?x=1`,
    headers: { 'content-type': 'application/json', 'x-request-id': 'req-1', authorization: 'Bearer t' },
    payload: { secret_hash: 'ab'.repeat(32) },
  });
  expect(reply.statusCode).toBe(409);
  expect(reply.json()).toEqual({ error: { code: 'not_abandonable', message: 'from the owner' } });
  expect(reply.headers['retry-after']).toBe('3');
  expect(reply.headers['x-rfq-served-by']).toBe(OWNER_RUN);
  expect(outcomes).toEqual(['answered']);
  expect(seen).toHaveLength(1);
  const [{ req, body }] = seen as [{ req: IncomingMessage; body: string }];
  expect(req.method).toBe('POST');
  expect(req.url).toBe(`/v1/trades/${TRADE}/abandon?x=1`);
  expect(JSON.parse(body)).toEqual({ secret_hash: 'ab'.repeat(32) });
  expect(req.headers).toMatchObject({
    [FORWARDED_BY]: 'self-run',
    'x-request-id': 'req-1',
    authorization: 'Bearer t',
  });
});

test('a request already forwarded once is not forwarded again: 503 with Retry-After', async () => {
  const { url, seen } = await startOwner();
  const instance = await nonOwner(url);
  const reply = await instance.inject({
    method: 'POST',
    url: `/v1/trades/${TRADE}/abandon`,
    headers: { [FORWARDED_BY]: 'another-run' },
    payload: {},
  });
  expect(reply.statusCode).toBe(503);
  expect(reply.json().error.code).toBe('runtime_unavailable');
  expect(reply.headers['retry-after']).toBe('10');
  expect(seen).toHaveLength(0);
  expect(outcomes).toEqual(['refused']);
});

test('an owner that does not answer, or has no address, is a 503 the caller can retry', async () => {
  const { url } = await startOwner();
  await new Promise((resolve) => owner?.close(resolve));
  owner = undefined;
  for (const ownerUrl of [url, null]) {
    const instance = await nonOwner(ownerUrl);
    const reply = await instance.inject({ method: 'POST', url: `/v1/trades/${TRADE}/abandon`, payload: {} });
    expect(reply.statusCode).toBe(503);
    expect(reply.json().error.message).toContain(OWNER_RUN);
    expect(reply.headers['retry-after']).toBe('10');
    await instance.close();
    app = undefined;
  }
  expect(outcomes).toEqual(['unreachable', 'unreachable']);
});

test('an owner that holds the request without answering (frozen) is given up once its lease lapsed and this instance took the trade', async () => {
  // A frozen process: the connection is accepted, nothing ever answers.
  owner = createServer(() => {});
  await new Promise<void>((resolve) => owner?.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(owner.address() as AddressInfo).port}`;
  let asked = 0;
  const instance = await nonOwner(url, async () => ++asked >= 3);
  const started = Date.now();
  const reply = await instance.inject({ method: 'POST', url: `/v1/trades/${TRADE}/abandon`, payload: {} });
  expect(reply.statusCode).toBe(503);
  expect(reply.headers['retry-after']).toBe('1');
  expect(reply.json().error.message).toContain('took the trade over');
  // Three polls of 50 ms, not the 2 s timeout.
  expect(Date.now() - started).toBeLessThan(1_000);
  expect(outcomes).toEqual(['taken_over']);
  owner.closeAllConnections();
});

test('the target is the owner’s origin and the request’s own path: nothing the caller writes names another host', () => {
  const owner = 'http://10.0.0.2:8080/ignored/path?x=1';
  expect(forwardTarget(owner, `/v1/trades/${TRADE}/resume?a=b`)?.href).toBe(
    `http://10.0.0.2:8080/v1/trades/${TRADE}/resume?a=b`,
  );
  // Absolute, scheme-relative, authority and asterisk forms, and paths the URL parser would rewrite.
  for (const raw of [
    `http://127.0.0.1:9/v1/trades/${TRADE}/resume`,
    `//127.0.0.1:9/v1/trades/${TRADE}/resume`,
    '127.0.0.1:9',
    '*',
    `/v1/trades/${TRADE}/../../../metrics`,
    `/v1/trades/${TRADE}/%2e%2e/resume`,
    '/v1/trades/\\127.0.0.1/resume',
    undefined,
  ]) {
    expect(forwardTarget(owner, raw), String(raw)).toBeNull();
  }
  expect(forwardTarget('not a url', '/v1/health')).toBeNull();
});

test('an owner’s answer that announces more than the cap is a 503, and one that sends more is cut off', async () => {
  const sent: number[] = [];
  owner = createServer((req, res) => {
    req.resume();
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    if (req.url?.endsWith('declared')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(8 * 1024 * 1024) });
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
    }
    let written = 0;
    const pump = () => {
      while (written < 8 * 1024 * 1024) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('close', () => sent.push(written));
    pump();
  });
  await new Promise<void>((resolve) => owner?.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(owner.address() as AddressInfo).port}`;
  const instance = await nonOwner(url, undefined, 256 * 1024);
  instance.post('/v1/trades/:id/declared', async () => {
    throw new TradeOwnedElsewhere(TRADE, OWNER_RUN, url);
  });
  const declared = await instance.inject({
    method: 'POST',
    url: `/v1/trades/${TRADE}/declared`,
    payload: {},
  });
  expect(declared.statusCode).toBe(503);
  expect(declared.json().error.code).toBe('runtime_unavailable');
  expect(declared.json().error.message).toContain('more than 262144 bytes');

  await instance.listen({ port: 0, host: '127.0.0.1' });
  const port = (instance.server.address() as AddressInfo).port;
  const res = await fetch(`http://127.0.0.1:${port}/v1/trades/${TRADE}/abandon`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(res.status).toBe(200);
  // The status line had left: the body stops at the cap, with an error, not after 8 MiB.
  let received = 0;
  await expect(
    (async () => {
      for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) received += piece.length;
    })(),
  ).rejects.toThrow();
  expect(received).toBeLessThanOrEqual(256 * 1024);
  await new Promise((resolve) => setTimeout(resolve, 100));
  // The owner's connection was closed early as well: it did not get to write its 8 MiB.
  expect(Math.max(...sent)).toBeLessThan(8 * 1024 * 1024);
  owner.closeAllConnections();
});

test('forwards waiting on one owner share one poll: one question per owner a round, however many wait', async () => {
  owner = createServer(() => {});
  await new Promise<void>((resolve) => owner?.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(owner.address() as AddressInfo).port}`;
  const asked: string[] = [];
  const instance = await nonOwner(url, async (tradeId) => {
    asked.push(tradeId);
    return asked.length > 6;
  });
  const trades = Array.from(
    { length: 20 },
    (_, i) => `0190f2a0-0000-7000-8000-${String(i).padStart(12, '0')}`,
  );
  instance.post('/v1/many/:id', async (request) => {
    throw new TradeOwnedElsewhere((request.params as { id: string }).id, OWNER_RUN, url);
  });
  const replies = await Promise.all(
    trades.map((id) => instance.inject({ method: 'POST', url: `/v1/many/${id}`, payload: {} })),
  );
  // Six rounds of one question each while the owner lived, then every trade taken in the seventh.
  expect(replies.map((r) => r.statusCode)).toEqual(trades.map(() => 503));
  expect(outcomes).toEqual(trades.map(() => 'taken_over'));
  expect(asked.length).toBe(6 + trades.length);
  expect(new Set(asked.slice(6))).toEqual(new Set(trades));
  expect(watch?.size).toBe(0);
  owner.closeAllConnections();
});
