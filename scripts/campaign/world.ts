// One store's world: the loopback chain in this process (so the audit reads its ledger, not anyone's
// word), the fault proxy in front of it, and the service's instances on `chain.kind = "rpc"` pointed at the
// proxy, as child processes of the built bundle that are killed with SIGKILL and started again. An
// instance that exits on its own is started again a second later, as a supervisor would, and noted.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Keypair, PublicKey } from '@solana/web3.js';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import {
  type Config,
  DEFAULT_CONFIG_PATH,
  REAL_CLUSTER_FLOORS,
  resolveConfig,
} from '../../src/config/index.ts';
import { type FaultProxy, startFaultProxy } from '../../src/dev-chain/faults/index.ts';
import { type ChainServer, configGenesis, startChainServer } from '../../src/dev-chain/index.ts';
import { SERVICE_BUNDLE } from '../build-service.ts';
import { clusterConfigDocument } from '../cluster/config.ts';
import { type Child, startChild, startWatchdog } from '../cluster/processes.ts';
import { freePort } from '../net.ts';
import { createDatabase } from '../postgres/throwaway.ts';
import type { StoreMode } from './plan.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** A run's lease over PostgreSQL: a killed instance's trades are taken over by the other within ~7 s. */
const LEASE_SECONDS = 5;

export interface Instance {
  readonly name: string;
  readonly url: string;
  readonly dataDir: string;
  readonly logFile: string;
  child: Child | null;
  /** Answered GET /v1/health since its latest start. */
  live: boolean;
  /** Wall time of its latest start or kill. */
  changedAt: number;
  /** Killed by the campaign and not started again yet. */
  killed: boolean;
}

export interface WorldEvent {
  at: number;
  what: 'start' | 'kill' | 'exit' | 'outage_on' | 'outage_off' | 'warp';
  detail: string;
}

export interface World {
  readonly store: StoreMode;
  readonly root: string;
  readonly chain: ChainServer;
  readonly proxy: FaultProxy;
  readonly config: Config;
  readonly maker: PublicKey;
  readonly instances: readonly Instance[];
  /** The maker's holdings at genesis: raw units per mint, and lamports. */
  readonly genesis: { tokens: Map<string, bigint>; lamports: bigint };
  readonly events: WorldEvent[];
  /** Processes that ended without being killed by the campaign: name, exit code or signal, last output. */
  readonly exits: {
    instance: string;
    at: number;
    code: number | null;
    signal: string | null;
    tail: string;
  }[];
  note(what: WorldEvent['what'], detail: string): void;
  start(instance: Instance): Promise<void>;
  kill9(instance: Instance): Promise<void>;
  /** Instances requests may go to: running and answering. */
  reachable(): Instance[];
  close(keep: boolean): Promise<void>;
}

export interface WorldOptions {
  store: StoreMode;
  instances: number;
  seed: string;
  /** PostgreSQL's superuser URL (the campaign's throwaway server); required for the postgres store. */
  postgresAdminUrl?: string;
  logLevel: string;
}

/** GET /v1/health answers 200 within 2 s. */
async function answers(instance: Instance): Promise<boolean> {
  try {
    const res = await fetch(`${instance.url}/v1/health`, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** config/default.json at the real-cluster floors, static prices, the takers' one address unthrottled. */
function baseDocument(): Record<string, unknown> {
  const doc = JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')) as Record<string, unknown>;
  doc.price_source = { kind: 'static' };
  (doc.http as Record<string, unknown>).rate_limit_per_minute = 1_000_000;
  doc.settlement = {
    lock_window_seconds: REAL_CLUSTER_FLOORS.lockWindowSeconds,
    taker_timelock_seconds: REAL_CLUSTER_FLOORS.takerTimelockSeconds,
    maker_timelock_seconds: REAL_CLUSTER_FLOORS.makerTimelockSeconds,
    safety_margin_seconds: REAL_CLUSTER_FLOORS.safetyMarginSeconds,
    min_redeem_window_seconds: REAL_CLUSTER_FLOORS.minRedeemWindowSeconds,
    landing_margin_seconds: REAL_CLUSTER_FLOORS.landingMarginSeconds,
  };
  return doc;
}

export async function startWorld(options: WorldOptions): Promise<World> {
  const root = mkdtempSync(join(tmpdir(), `rfq-campaign-${options.store}-`));
  const watchdog = startWatchdog(root, join(root, 'pids'));
  const instances: Instance[] = [];
  const track = () => watchdog.track(instances.flatMap((i) => (i.child?.isRunning() ? [i.child.pid] : [])));
  const events: WorldEvent[] = [];
  const exits: World['exits'] = [];
  const note = (what: WorldEvent['what'], detail: string) => events.push({ at: Date.now(), what, detail });

  const maker = Keypair.generate();
  const makerKeypairPath = join(root, 'maker-keypair.json');
  writeFileSync(makerKeypairPath, JSON.stringify(Array.from(maker.secretKey)), { mode: 0o600 });
  const base = baseDocument();
  const chain = await startChainServer({
    dataDir: join(root, 'chain'),
    port: 0,
    programId: DEFAULT_HTLC_PROGRAM_ID,
    ...configGenesis(resolveConfig(base), maker),
  });
  let proxy: FaultProxy | null = null;
  let closing = false;
  try {
    proxy = await startFaultProxy({
      target: chain.url,
      wsTarget: chain.wsUrl,
      port: 0,
      // Faults come on once the instances are ready: a start under faults is part of the campaign, the
      // first one is its setup.
      profile: 'none',
      seed: `${options.seed}:${options.store}`,
    });
    const doc = clusterConfigDocument(
      base,
      {
        url: proxy.url,
        wsUrl: proxy.wsUrl,
        programId: DEFAULT_HTLC_PROGRAM_ID.toBase58(),
        makerKeypairPath,
      },
      // Several instances sign the commands they forward to each other: one secret for the campaign's.
      options.store === 'postgres'
        ? { leaseTtlSeconds: LEASE_SECONDS, secret: randomBytes(32).toString('hex') }
        : {},
    );
    const config = resolveConfig(doc);
    const configPath = join(root, 'config.json');
    writeFileSync(configPath, JSON.stringify(doc, null, 2));
    const env: Record<string, string> = { CONFIG: configPath, LOG_LEVEL: options.logLevel };
    if (options.store === 'postgres') {
      if (!options.postgresAdminUrl) throw new Error('the postgres store needs a PostgreSQL server');
      env.DATABASE_URL = await createDatabase(options.postgresAdminUrl);
    }

    const genesis = { tokens: new Map<string, bigint>(), lamports: chain.ledger.balance(maker.publicKey) };
    for (const asset of config.assets.list) {
      genesis.tokens.set(asset.mint, chain.ledger.tokenAmount(maker.publicKey, new PublicKey(asset.mint)));
    }

    for (let n = 1; n <= options.instances; n++) {
      const port = await freePort();
      instances.push({
        name: options.instances === 1 ? options.store : `${options.store} instance ${n}`,
        url: `http://127.0.0.1:${port}`,
        dataDir: join(root, `instance-${n}`),
        logFile: join(root, `instance-${n}.log`),
        child: null,
        live: false,
        changedAt: Date.now(),
        killed: false,
      });
    }

    const start = async (instance: Instance): Promise<void> => {
      instance.killed = false;
      instance.live = false;
      instance.changedAt = Date.now();
      const child = startChild({
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
      instance.child = child;
      note('start', instance.name);
      track();
      void child.exited.then((ended) => {
        track();
        if (instance.child !== child) return;
        instance.live = false;
        if (closing || instance.killed) return;
        // Ended by itself: noted, and started again as a supervisor would.
        exits.push({
          instance: instance.name,
          at: Date.now(),
          code: ended.code,
          signal: ended.signal,
          tail: child.output().slice(-2_000),
        });
        note('exit', `${instance.name} exited by itself (code ${ended.code}, signal ${ended.signal})`);
        setTimeout(() => {
          if (!closing && instance.child === child) void start(instance);
        }, 1_000).unref();
      });
      // Listening is enough: readiness is the service's own business, and what it does meanwhile is
      // part of what the campaign watches. The monitor below keeps `live` current afterwards.
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && child.isRunning() && instance.child === child && !instance.live) {
        instance.live = await answers(instance);
        if (!instance.live) await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    // Whether each running instance answers GET /v1/health, every half second: requests go to those.
    const monitor = setInterval(() => {
      for (const instance of instances) {
        if (!instance.child?.isRunning() || instance.killed) continue;
        const child = instance.child;
        void answers(instance).then((ok) => {
          if (instance.child === child && !instance.killed) instance.live = ok;
        });
      }
    }, 500);
    monitor.unref();

    const opened = proxy;
    return {
      store: options.store,
      root,
      chain,
      proxy: opened,
      config,
      maker: maker.publicKey,
      instances,
      genesis,
      events,
      exits,
      note,
      start,
      async kill9(instance) {
        const child = instance.child;
        if (!child?.isRunning()) return;
        instance.killed = true;
        instance.live = false;
        instance.changedAt = Date.now();
        process.kill(child.pid, 'SIGKILL');
        note('kill', instance.name);
        await child.exited;
      },
      reachable: () => instances.filter((i) => i.live && i.child?.isRunning()),
      async close(keep) {
        closing = true;
        clearInterval(monitor);
        for (const instance of instances) {
          if (instance.child?.isRunning()) process.kill(instance.child.pid, 'SIGKILL');
        }
        await Promise.all(instances.map((i) => i.child?.exited));
        await opened.close();
        await chain.close();
        watchdog.disarm();
        if (!keep) rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    closing = true;
    for (const instance of instances) {
      if (instance.child?.isRunning()) process.kill(instance.child.pid, 'SIGKILL');
    }
    await proxy?.close();
    await chain.close();
    watchdog.disarm();
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}
