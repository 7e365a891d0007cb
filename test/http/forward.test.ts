// Forwarding a command to the instance that owns its trade: relayed as asked, answered as the owner
// answered, never forwarded twice, and a silent owner is a 503 with Retry-After (its lease will lapse).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, expect, test } from 'vitest';
import { FORWARDED_BY, forwardToOwner } from '../../src/http/forward.ts';
import { TradeOwnedElsewhere } from '../../src/runtime/errors.ts';

const TRADE = '0190f2a0-0000-7000-8000-000000000001';
const OWNER_RUN = '0190f2a0-0000-4000-8000-0000000000aa';

let owner: Server | undefined;
let app: FastifyInstance | undefined;
/** Each forward's outcome, as the service's metrics count them. */
let outcomes: string[] = [];
afterEach(async () => {
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
async function nonOwner(ownerUrl: string | null, ownerGone?: () => Promise<boolean>) {
  app = Fastify();
  const options = {
    runId: 'self-run',
    timeoutMs: 2_000,
    retryAfterSeconds: 10,
    pollMs: 50,
    onOutcome: (outcome: string) => outcomes.push(outcome),
  };
  app.setErrorHandler((error, request, reply) =>
    error instanceof TradeOwnedElsewhere
      ? forwardToOwner(error, request, reply, { ...options, ...(ownerGone ? { ownerGone } : {}) })
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
