// The fault proxy in front of the loopback chain, observed the way the service meets it: through a real
// @solana/web3.js Connection (HTTP and its websocket). Each fault is switched on alone so the test sees
// exactly that fault, then the same seed must give the same decisions for the same requests.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection, Keypair, type PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePortPair } from '../../scripts/net.ts';
import { type FaultProfile, type FaultProxy, startFaultProxy } from '../../src/dev-chain/faults/index.ts';
import { type ChainServer, loopbackDevChain } from '../../src/dev-chain/index.ts';
import { tempDir, testChainServer } from '../chain/fixtures.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('not reached in time');
    await sleep(25);
  }
}

/** Whether the promise is still pending after ms. */
async function stillPending(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await sleep(ms);
  return !settled;
}

describe('the fault proxy in front of the loopback chain', () => {
  let dir: string;
  let server: ChainServer;
  let maker: Keypair;
  let direct: Connection;
  const proxies: FaultProxy[] = [];

  beforeAll(async () => {
    dir = tempDir('faults');
    maker = Keypair.generate();
    ({ server } = await testChainServer(dir, maker));
    direct = new Connection(server.url, 'confirmed');
  });
  afterEach(async () => {
    for (const proxy of proxies.splice(0)) await proxy.close();
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A proxy over `none` with only these knobs set, and a Connection through it (no 429 retries). */
  async function faulty(changes: Partial<FaultProfile> = {}, seed: string | number = 1) {
    const proxy = await startFaultProxy({
      target: server.url,
      wsTarget: server.wsUrl,
      port: 0,
      profile: 'none',
      changes,
      seed,
    });
    proxies.push(proxy);
    const connection = new Connection(proxy.url, {
      commitment: 'confirmed',
      wsEndpoint: proxy.wsUrl,
      disableRetryOnRateLimit: true,
    });
    return { proxy, connection };
  }

  let transfers = 0;
  /** A transfer of about `lamports` (plus a count, so no two are the same bytes) from the maker, signed. */
  async function transfer(to: PublicKey, lamports = 1_000_000) {
    const tx = new Transaction({ feePayer: maker.publicKey, ...(await direct.getLatestBlockhash()) }).add(
      SystemProgram.transfer({ fromPubkey: maker.publicKey, toPubkey: to, lamports: lamports + transfers++ }),
    );
    tx.sign(maker);
    return { bytes: tx.serialize(), signature: bs58.encode(tx.signature as Buffer) };
  }

  it('holds every request for the latency drawn, within the range', async () => {
    const { proxy, connection } = await faulty({ latencyRate: 1, latencyMinMs: 200, latencyMaxMs: 300 });
    const began = Date.now();
    await connection.getSlot();
    expect(Date.now() - began).toBeGreaterThanOrEqual(200);
    const [decision] = proxy.control.decisions();
    expect(decision).toMatchObject({ method: 'getSlot', faults: ['latency'] });
    expect(decision?.latencyMs).toBeGreaterThanOrEqual(200);
    expect(decision?.latencyMs).toBeLessThanOrEqual(300);
    expect(proxy.control.stats().faults.latency).toEqual({ getSlot: 1 });
  });

  it('answers a dropped send with the transaction’s own signature and never forwards it: it does not land', async () => {
    const { proxy, connection } = await faulty({ dropSendRate: 1 });
    const recipient = Keypair.generate().publicKey;
    const { bytes, signature } = await transfer(recipient, 5_000_000);
    const paid = Transaction.from(bytes).instructions[0]?.data.readBigUInt64LE(4);
    expect(await connection.sendRawTransaction(bytes)).toBe(signature);
    await sleep(1_000);
    expect(server.ledger.transaction(signature)).toBeNull();
    expect((await direct.getSignatureStatus(signature, { searchTransactionHistory: true })).value).toBeNull();
    expect(await direct.getBalance(recipient)).toBe(0);
    expect(proxy.control.stats().faults.dropped_send).toEqual({ sendTransaction: 1 });

    // The same bytes again once the proxy lets sends through: they land (nothing of the first one did).
    proxy.control.setProfile('none');
    expect(await connection.sendRawTransaction(bytes)).toBe(signature);
    expect(server.ledger.transaction(signature)).not.toBeNull();
    expect(BigInt(await direct.getBalance(recipient))).toBe(paid);
  });

  it('loses the reply of a forwarded request: the send fails for the client and lands anyway', async () => {
    const { proxy, connection } = await faulty({ lostReplyRate: 1 });
    const { bytes, signature } = await transfer(Keypair.generate().publicKey);
    await expect(connection.sendRawTransaction(bytes)).rejects.toThrow();
    expect(server.ledger.transaction(signature)).not.toBeNull();
    expect(proxy.control.stats().totals).toMatchObject({ lost_reply_reset: 1 });

    // Held instead: the client waits the hang out, then meets a reset.
    proxy.control.setProfile(null, {
      lostReplyHangShare: 1,
      lostReplyHangMinMs: 600,
      lostReplyHangMaxMs: 600,
    });
    const began = Date.now();
    await expect(connection.getSlot()).rejects.toThrow();
    expect(Date.now() - began).toBeGreaterThanOrEqual(550);
    expect(proxy.control.stats().totals).toMatchObject({ lost_reply_hang: 1 });
  });

  it('answers 429 with a Retry-After in range, 503, and resets connections', async () => {
    const { proxy, connection } = await faulty({
      http429Rate: 1,
      retryAfterMinSeconds: 2,
      retryAfterMaxSeconds: 4,
    });
    await expect(connection.getSlot()).rejects.toThrow(/429/);
    const raw = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }),
    });
    expect(raw.status).toBe(429);
    const retryAfter = Number(raw.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(2);
    expect(retryAfter).toBeLessThanOrEqual(4);

    proxy.control.setProfile('none', { http503Rate: 1 });
    await expect(connection.getSlot()).rejects.toThrow(/503/);
    proxy.control.setProfile('none', { resetRate: 1 });
    await expect(connection.getSlot()).rejects.toThrow();
    expect(proxy.control.stats().totals).toMatchObject({ http_429: 2, http_503: 1, reset: 1 });
    // Nothing of those reached the chain's HTTP side beyond what the test sent itself.
    proxy.control.setProfile('none');
    expect(await connection.getSlot()).toBeGreaterThan(0);
  });

  it('serves a read from the past: an account "not found" after it was created, and a lagging node’s error for minContextSlot', async () => {
    const { proxy, connection } = await faulty();
    const fresh = Keypair.generate().publicKey;
    expect(await connection.getAccountInfo(fresh)).toBeNull();
    await direct.sendRawTransaction((await transfer(fresh, 2_000_000)).bytes);
    // A few slots on (a slot is 400 ms), and the proxy sees the present through an answer.
    const createdAt = await direct.getSlot();
    await eventually(async () => ((await connection.getSlot()) >= createdAt + 2 ? true : undefined));

    proxy.control.setProfile(null, { staleReadRate: 1, staleMinSlots: 1, staleMaxSlots: 1_000_000 });
    expect(await direct.getAccountInfo(fresh)).not.toBeNull();
    expect(await connection.getAccountInfo(fresh)).toBeNull();
    await expect(connection.getAccountInfo(fresh, { minContextSlot: createdAt + 1 })).rejects.toThrow(
      /Minimum context slot/,
    );
    expect(proxy.control.stats().totals).toMatchObject({ stale_read: 1, stale_min_context_slot: 1 });
  });

  it('cuts websockets (web3.js resubscribes) and mutes them (kept open, nothing notified until the next cut)', async () => {
    const { proxy, connection } = await faulty();
    const watched = Keypair.generate().publicKey;
    const seen: number[] = [];
    const id = connection.onAccountChange(watched, (info) => seen.push(info.lamports), {
      commitment: 'confirmed',
    });
    /** Pays the watched account until a notification arrives (the subscription may still be on its way). */
    const notified = () => {
      const before = seen.length;
      return eventually(async () => {
        if (seen.length > before) return true;
        await direct.sendRawTransaction((await transfer(watched, 1_000_000)).bytes);
        await sleep(300);
        return seen.length > before ? true : undefined;
      });
    };
    try {
      await notified();
      expect(proxy.control.cutWebSockets()).toBe(1);
      await notified();
      let stats = proxy.control.stats();
      expect(stats.totals.ws_cut).toBe(1);
      expect(stats.websocket.connections).toBeGreaterThanOrEqual(2);

      proxy.control.setProfile(null, { wsMuteShare: 1 });
      expect(proxy.control.cutWebSockets()).toBe(0);
      const before = seen.length;
      await direct.sendRawTransaction((await transfer(watched, 1_000_000)).bytes);
      await sleep(1_500);
      expect(seen.length).toBe(before);
      expect(proxy.control.stats().websocket.open).toBe(1);

      // The next cut closes the muted socket; the client comes back and is told again.
      expect(proxy.control.cutWebSockets()).toBe(1);
      await notified();
      stats = proxy.control.stats();
      expect(stats.totals).toMatchObject({ ws_muted: 1, ws_cut: 2 });
    } finally {
      await connection.removeAccountChangeListener(id);
    }
  });

  it('loses single notifications while the socket and its subscription stay up', async () => {
    const { proxy, connection } = await faulty({ wsNotificationDropRate: 1 });
    const watched = Keypair.generate().publicKey;
    const seen: number[] = [];
    const id = connection.onAccountChange(watched, (info) => seen.push(info.lamports), {
      commitment: 'confirmed',
    });
    try {
      // Pays until the proxy has dropped a notification for the subscription (it may still be on its way).
      await eventually(async () => {
        await direct.sendRawTransaction((await transfer(watched, 1_000_000)).bytes);
        await sleep(300);
        return proxy.control.stats().totals.ws_notification_dropped ? true : undefined;
      });
      expect(seen).toEqual([]);
      expect(proxy.control.stats().websocket.open).toBe(1);
      expect(proxy.control.stats().totals.ws_cut).toBeUndefined();
    } finally {
      await connection.removeAccountChangeListener(id);
    }
  });

  it('refuses everything during an outage, answers its control meanwhile, and ends it on time', async () => {
    const { proxy, connection } = await faulty();
    expect(await connection.getSlot()).toBeGreaterThanOrEqual(0);
    proxy.control.outage({ seconds: 2 }, 'refuse');
    await expect(connection.getSlot()).rejects.toThrow();
    await expect(connection.getLatestBlockhash()).rejects.toThrow();
    const status = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'faults_outage' }),
    });
    expect(((await status.json()) as { result: unknown }).result).toMatchObject({
      active: true,
      mode: 'refuse',
      source: 'control',
    });
    const socket = new WebSocket(proxy.wsUrl);
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('close', resolve));

    await eventually(async () => (await connection.getSlot().catch(() => undefined)) ?? undefined, 10_000);
    const [outage] = proxy.control.stats().outages;
    expect(outage?.endedAt).not.toBeNull();
    const lasted = Date.parse(outage?.endedAt ?? '') - Date.parse(outage?.startedAt ?? '');
    expect(lasted).toBeGreaterThanOrEqual(1_900);
    expect(proxy.control.stats().totals.outage_refused).toBeGreaterThanOrEqual(2);
  });

  it('holds requests during a hanging outage until it is switched off over HTTP, and times outages from the profile', async () => {
    const { proxy, connection } = await faulty();
    const control = (params: unknown[]) =>
      fetch(proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'faults_outage', params }),
      });
    await control(['on', 'hang']);
    const waiting = connection.getSlot();
    expect(await stillPending(waiting, 700)).toBe(true);
    await control(['off']);
    await expect(waiting).rejects.toThrow();
    expect(proxy.control.stats().totals.outage_hung).toBe(1);

    proxy.control.setProfile(null, {
      outageEveryMinSeconds: 1,
      outageEveryMaxSeconds: 1,
      outageMinSeconds: 1,
      outageMaxSeconds: 1,
      outageMode: 'refuse',
    });
    const timed = await eventually(() =>
      proxy.control.stats().outages.find((o) => o.source === 'timed' && o.endedAt !== null),
    );
    expect(timed.mode).toBe('refuse');
  });

  it('warps the loopback chain’s clock through its control', async () => {
    const { proxy } = await faulty();
    const before = await loopbackDevChain(server.url).clock();
    const warped = await proxy.control.warp(600);
    expect(warped.unixTimestamp - before.unixTimestamp).toBeGreaterThanOrEqual(600);
    expect((await loopbackDevChain(server.url).clock()).unixTimestamp).toBeGreaterThanOrEqual(
      warped.unixTimestamp,
    );
    expect(proxy.control.stats()).toMatchObject({ warpedSeconds: 600, totals: { warp: 1 } });
  });

  it('decides the same for the same seed and the same requests, and otherwise for another seed', async () => {
    const { bytes } = await transfer(Keypair.generate().publicKey);
    const send = bytes.toString('base64');
    const requests = Array.from({ length: 150 }, (_, i) =>
      i % 3 === 0
        ? { method: 'sendTransaction', params: [send, { encoding: 'base64' }] }
        : i % 3 === 1
          ? { method: 'getBalance', params: [maker.publicKey.toBase58()] }
          : { method: 'getSlot', params: [] },
    );
    const harsh = {
      latencyMinMs: 0,
      latencyMaxMs: 2,
      lostReplyHangShare: 0,
      staleMinSlots: 0,
      staleMaxSlots: 1_000_000_000,
      wsCutEverySeconds: null,
      outageEveryMinSeconds: null,
      outageEveryMaxSeconds: null,
    };
    const run = async (seed: number) => {
      const proxy = await startFaultProxy({
        target: server.url,
        port: 0,
        profile: 'harsh',
        changes: harsh,
        seed,
      });
      proxies.push(proxy);
      for (const [id, request] of requests.entries()) {
        await fetch(proxy.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id, ...request }),
        })
          .then((res) => res.arrayBuffer())
          .catch(() => null);
      }
      return proxy.control.decisions();
    };
    const first = await run(7);
    const again = await run(7);
    const other = await run(8);
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
    const kinds = new Set(first.flatMap((d) => d.faults));
    for (const kind of ['latency', 'dropped_send', 'stale_read']) expect(kinds).toContain(kind);
  });

  it('npm run chain --faults puts the proxy on CHAIN_PORT and the chain behind it', async () => {
    const dataDir = tempDir('chain-faults');
    const port = await freePortPair();
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'src/dev-chain/main.ts'),
        '--faults',
        'harsh',
        '--faults-seed',
        '3',
        '--no-pyth',
      ],
      {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dataDir, CHAIN_PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += String(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        output += String(chunk);
      });
      let exited: number | null = null;
      child.once('exit', (code) => {
        exited = code ?? -1;
      });
      const line = await eventually(() => {
        const listening = output.split('\n').find((l) => l.includes('loopback chain listening'));
        if (listening === undefined && exited !== null) throw new Error(`chain exited ${exited}:\n${output}`);
        return listening;
      }, 40_000).catch((e: Error) => {
        throw new Error(`${e.message}\n${output}`);
      });
      const listening = JSON.parse(line) as Record<string, string>;
      expect(listening).toMatchObject({
        url: `http://127.0.0.1:${port}`,
        wsUrl: `ws://127.0.0.1:${port + 1}`,
        faults: 'harsh',
        faultsSeed: '3',
      });
      expect(listening.upstreamUrl).not.toBe(listening.url);
      const profile = await fetch(listening.url as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'faults_profile' }),
      });
      expect(((await profile.json()) as { result: { name: string } }).result.name).toBe('harsh');
      const upstream = new Connection(listening.upstreamUrl as string);
      expect(await upstream.getSlot()).toBeGreaterThanOrEqual(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
