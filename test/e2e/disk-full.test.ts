// A full disk loses nothing, on each store. The service runs as the built bundle on `chain.kind = "rpc"`
// against a loopback chain of the test's own; what it writes lives on a small tmpfs the test mounts — SQLite's
// DATA_DIR, or the data directory of a throwaway PostgreSQL — and so does its log (stdout redirected to a file
// there). Mid-run the test fills that filesystem to the last byte:
// - every command answers 503 storage_full with the envelope and Retry-After, never another 5xx;
// - readiness answers 503 naming the store's reason, the metric says so;
// - a trade whose taker redeemed on chain meanwhile waits (no maker transaction whose intent is not durable);
// then frees it: with no restart the service answers ready again, new RFQs succeed, a trade settled before the
// disk filled completes, and the maker redeems the trade locked before it filled. Finally a kill -9 and a new
// process on the same store show every acknowledged quote and trade, whole.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, onTestFailed, test } from 'vitest';
import { SERVICE_BUNDLE } from '../../scripts/build-service.ts';
import { ChainAccess, redeemMakerEscrow } from '../../scripts/campaign/wallet.ts';
import { clusterConfigDocument } from '../../scripts/cluster/config.ts';
import { freePort } from '../../scripts/net.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../scripts/postgres/throwaway.ts';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import { DEFAULT_CONFIG_PATH, resolveConfig } from '../../src/config/index.ts';
import {
  type ChainServer,
  configGenesis,
  loopbackDevChain,
  startChainServer,
} from '../../src/dev-chain/index.ts';
import { POSTGRES_TESTS } from '../support/postgres.ts';
import { mountedSmallFs, type SmallFs, smallFsUnavailable } from '../support/small-fs.ts';

type Json = ReturnType<typeof JSON.parse>;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `check` to answer a value (not undefined), asking again every `everyMs`, for up to `ms`. */
async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  ms = 90_000,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await sleep(everyMs);
  }
}

const UNMOUNTABLE = smallFsUnavailable();

/** The service's answer to a request: status, headers, body. */
interface Answer {
  status: number;
  retryAfter: string | null;
  json: Json;
}

class World {
  readonly taker = Keypair.generate();
  child: ChildProcess | null = null;
  url = '';
  private logFd: number | null = null;

  constructor(
    readonly store: 'sqlite' | 'postgres',
    readonly fs: SmallFs,
    readonly chain: ChainServer,
    readonly direct: ChainAccess,
    readonly env: Record<string, string>,
    readonly port: number,
    readonly logPath: string,
    readonly postgres: ThrowawayPostgres | null,
  ) {}

  async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    let json: Json = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, retryAfter: res.headers.get('retry-after'), json };
  }

  /** The log as far as the disk took it, without the request lines: its last 6,000 characters, or all. */
  log(all = false): string {
    try {
      const lines = readFileSync(this.logPath, 'utf8').split('\n');
      // Not every request's two lines: what the service said of itself.
      const own = lines.filter((line) => !/"(incoming request|request completed)"/.test(line));
      return all ? own.join('\n') : own.join('\n').slice(-6_000);
    } catch {
      return '(no log)';
    }
  }

  /** Starts the bundle, its stdout and stderr appended to a file on the small filesystem. */
  async start(): Promise<void> {
    this.logFd = openSync(this.logPath, 'a');
    const child = spawn(process.execPath, ['--enable-source-maps', SERVICE_BUNDLE], {
      cwd: ROOT,
      env: { ...process.env, ...this.env, PORT: String(this.port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', this.logFd, this.logFd],
    });
    this.child = child;
    this.url = `http://127.0.0.1:${this.port}`;
    await until(
      'the service to listen',
      async () => {
        if (child.exitCode !== null) throw new Error(`the service exited: ${this.log()}`);
        return (await this.call('GET', '/v1/health')).status === 200 ? true : undefined;
      },
      60_000,
      100,
    );
  }

  async kill9(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    this.child = null;
    if (this.logFd !== null) closeSync(this.logFd);
    this.logFd = null;
  }

  get alive(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  async airdrop(wallet: PublicKey): Promise<void> {
    const sol = resolveConfig(JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8'))).assets.list.find(
      (a) => a.symbol === 'SOL',
    );
    if (!sol) throw new Error('the default config lists SOL');
    await loopbackDevChain(this.chain.url).airdrop({
      wallet,
      mint: new PublicKey(sol.mint),
      amount: 5_000_000_000n,
    });
  }

  rfq(wallet: string, amount = '0.05'): Promise<Answer> {
    return this.call('POST', '/v1/rfq', {
      input_asset: 'SOL',
      output_asset: 'USDC',
      amount,
      taker_wallet: wallet,
    });
  }
}

/** A taker's trade: its secret, the settlement's answer, and its own key. */
interface TakerTrade {
  tradeId: string;
  preimage: Buffer;
  settlement: Json;
  lockBase64: string;
}

async function settle(world: World, quoteId: string): Promise<TakerTrade> {
  const preimage = randomBytes(32);
  const settled = await world.call('POST', `/v1/quotes/${quoteId}/wallet-settlement`, {
    taker_wallet: world.taker.publicKey.toBase58(),
    secret_hash: createHash('sha256').update(preimage).digest('hex'),
  });
  expect(settled.status, JSON.stringify(settled.json)).toBe(201);
  const lock = Transaction.from(
    Buffer.from(settled.json.taker_lock_transaction.transaction_base64, 'base64'),
  );
  lock.partialSign(world.taker);
  return {
    tradeId: settled.json.trade_id,
    preimage,
    settlement: settled.json,
    lockBase64: lock.serialize().toString('base64'),
  };
}

function trade(world: World, tradeId: string): Promise<Json> {
  return world.call('GET', `/v1/trades/${tradeId}`).then((answer) => answer.json);
}

/** Every 5xx an answer may be while the disk is full: 503 storage_full with Retry-After, in the envelope. */
function expectStorageFull(answer: Answer, what: string): void {
  expect(answer.status, `${what}: ${JSON.stringify(answer.json)}`).toBe(503);
  expect(answer.json, what).toMatchObject({ error: { code: 'storage_full', message: expect.any(String) } });
  expect(answer.json.error.details, what).toEqual(expect.any(Array));
  expect(Number(answer.retryAfter), `${what}: Retry-After`).toBeGreaterThan(0);
}

async function metric(world: World, name: string): Promise<number> {
  const text = (await world.call('GET', '/metrics')).json as string;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  if (line === undefined) throw new Error(`no ${name} in /metrics`);
  return Number(line.split(' ').at(-1));
}

/** config/default.json on the loopback chain: static prices, no rate limit, windows a loaded machine fits in. */
function configDocument(chain: ChainServer, makerKeypairPath: string, store: 'sqlite' | 'postgres') {
  const base = JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')) as Record<string, unknown>;
  base.price_source = { kind: 'static' };
  (base.http as Record<string, unknown>).rate_limit_per_minute = 1_000_000;
  base.settlement = {
    lock_window_seconds: 600,
    taker_timelock_seconds: 1_800,
    maker_timelock_seconds: 300,
    safety_margin_seconds: 300,
    min_redeem_window_seconds: 120,
    landing_margin_seconds: 30,
  };
  return clusterConfigDocument(
    base,
    { url: chain.url, wsUrl: chain.wsUrl, programId: DEFAULT_HTLC_PROGRAM_ID.toBase58(), makerKeypairPath },
    // A lease a loaded machine's stalls do not outlast (this test is not about leases; a renewal the full disk
    // failed would show in the log, which the test reads).
    { leaseTtlSeconds: 30, ...(store === 'postgres' ? { secret: randomBytes(32).toString('hex') } : {}) },
  );
}

async function startWorld(store: 'sqlite' | 'postgres', fs: SmallFs, scratch: string): Promise<World> {
  const maker = Keypair.generate();
  const makerKeypairPath = join(scratch, 'maker-keypair.json');
  writeFileSync(makerKeypairPath, JSON.stringify(Array.from(maker.secretKey)), { mode: 0o600 });
  const chain = await startChainServer({
    dataDir: join(scratch, 'chain'),
    port: 0,
    programId: DEFAULT_HTLC_PROGRAM_ID,
    ...configGenesis(resolveConfig(JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8'))), maker),
  });
  const doc = configDocument(chain, makerKeypairPath, store);
  const configPath = join(scratch, 'config.json');
  writeFileSync(configPath, JSON.stringify(doc));
  const env: Record<string, string> = { CONFIG: configPath, DATA_DIR: join(fs.path, 'data') };
  let postgres: ThrowawayPostgres | null = null;
  if (store === 'postgres') {
    postgres = await startThrowawayPostgres({ dataDir: join(fs.path, 'pgdata') });
    env.DATABASE_URL = postgres.url;
  }
  const direct = new ChainAccess(chain.url, chain.wsUrl, DEFAULT_HTLC_PROGRAM_ID, 'direct');
  return new World(store, fs, chain, direct, env, await freePort(), join(fs.path, 'service.log'), postgres);
}

const STORES = [
  { store: 'sqlite' as const, megabytes: 48, available: true },
  { store: 'postgres' as const, megabytes: 160, available: POSTGRES_TESTS },
];

describe.each(STORES)('a full disk under the $store store', ({ store, megabytes, available }) => {
  const skip = UNMOUNTABLE ?? (available ? null : 'PG_TESTS=0');
  let fs: SmallFs | null = null;
  let world: World | null = null;
  let scratch = '';

  beforeAll(async () => {
    if (skip !== null) return;
    fs = mountedSmallFs(megabytes);
    scratch = mkdtempSync(join(tmpdir(), `rfq-disk-full-${store}-`));
    world = await startWorld(store, fs, scratch);
    await world.start();
  }, 180_000);

  afterAll(async () => {
    await world?.kill9().catch(() => undefined);
    await world?.postgres?.stop().catch(() => undefined);
    await world?.chain.close().catch(() => undefined);
    fs?.unmount();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }, 60_000);

  test.skipIf(skip !== null)(
    `loses nothing, answers 503 storage_full while full, and carries on once space is back, without a restart${
      skip === null ? '' : ` (skipped: ${skip})`
    }`,
    async () => {
      const w = world as World;
      const disk = fs as SmallFs;
      // The service's own account of what happened, when a step fails.
      onTestFailed(() => console.error(`the service's log (${w.alive ? 'alive' : 'exited'}):\n${w.log()}`));
      const wallet = w.taker.publicKey.toBase58();
      const { run_id: runId } = (await w.call('GET', '/v1/health')).json;
      await until('readiness', async () =>
        (await w.call('GET', '/v1/health/ready')).status === 200 ? true : undefined,
      );
      await w.airdrop(w.taker.publicKey);
      const sol = resolveConfig(JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8'))).assets.list;
      const usdcMint = new PublicKey((sol.find((a) => a.symbol === 'USDC') as { mint: string }).mint);

      // ── Before: acknowledged quotes, a trade locked on both sides, a trade settled and not locked. ──
      const acknowledgedQuotes: string[] = [];
      const quote = async () => {
        const answer = await w.rfq(wallet);
        expect(answer.status, JSON.stringify(answer.json)).toBe(200);
        expect(answer.json.status).toBe('accepted');
        acknowledgedQuotes.push(answer.json.quote_id);
        return answer.json.quote_id as string;
      };
      const locked = await settle(w, await quote());
      const lockAnswer = await w.call('POST', `/v1/trades/${locked.tradeId}/lock`, {
        transaction_base64: locked.lockBase64,
      });
      expect(lockAnswer.status, JSON.stringify(lockAnswer.json)).toBe(202);
      await until('the maker lock', async () =>
        (await trade(w, locked.tradeId)).next_action?.type === 'redeem' ? true : undefined,
      );
      const pending = await settle(w, await quote());
      for (let i = 0; i < 3; i++) await quote();

      // ── The disk fills up. ──
      if (w.postgres) {
        // The WAL gets a fresh segment first, as a server whose WAL has room left: relation files meet the
        // full disk (53100, an ERROR), the WAL does not (a PANIC: the server stops; docs/operations.md).
        const admin = new pg.Client({ connectionString: w.postgres.url });
        await admin.connect();
        await admin.query('CHECKPOINT');
        await admin.query('SELECT pg_switch_wal()');
        await admin.query('CHECKPOINT');
        await admin.end();
      }
      const filled = disk.fill();
      expect(filled).toBeGreaterThan(0);
      expect(disk.free()).toBe(0);

      // The taker of the locked trade redeems the maker escrow on chain, revealing its preimage: the maker
      // must redeem the taker escrow, and cannot write its intent yet.
      const redeemed = await w.direct.submit(
        w.taker,
        redeemMakerEscrow(
          DEFAULT_HTLC_PROGRAM_ID,
          w.taker.publicKey,
          new PublicKey(locked.settlement.maker_escrow),
          usdcMint,
          locked.preimage,
        ),
      );
      expect(redeemed).toMatchObject({ landed: true, err: null });

      // RFQs until the store refuses one: each is a quote (durable, acknowledged) or 503 storage_full, and
      // the service answers every one (any other answer fails at once).
      let refused: Answer | null = null;
      for (const deadline = Date.now() + 120_000; refused === null; ) {
        const answer = await w.rfq(wallet);
        if (answer.status === 200 && answer.json.status === 'accepted') {
          acknowledgedQuotes.push(answer.json.quote_id);
          expect(Date.now(), 'an RFQ refused for the full disk within two minutes').toBeLessThan(deadline);
          continue;
        }
        expectStorageFull(answer, 'an RFQ on a full disk');
        refused = answer;
      }
      expect(refused.json.error.code).toBe('storage_full');
      const ready = await until('readiness to say the store is full', async () => {
        const answer = await w.call('GET', '/v1/health/ready');
        return answer.status === 503 ? answer : undefined;
      });
      expect(ready.json.error.code).toBe('not_ready');
      expect(ready.json.error.details).toContain('store: storage_full');
      expect(await metric(w, 'rfq_maker_storage_full')).toBe(1);
      expect(await metric(w, 'rfq_maker_store_commit_failures_total{reason="storage_full"}')).toBeGreaterThan(
        0,
      );

      // Every command refused the same way, nothing started: a settlement start, the pending trade's lock
      // (not broadcast: its escrow stays absent), an RFQ.
      expectStorageFull(
        await w.call('POST', `/v1/quotes/${acknowledgedQuotes.at(-1)}/wallet-settlement`, {
          taker_wallet: wallet,
          secret_hash: createHash('sha256').update(randomBytes(32)).digest('hex'),
        }),
        'a settlement start on a full disk',
      );
      expectStorageFull(
        await w.call('POST', `/v1/trades/${pending.tradeId}/lock`, {
          transaction_base64: pending.lockBase64,
        }),
        'a lock on a full disk',
      );
      expect(await w.direct.escrow(new PublicKey(pending.settlement.taker_escrow))).toBeNull();
      expectStorageFull(await w.rfq(wallet), 'an RFQ on a full disk');
      // Reads still answer; the process never restarted, its log lines failing or not.
      expect((await w.call('GET', `/v1/trades/${pending.tradeId}`)).status).toBe(200);
      expect((await w.call('GET', '/v1/health')).json.run_id).toBe(runId);
      expect(w.alive, w.log()).toBe(true);

      // ── Space comes back. ──
      disk.unfill();
      // The trade locked before the disk filled: the maker redeems the taker escrow, its intent stored first —
      // at once, while readiness still holds (it waits for writes to have succeeded for a while).
      const done = await until(
        'the maker redeem of the trade locked before the disk filled',
        async () => {
          const t = await trade(w, locked.tradeId);
          return t.settlement_status === 'redeemed' ? t : undefined;
        },
        180_000,
        500,
      );
      const kinds = done.tx_signature_kinds.map((k: { kind: string }) => k.kind);
      expect(kinds).toContain('maker_redeem');
      const takerEscrow = await w.direct.escrow(new PublicKey(locked.settlement.taker_escrow));
      expect(takerEscrow === null || takerEscrow.status !== 'locked').toBe(true);
      await until(
        'readiness once space is back',
        async () => ((await w.call('GET', '/v1/health/ready')).status === 200 ? true : undefined),
        90_000,
        500,
      );
      expect(await metric(w, 'rfq_maker_storage_full')).toBe(0);
      await quote();

      // The trade settled before the disk filled completes: lock, maker lock, redeem.
      const lockedLater = await w.call('POST', `/v1/trades/${pending.tradeId}/lock`, {
        transaction_base64: pending.lockBase64,
      });
      expect(lockedLater.status, JSON.stringify(lockedLater.json)).toBe(202);
      await until('the second maker lock', async () =>
        (await trade(w, pending.tradeId)).next_action?.type === 'redeem' ? true : undefined,
      );
      const redeemAnswer = await w.call('POST', `/v1/trades/${pending.tradeId}/redeem`, {
        preimage: pending.preimage.toString('hex'),
      });
      expect(redeemAnswer.status, JSON.stringify(redeemAnswer.json)).toBe(202);
      await until(
        'the second trade redeemed',
        async () => ((await trade(w, pending.tradeId)).settlement_status === 'redeemed' ? true : undefined),
        180_000,
        500,
      );
      // One process all along, whose lease renewals the full disk never failed.
      expect((await w.call('GET', '/v1/health')).json.run_id).toBe(runId);
      expect(w.alive, w.log()).toBe(true);
      expect(w.log(true)).not.toContain('could not renew the lease');

      console.log(
        readFileSync(w.logPath, 'utf8')
          .split('\n')
          .filter((l) => !l.includes('"incoming request"') && !l.includes('request completed'))
          .map((l) => l.slice(0, 400))
          .join('\n'),
        acknowledgedQuotes.length,
      );
      // ── Nothing acknowledged was lost, nothing half-written: a new process on the same store sees it all. ──
      await w.kill9();
      await w.start();
      for (const quoteId of acknowledgedQuotes) {
        const answer = await w.call('GET', `/v1/quotes/${quoteId}`);
        expect(answer.status, `quote ${quoteId}`).toBe(200);
      }
      for (const t of [locked, pending]) {
        const after = await trade(w, t.tradeId);
        expect(after.settlement_status).toBe('redeemed');
        expect(after.ledger_summary.balanced, JSON.stringify(after.ledger_summary)).toBe(true);
        // Every maker transaction of the trade was stored as an intent before it was sent.
        const events = (await w.call('GET', `/v1/trades/${t.tradeId}/events`)).json.events as {
          type: string;
          payload: { signature?: string; kind?: string };
        }[];
        const intents = new Set(events.filter((e) => e.type === 'TX_INTENT').map((e) => e.payload.signature));
        for (const { kind, signature } of after.tx_signature_kinds as { kind: string; signature: string }[]) {
          if (kind.startsWith('maker_')) expect(intents.has(signature), `${kind} ${signature}`).toBe(true);
        }
      }
    },
    600_000,
  );
});
