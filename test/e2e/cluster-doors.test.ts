// The doors several instances opened, tried from outside against two built instances over PostgreSQL, as an
// attacker would: a request line in absolute form must not make an instance forward anywhere but to the
// trade's owner; an owner's oversized answer must not take the forwarding instance's memory (and with it its
// lease); and forwarded commands must count against their own client at the owner, not share the
// forwarding instance's bucket.

import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { Keypair, PublicKey } from '@solana/web3.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Instance, type Json, sleep, startCluster, type TestCluster } from '../support/cluster.ts';
import { POSTGRES_TESTS } from '../support/postgres.ts';
import { newSecret } from '../support/taker.ts';

const LEASE_SECONDS = 3;
const RATE_LIMIT = 60;

let cluster: TestCluster;
let owner: Instance;
let other: Instance;
let tradeId: string;

/** A client's request, from the address X-Forwarded-For names (the instances trust loopback proxies). */
async function call(
  instance: Instance,
  method: 'GET' | 'POST',
  path: string,
  client: string,
  body?: unknown,
): Promise<{ status: number; json: Json; servedBy: string | null }> {
  const res = await fetch(`${instance.url}${path}`, {
    method,
    headers: {
      'x-forwarded-for': client,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  return {
    status: res.status,
    json: text === '' ? null : JSON.parse(text),
    servedBy: res.headers.get('x-rfq-served-by'),
  };
}

/** Raw bytes to an instance; answers the status and body of what came back. */
function rawRequest(instance: Instance, head: string): Promise<{ status: number; body: string }> {
  const url = new URL(instance.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(head));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('end', () =>
      resolve({ status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) }),
    );
    socket.on('error', reject);
  });
}

/** A listener that records every connection and request that reaches it. */
async function listener(
  answer: (req: IncomingMessage, res: import('node:http').ServerResponse) => void = (_req, res) =>
    res.end('{}'),
): Promise<{ server: Server; url: string; connections: number; requests: string[] }> {
  const seen = { connections: 0, requests: [] as string[] };
  const server = createServer((req, res) => {
    seen.requests.push(`${req.method} ${req.url}`);
    answer(req, res);
  });
  server.on('connection', () => {
    seen.connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(seen, { server, url });
}

/** Peak resident memory of a process (Linux /proc), in bytes. */
function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

describe.skipIf(!POSTGRES_TESTS)('the doors between instances', () => {
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 2,
      leaseTtlSeconds: LEASE_SECONDS,
      configure: (doc) => {
        // Behind a proxy on loopback: X-Forwarded-For names each client, whose own bucket the limit is.
        doc.http.trust_proxy = ['loopback'];
        doc.http.rate_limit_per_minute = RATE_LIMIT;
      },
    });
    [owner, other] = cluster.instances as [Instance, Instance];
    // A trade created at (and so owned by) the first instance.
    const wallet = Keypair.generate();
    const sol = cluster.config.assets.list.find((a) => a.symbol === 'SOL');
    if (!sol) throw new Error('no SOL asset');
    await cluster.dev.airdrop({
      wallet: wallet.publicKey,
      mint: new PublicKey(sol.mint),
      amount: 1_000_000_000n,
    });
    const setup = '10.9.9.9';
    const quote = await call(owner, 'POST', '/v1/rfq', setup, {
      input_asset: 'SOL',
      output_asset: 'USDC',
      amount: '0.05',
      taker_wallet: wallet.publicKey.toBase58(),
    });
    expect(quote.json.status, JSON.stringify(quote.json)).toBe('accepted');
    const settled = await call(owner, 'POST', `/v1/quotes/${quote.json.quote_id}/wallet-settlement`, setup, {
      taker_wallet: wallet.publicKey.toBase58(),
      secret_hash: newSecret().secretHash,
    });
    expect(settled.status, JSON.stringify(settled.json)).toBe(201);
    tradeId = settled.json.trade_id;
  }, 120_000);
  afterAll(async () => cluster?.close());

  test('a request line in absolute form is refused: no request reaches the host it names', async () => {
    const attacker = await listener();
    try {
      // In origin form the command is forwarded to the owner, as ever.
      const forwarded = await call(other, 'POST', `/v1/trades/${tradeId}/resume`, '10.1.0.1');
      expect(forwarded.status, JSON.stringify(forwarded.json)).toBe(202);
      expect(forwarded.servedBy).toBe(owner.runId);

      const target = new URL(other.url);
      for (const line of [
        `POST ${attacker.url}/v1/trades/${tradeId}/resume HTTP/1.1`,
        `POST //${new URL(attacker.url).host}/v1/trades/${tradeId}/resume HTTP/1.1`,
      ]) {
        const answer = await rawRequest(
          other,
          `${line}\r\nHost: ${target.host}\r\nAuthorization: Bearer stolen\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        );
        expect(answer.status, `${line}: ${answer.body}`).toBe(400);
        expect(JSON.parse(answer.body).error.code).toBe('validation_failed');
      }
      await sleep(500);
      expect(attacker.connections).toBe(0);
      expect(attacker.requests).toEqual([]);
    } finally {
      attacker.server.close();
    }
  });

  test('a forwarded command counts against its own client at the owner, not against the forwarding instance', async () => {
    // One client spends its whole budget on commands that the other instance forwards to the owner …
    const greedy = '10.2.0.1';
    let forwarded = 0;
    for (let i = 0; i < RATE_LIMIT; i++) {
      const answer = await call(other, 'POST', `/v1/trades/${tradeId}/abandon`, greedy, {
        secret_hash: '00'.repeat(32),
      });
      expect(answer.status, JSON.stringify(answer.json)).not.toBe(503);
      if (answer.servedBy === owner.runId) forwarded++;
      if (answer.status === 429) break;
    }
    expect(forwarded).toBeGreaterThan(RATE_LIMIT / 2);
    expect(
      (await call(other, 'POST', `/v1/trades/${tradeId}/abandon`, greedy, { secret_hash: '00'.repeat(32) }))
        .status,
    ).toBe(429);
    // … and every other client's forwarded commands still reach the owner and are answered by it.
    for (const client of ['10.2.0.2', '10.2.0.3', '2001:db8::7']) {
      const answer = await call(other, 'POST', `/v1/trades/${tradeId}/abandon`, client, {
        secret_hash: '00'.repeat(32),
      });
      expect(answer.servedBy, client).toBe(owner.runId);
      expect(answer.status, `${client}: ${JSON.stringify(answer.json)}`).toBe(403);
      expect(answer.json.error.code).toBe('secret_hash_mismatch');
    }
  }, 60_000);

  test('an oversized answer from the owner’s address is not held in memory, and the forwarding instance keeps its lease', async () => {
    const total = 200 * 1024 * 1024;
    let written = 0;
    const fake = await listener((req, res) => {
      req.resume();
      const declared = req.url?.includes('declared') ?? false;
      res.writeHead(202, {
        'content-type': 'application/json',
        ...(declared ? { 'content-length': String(total) } : {}),
      });
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      const pump = () => {
        while (written < total) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    // As an attacker with the database could: the owner's run now advertises the listener's address.
    const db = new pg.Client({ connectionString: cluster.databaseUrl });
    await db.connect();
    try {
      await db.query('UPDATE runs SET url = $1 WHERE run_id = $2', [fake.url, owner.runId]);
      const pid = other.child?.pid as number;
      const before = peakRss(pid);

      const res = await fetch(`${other.url}/v1/trades/${tradeId}/resume`, {
        method: 'POST',
        headers: { 'x-forwarded-for': '10.3.0.1' },
        signal: AbortSignal.timeout(30_000),
      });
      expect(res.status).toBe(202);
      let received = 0;
      await expect(
        (async () => {
          for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>)
            received += piece.length;
        })(),
      ).rejects.toThrow();
      // Cut off at the cap, the owner's connection closed long before its 200 MB were sent.
      expect(received).toBeLessThanOrEqual(1024 * 1024);
      await sleep(500);
      expect(written).toBeLessThan(total / 4);
      // An answer that announces its size over the cap is not read at all.
      const declared = await fetch(`${other.url}/v1/trades/${tradeId}/resume?declared=1`, {
        method: 'POST',
        headers: { 'x-forwarded-for': '10.3.0.2' },
      });
      expect(declared.status).toBe(503);
      expect(((await declared.json()) as Json).error.code).toBe('runtime_unavailable');

      // Memory stayed bounded (an unbounded forward once held ~1.4 GB more for a 300 MB answer) …
      expect(peakRss(pid) - before).toBeLessThan(64 * 1024 * 1024);
      // … and the lease held: after more than a lease, the same run is alive and live.
      await sleep(LEASE_SECONDS * 1000 + 500);
      expect(other.child?.isRunning()).toBe(true);
      const runs = (await call(other, 'GET', '/v1/runtime/runs', '127.0.0.1')).json.runs as Json[];
      expect(runs.find((run) => run.run_id === other.runId)?.live).toBe(true);
    } finally {
      await db.query('UPDATE runs SET url = $1 WHERE run_id = $2', [owner.url, owner.runId]);
      await db.end();
      fake.server.closeAllConnections();
      fake.server.close();
    }
  }, 60_000);
});
