// A cluster for failover drills, as production runs one: a fresh PostgreSQL database on the test run's
// throwaway server, the loopback chain (in this process, so the drill can read its ledger), and N instances
// of the built service as child processes, configured and spawned by `npm run cluster`'s own modules
// (scripts/cluster/). Instances are killed, frozen, thawed and restarted by their pid; a client sends each
// request to a random instance that answers, as a load balancer in front of them would.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { SERVICE_BUNDLE } from '../../scripts/build-service.ts';
import { clusterConfigDocument } from '../../scripts/cluster/config.ts';
import { type Child, startChild, startWatchdog } from '../../scripts/cluster/processes.ts';
import { DEFAULT_HTLC_PROGRAM_ID, HTLC_INSTRUCTION_TAGS } from '../../src/chain/htlc/index.ts';
import { type Config, resolveConfig } from '../../src/config/index.ts';
import {
  type ChainServer,
  configGenesis,
  loopbackDevChain,
  startChainServer,
} from '../../src/dev-chain/index.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { testDatabaseUrl } from './postgres.ts';
import { freePort } from './process.ts';
import { type ConfigDocument, defaultConfigDocument } from './service.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY_TIMEOUT_MS = 45_000;
/** Starts of an instance whose process lost its lease while starting, before the cluster gives up. */
const START_ATTEMPTS = 5;
/** The instances' shared secret: they sign the commands they forward to each other. */
export const CLUSTER_SECRET = randomBytes(32).toString('hex');

/** A parsed JSON body: drills read whatever fields they check. */
export type Json = ReturnType<typeof JSON.parse>;

export interface Instance {
  /** `instance 2`: how the drill's output names it. */
  readonly name: string;
  /** Set once at its first start (a port taken meanwhile is exchanged); a restart keeps it. */
  url: string;
  readonly dataDir: string;
  readonly logFile: string;
  /** The process of its current run; null before its first start. */
  child: Child | null;
  /** The run of its current process (GET /v1/health once ready). */
  runId: string;
  /** Whether requests may go to it: false once killed or frozen, until it is thawed or started again. */
  reachable: boolean;
}

export interface ClusterOptions {
  instances: number;
  leaseTtlSeconds: number;
  /** Changes to the instances' config document before it is written (after the cluster's own). */
  configure?: (doc: ConfigDocument) => void;
}

export interface TestCluster {
  readonly instances: readonly Instance[];
  readonly config: Config;
  readonly chain: ChainServer;
  readonly dev: ReturnType<typeof loopbackDevChain>;
  readonly maker: PublicKey;
  /** The cluster's database, for reads the drill makes beside the instances. */
  readonly store: Store;
  /** Its URL, for a drill that changes a row as an attacker with the database would. */
  readonly databaseUrl: string;
  /** Starts the instance (again: a new run on the same port) and waits until it is ready. */
  start(instance: Instance): Promise<void>;
  /** SIGKILL, and waits until the process is gone. */
  kill9(instance: Instance): Promise<void>;
  /** SIGSTOP: the process stays, holding its sockets, doing nothing. */
  freeze(instance: Instance): void;
  /** SIGCONT. */
  thaw(instance: Instance): void;
  /** The instances requests may go to now. */
  reachable(): Instance[];
  /** Stops everything and removes the temp folder. */
  close(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<TestCluster> {
  const root = mkdtempSync(join(tmpdir(), 'rfq-failover-'));
  // Should this process die without cleaning up, the instances and the folder go with it.
  const watchdog = startWatchdog(root, join(root, 'pids'));
  const instances: Instance[] = [];
  const track = () => watchdog.track(instances.flatMap((i) => (i.child?.isRunning() ? [i.child.pid] : [])));

  const doc = defaultConfigDocument();
  // Every taker's requests come from 127.0.0.1: the per-IP limit must not be what the drill measures.
  doc.http.rate_limit_per_minute = 1_000_000;
  const maker = Keypair.generate();
  const makerKeypairPath = join(root, 'maker-keypair.json');
  writeFileSync(makerKeypairPath, JSON.stringify(Array.from(maker.secretKey)), { mode: 0o600 });
  const chain = await startChainServer({
    dataDir: join(root, 'chain'),
    port: 0,
    programId: DEFAULT_HTLC_PROGRAM_ID,
    ...configGenesis(resolveConfig(doc), maker),
  });

  let store: Store | null = null;
  try {
    const clusterDoc = clusterConfigDocument(
      doc,
      {
        url: chain.url,
        wsUrl: chain.wsUrl,
        programId: DEFAULT_HTLC_PROGRAM_ID.toBase58(),
        makerKeypairPath,
      },
      { leaseTtlSeconds: options.leaseTtlSeconds, secret: CLUSTER_SECRET },
    ) as ConfigDocument;
    options.configure?.(clusterDoc);
    const configPath = join(root, 'config.json');
    writeFileSync(configPath, JSON.stringify(clusterDoc, null, 2));
    const config = resolveConfig(clusterDoc);
    const env = {
      DATABASE_URL: await testDatabaseUrl(),
      CONFIG: configPath,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    };

    for (let n = 1; n <= options.instances; n++) {
      const port = await freePort();
      instances.push({
        name: `instance ${n}`,
        url: `http://127.0.0.1:${port}`,
        dataDir: join(root, `instance-${n}`),
        logFile: join(root, `instance-${n}.log`),
        child: null,
        runId: '',
        reachable: false,
      });
    }

    const launch = async (instance: Instance) => {
      instance.child = startChild({
        name: `[${instance.name}]`,
        argv: [process.execPath, '--enable-source-maps', SERVICE_BUNDLE],
        env: {
          ...env,
          HOST: '127.0.0.1',
          PORT: new URL(instance.url).port,
          ADVERTISE_URL: instance.url,
          DATA_DIR: instance.dataDir,
        },
        cwd: ROOT,
        logFile: instance.logFile,
        echo: false,
      });
      track();
      void instance.child.exited.then(track);
      instance.runId = await untilReady(instance, instance.child);
      instance.reachable = true;
    };
    // As an operator's supervisor does: a process stalled past its lease while it started (a loaded runner)
    // exits by design ("lease lost", code 75) so that a new run takes over; it is started again, a new run.
    // Only at a start: once ready, an instance that loses its lease is what a drill is about.
    const start = async (instance: Instance) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await launch(instance);
        } catch (error) {
          const child = instance.child;
          const exit = child && !child.isRunning() ? await child.exited : null;
          // 75 (EX_TEMPFAIL) is src/main.ts's exit on a lost lease, and only that; its stderr may still be in flight.
          if (attempt >= START_ATTEMPTS || exit?.code !== 75) throw error;
          console.warn(`${instance.name} lost its lease while starting (attempt ${attempt}): started again`);
        }
      }
    };
    // The first start exchanges a port something else took since freePort saw it free (another test's
    // server, an outgoing connection): a test is not about which port an instance gets.
    const firstStart = async (instance: Instance) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await start(instance);
        } catch (error) {
          if (attempt >= 3 || !(error as Error).message.includes('EADDRINUSE')) throw error;
          instance.url = `http://127.0.0.1:${await freePort()}`;
        }
      }
    };
    // All at once, as a deployment starts them: the migrations queue on their advisory lock.
    await Promise.all(instances.map(firstStart));
    store = await openStore({ databaseUrl: env.DATABASE_URL });
    const opened = store;

    const signal = (instance: Instance, name: NodeJS.Signals) => {
      if (!instance.child?.isRunning()) throw new Error(`${instance.name} is not running`);
      process.kill(instance.child.pid, name);
    };
    return {
      instances,
      config,
      chain,
      dev: loopbackDevChain(chain.url),
      maker: maker.publicKey,
      store: opened,
      databaseUrl: env.DATABASE_URL,
      start,
      async kill9(instance) {
        instance.reachable = false;
        signal(instance, 'SIGKILL');
        await instance.child?.exited;
      },
      freeze(instance) {
        instance.reachable = false;
        signal(instance, 'SIGSTOP');
      },
      thaw(instance) {
        signal(instance, 'SIGCONT');
      },
      reachable: () => instances.filter((i) => i.reachable),
      async close() {
        // SIGKILL also ends a frozen process; nothing here needs a graceful stop.
        for (const instance of instances) {
          if (instance.child?.isRunning()) process.kill(instance.child.pid, 'SIGKILL');
        }
        await Promise.all(instances.map((i) => i.child?.exited));
        await opened.close();
        await chain.close();
        watchdog.disarm();
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const instance of instances) {
      if (instance.child?.isRunning()) process.kill(instance.child.pid, 'SIGKILL');
    }
    await store?.close();
    await chain.close();
    watchdog.disarm();
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/** Polls /v1/health/ready until 200; answers the run id /v1/health names. */
async function untilReady(instance: Instance, child: Child): Promise<string> {
  const until = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (!child.isRunning()) {
      throw new Error(`${instance.name} exited while starting:\n${child.output().slice(-3_000)}`);
    }
    try {
      const ready = await fetch(`${instance.url}/v1/health/ready`, { signal: AbortSignal.timeout(5_000) });
      await ready.arrayBuffer();
      if (ready.status === 200) {
        const health = await fetch(`${instance.url}/v1/health`);
        return ((await health.json()) as { run_id: string }).run_id;
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > until) {
      throw new Error(
        `${instance.name} not ready in ${READY_TIMEOUT_MS / 1000} s:\n${child.output().slice(-3_000)}`,
      );
    }
    await sleep(100);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it answers something other than undefined (or false); throws after timeoutMs. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

export interface Answer {
  status: number;
  json: Json;
  /** The instance that answered (it may have forwarded the command to the trade's owner). */
  instance: Instance;
  /** The owner's run when the answer was forwarded (x-rfq-served-by). */
  servedBy: string | null;
  /** Seconds to wait before retrying (a 503's Retry-After). */
  retryAfter: number | null;
}

/** What the takers met on their way: how often an instance did not answer, and the 503s they waited out. */
export interface ClientStats {
  unanswered: number;
  unavailable: number;
  forwarded: number;
}

/**
 * A taker's HTTP client in front of the cluster: each request to a random reachable instance; a request that
 * gets no answer (connection refused or reset, a frozen instance's timeout) is sent again to another, and a
 * 503 again after its Retry-After — what a client behind a load balancer does while an instance is replaced.
 */
export class ClusterClient {
  readonly stats: ClientStats = { unanswered: 0, unavailable: 0, forwarded: 0 };

  constructor(
    private readonly cluster: TestCluster,
    /** How long the whole call may keep retrying. */
    private readonly patienceMs = 30_000,
  ) {}

  /** One request to this instance, as it answers (no retry); throws if it does not answer in timeoutMs. */
  async to(
    instance: Instance,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    timeoutMs = 10_000,
  ): Promise<Answer> {
    const res = await fetch(`${instance.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    const servedBy = res.headers.get('x-rfq-served-by');
    if (servedBy !== null) this.stats.forwarded++;
    const retryAfter = res.headers.get('retry-after');
    return {
      status: res.status,
      json: text === '' ? null : JSON.parse(text),
      instance,
      servedBy,
      retryAfter: retryAfter === null ? null : Number(retryAfter),
    };
  }

  /**
   * The request at a random reachable instance, until an answer that is not a 503 (or one `again` asks to
   * retry, such as 409 lock_not_found) or until the client's patience runs out.
   */
  async call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    again: (answer: Answer) => boolean = () => false,
  ): Promise<Answer> {
    const deadline = Date.now() + this.patienceMs;
    let last = 'no instance reachable';
    for (;;) {
      const choices = this.cluster.reachable();
      const instance = choices[Math.floor(Math.random() * choices.length)];
      let waitMs = 100;
      if (instance !== undefined) {
        try {
          const answer = await this.to(instance, method, path, body, 5_000);
          if (answer.status === 503) {
            this.stats.unavailable++;
            waitMs = Math.min(answer.retryAfter ?? 1, 2) * 1000;
            last = `${instance.name}: 503 ${JSON.stringify(answer.json)}`;
          } else if (again(answer)) {
            waitMs = 250;
            last = `${instance.name}: ${answer.status} ${JSON.stringify(answer.json)}`;
          } else {
            return answer;
          }
        } catch (error) {
          this.stats.unanswered++;
          last = `${instance.name}: ${(error as Error).message}`;
        }
      }
      if (Date.now() + waitMs > deadline) {
        throw new Error(`${method} ${path}: no usable answer in ${this.patienceMs} ms (last: ${last})`);
      }
      await sleep(waitMs);
    }
  }

  /** Polls GET /v1/trades/{id} until `done` holds for it. */
  async trade(tradeId: string, done: (trade: Json) => boolean, timeoutMs = 30_000): Promise<Json> {
    let last: Json = null;
    try {
      return await until(
        `trade ${tradeId}`,
        async () => {
          last = (await this.call('GET', `/v1/trades/${tradeId}`)).json;
          return done(last) ? last : undefined;
        },
        timeoutMs,
        100,
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}; last seen: ${last?.substate ?? JSON.stringify(last)}`);
    }
  }
}

/**
 * Maker locks the chain holds for a trade: successful transactions touching its maker escrow that carry an
 * HTLC lock instruction (only a maker lock creates the maker escrow, so any lock there is one).
 */
export function makerLocksOnChain(chain: ChainServer, makerEscrow: string): number {
  let locks = 0;
  for (const record of chain.ledger.transactionsForAddress(makerEscrow, 1_000)) {
    if (record.err !== null) continue;
    const tx = Transaction.from(Buffer.from(record.bytes));
    locks += tx.instructions.filter(
      (ix) =>
        ix.programId.equals(DEFAULT_HTLC_PROGRAM_ID) &&
        ix.data[0] === HTLC_INSTRUCTION_TAGS.lock &&
        ix.keys.some((key) => key.pubkey.toBase58() === makerEscrow),
    ).length;
  }
  return locks;
}

/** The maker's balance of an asset's mint on the chain (raw units). */
export function makerBalance(cluster: TestCluster, symbol: string): bigint {
  const asset = cluster.config.assets.list.find((a) => a.symbol === symbol);
  if (!asset) throw new Error(`no asset ${symbol}`);
  return cluster.chain.ledger.tokenAmount(cluster.maker, new PublicKey(asset.mint));
}

/** Sends a wallet-signed transaction to the chain itself, as a wallet does without the service. */
export async function sendToChain(cluster: TestCluster, transactionBase64: string): Promise<string> {
  const res = await fetch(cluster.chain.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'sendTransaction',
      params: [transactionBase64, { encoding: 'base64' }],
    }),
  });
  const json = (await res.json()) as { result?: string; error?: { message: string } };
  if (json.error) throw new Error(`sendTransaction: ${json.error.message}`);
  return json.result as string;
}
