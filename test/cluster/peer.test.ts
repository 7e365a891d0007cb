// Instances vouching for each other: a forward signed under the cluster secret has its client believed by the
// owner; anything else — no signature, another secret, another path, client or body, a stale time, a replay
// — is an ordinary client's request, whatever headers it carries.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, expect, test } from 'vitest';
import { ClusterPeers, FORWARDED_BY, PEER_WINDOW_MS } from '../../src/cluster/index.ts';
import { ApiError } from '../../src/http/errors.ts';

const SECRET = 'cluster-secret-0123456789-abcdefghij';
const PATH = '/v1/trades/0190f2a0-0000-7000-8000-000000000001/redeem';
const BODY = JSON.stringify({ preimage: 'ab'.repeat(32) });

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** An owner that answers with the client it believes: the vouched one, else the connection's. */
async function owner(secret: string | null, nowMs: () => number = Date.now) {
  const peers = new ClusterPeers(secret, nowMs);
  app = Fastify();
  peers.install(app, (message) => new ApiError('validation_failed', message));
  app.post('/v1/trades/:id/redeem', async (request) => ({
    client: peers.vouchedClient(request) ?? request.ip,
    body: request.body,
  }));
  await app.ready();
  return app;
}

const signer = (secret: string | null, nowMs: () => number = Date.now) => new ClusterPeers(secret, nowMs);

function signed(secret: string | null, change: { path?: string; body?: string; client?: string } = {}) {
  return signer(secret).headers({
    method: 'POST',
    pathAndQuery: change.path ?? PATH,
    body: Buffer.from(change.body ?? BODY),
    forwardedBy: '0190f2a0-0000-4000-8000-0000000000bb',
    client: change.client ?? '203.0.113.7',
  });
}

const send = (instance: FastifyInstance, headers: Record<string, string>, body = BODY, url = PATH) =>
  instance.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: body,
  });

test('a forward signed under the shared secret has its original client believed', async () => {
  const instance = await owner(SECRET);
  const res = await send(instance, signed(SECRET));
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({ client: '203.0.113.7', body: JSON.parse(BODY) });
});

test('without a valid signature the headers are an ordinary client’s: its own address counts', async () => {
  const instance = await owner(SECRET);
  const forged = signed(SECRET);
  const cases: Record<string, string>[] = [
    // The marker alone, or a client header alone.
    { [FORWARDED_BY]: 'some-run' },
    { [FORWARDED_BY]: 'some-run', 'x-rfq-peer-client': '198.51.100.1' },
    // Signed under another secret, or by an instance that has none.
    signed('another-cluster-secret-0123456789-xyz'),
    signed(null),
    // A valid signature whose client was rewritten.
    { ...forged, 'x-rfq-peer-client': '198.51.100.1' },
    // A signature that is not hex, or the wrong length.
    { ...forged, 'x-rfq-peer-signature': 'zz'.repeat(32) },
    { ...forged, 'x-rfq-peer-signature': 'ab' },
  ];
  for (const headers of cases) {
    const res = await send(instance, headers);
    expect(res.statusCode, JSON.stringify(headers)).toBe(200);
    expect(res.json().client, JSON.stringify(headers)).toBe('127.0.0.1');
  }
  // Signed for another path, replayed against this one.
  const elsewhere = signed(SECRET, { path: '/v1/trades/0190f2a0-0000-7000-8000-000000000002/redeem' });
  expect((await send(instance, elsewhere)).json().client).toBe('127.0.0.1');
});

test('an owner without the secret believes no one', async () => {
  const instance = await owner(null);
  expect((await send(instance, signed(SECRET))).json().client).toBe('127.0.0.1');
});

test('a replay of a signed forward is not believed, nor one signed outside the time window', async () => {
  const instance = await owner(SECRET);
  const headers = signed(SECRET);
  expect((await send(instance, headers)).json().client).toBe('203.0.113.7');
  expect((await send(instance, headers)).json().client).toBe('127.0.0.1');

  const now = Date.now();
  const late = signer(SECRET, () => now - PEER_WINDOW_MS - 1_000).headers({
    method: 'POST',
    pathAndQuery: PATH,
    body: Buffer.from(BODY),
    forwardedBy: 'run',
    client: '203.0.113.8',
  });
  expect((await send(instance, late)).json().client).toBe('127.0.0.1');
  const early = signer(SECRET, () => now + PEER_WINDOW_MS + 1_000).headers({
    method: 'POST',
    pathAndQuery: PATH,
    body: Buffer.from(BODY),
    forwardedBy: 'run',
    client: '203.0.113.9',
  });
  expect((await send(instance, early)).json().client).toBe('127.0.0.1');
});

test('a body other than the signed one is refused before any handler (400)', async () => {
  const instance = await owner(SECRET);
  const res = await send(instance, signed(SECRET), JSON.stringify({ preimage: 'cd'.repeat(32) }));
  expect(res.statusCode).toBe(400);
  expect(res.json().message).toBe('The forwarded body is not the one its peer signed.');
});
