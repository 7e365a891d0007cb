// `npm run cluster`: several instances of the service over one PostgreSQL and one chain, on this machine, as
// production runs them behind a load balancer. Starts a throwaway PostgreSQL (fsync on; the system's binaries,
// else the npm registry's), the loopback chain (`npm run chain`'s server, as a child process) and N instances
// of the built service (child processes on consecutive ports, one DATA_DIR each, one maker keypair for all and
// for the chain), waits until each is ready, and prints where everything is. Ctrl-C or SIGTERM stops the
// instances, then the chain, then PostgreSQL, and removes the temp folders. An instance that ends is reported
// (exit 75: it lost its lease) and, with --restart, started again as a new run.
//
//   npm run cluster -- [--instances 3] [--port 8080] [--chain-port 0] [--lease-ttl <s>] [--config <file>]
//                      [--restart] [--logs]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Keypair } from '@solana/web3.js';
import { DEFAULT_CONFIG_PATH, loadConfig } from '../src/config/index.ts';
import { buildService, SERVICE_BUNDLE } from './build-service.ts';
import { clusterConfigDocument } from './cluster/config.ts';
import { type Child, startChild, startWatchdog } from './cluster/processes.ts';
import { answers200 } from './net.ts';
import { createDatabase, startThrowawayPostgres, type ThrowawayPostgres } from './postgres/throwaway.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const LEASE_LOST = 75;
const READY_TIMEOUT_MS = 90_000;

const { values: flags } = parseArgs({
  options: {
    instances: { type: 'string', default: '3' },
    port: { type: 'string', default: '8080' },
    'chain-port': { type: 'string', default: '0' },
    'lease-ttl': { type: 'string' },
    config: { type: 'string', default: DEFAULT_CONFIG_PATH },
    restart: { type: 'boolean', default: false },
    logs: { type: 'boolean', default: false },
  },
});

function wholeNumber(flag: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`--${flag} ${text}: a whole number in ${min}..${max}`);
  return n;
}

const count = wholeNumber('instances', flags.instances, 1, 64);
const basePort = wholeNumber('port', flags.port, 1, 65535 - count + 1);
const chainPort = wholeNumber('chain-port', flags['chain-port'], 0, 65534);
const leaseTtlSeconds =
  flags['lease-ttl'] === undefined ? undefined : wholeNumber('lease-ttl', flags['lease-ttl'], 1, 600);
const baseConfigPath = resolve(flags.config);

const say = (line = '') => process.stdout.write(`${line}\n`);

interface Instance {
  index: number;
  url: string;
  dataDir: string;
  logFile: string;
  child: Child | null;
  runId: string | null;
}

const root = mkdtempSync(join(tmpdir(), 'rfq-cluster-'));
const watchdog = startWatchdog(root, join(root, 'pids'));
let postgres: ThrowawayPostgres | null = null;
let chain: Child | null = null;
const instances: Instance[] = [];
let stopping: Promise<void> | null = null;

const track = () =>
  watchdog.track([chain, ...instances.map((i) => i.child)].flatMap((c) => (c?.isRunning() ? [c.pid] : [])));

async function startChain(): Promise<{ url: string; wsUrl: string; programId: string; maker: string }> {
  const makerKeypairPath = join(root, 'maker-keypair.json');
  writeFileSync(makerKeypairPath, JSON.stringify(Array.from(Keypair.generate().secretKey)), { mode: 0o600 });
  chain = startChild({
    name: '[chain]',
    argv: [process.execPath, '--import', 'tsx', join(ROOT, 'src/dev-chain/main.ts')],
    env: {
      CHAIN_PORT: String(chainPort),
      DATA_DIR: join(root, 'chain'),
      // The base config's assets and inventory; the chain funds the one maker all instances share.
      CONFIG: baseConfigPath,
      MAKER_KEYPAIR_PATH: makerKeypairPath,
    },
    cwd: ROOT,
    logFile: join(root, 'chain.log'),
    echo: flags.logs,
  });
  track();
  const running = chain;
  void running.exited.then((ended) => {
    if (stopping) return;
    say(`\nthe chain (pid ${running.pid}) ${describeExit(ended)} (log ${join(root, 'chain.log')})`);
    void stop('the chain is gone', 1);
  });
  const until = Date.now() + 60_000;
  for (;;) {
    const line = chain
      .output()
      .split('\n')
      .find((l) => l.includes('"loopback chain listening"'));
    if (line) {
      const started = JSON.parse(line) as { url: string; wsUrl: string; programId: string; maker: string };
      return { ...started, url: started.url.replace(/\/$/, '') };
    }
    if (!chain.isRunning() || Date.now() > until) {
      throw new Error(`the chain did not start:\n${chain.output().slice(-3_000)}`);
    }
    await sleep(50);
  }
}

function startInstance(instance: Instance, env: Record<string, string>): void {
  const port = new URL(instance.url).port;
  instance.runId = null;
  instance.child = startChild({
    name: `[instance ${instance.index}]`,
    argv: [process.execPath, '--enable-source-maps', SERVICE_BUNDLE],
    env: {
      ...env,
      HOST: '127.0.0.1',
      PORT: port,
      ADVERTISE_URL: instance.url,
      DATA_DIR: instance.dataDir,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    },
    cwd: ROOT,
    logFile: instance.logFile,
    echo: flags.logs,
  });
  track();
  const child = instance.child;
  void child.exited.then((ended) => onInstanceExit(instance, child, ended, env));
}

/** Polls /v1/health/ready until 200, then reads the run id from /v1/health. */
async function untilReady(instance: Instance): Promise<void> {
  const child = instance.child;
  const until = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (!child?.isRunning()) {
      throw new Error(`instance ${instance.index} exited while starting:\n${child?.output().slice(-3_000)}`);
    }
    const ready = await answers200(`${instance.url}/v1/health/ready`);
    if (ready) break;
    if (Date.now() > until) {
      throw new Error(
        `instance ${instance.index} not ready in ${READY_TIMEOUT_MS / 1000} s (log ${instance.logFile})`,
      );
    }
    await sleep(200);
  }
  const health = (await (await fetch(`${instance.url}/v1/health`)).json()) as { run_id: string };
  instance.runId = health.run_id;
}

function describeExit({ code, signal }: { code: number | null; signal: NodeJS.Signals | null }): string {
  if (code === LEASE_LOST) return `exited with code ${LEASE_LOST}: it lost its lease`;
  if (signal) return `was killed (${signal})`;
  return `exited with code ${code}`;
}

async function onInstanceExit(
  instance: Instance,
  child: Child,
  ended: { code: number | null; signal: NodeJS.Signals | null },
  env: Record<string, string>,
): Promise<void> {
  track();
  if (stopping || instance.child !== child) return;
  const at = new Date().toISOString();
  say(
    `\n${at}  instance ${instance.index} (pid ${child.pid}, run ${instance.runId ?? '?'}) ${describeExit(ended)} ` +
      `(log ${instance.logFile})`,
  );
  if (!flags.restart) {
    say(
      '  not restarted: the live instances take over its trades once its lease lapses (--restart restarts it)',
    );
    return;
  }
  // Once listening at the same address the new run retires the old one and takes back what nobody claimed yet.
  say('  restarting it in place as a new run, which takes back its trades at once');
  startInstance(instance, env);
  try {
    await untilReady(instance);
    say(`  restarted: pid ${instance.child?.pid}, new run ${instance.runId}`);
  } catch (error) {
    say(`  the restart failed: ${(error as Error).message}`);
  }
}

function stop(reason: string, code: number): Promise<void> {
  stopping ??= (async () => {
    say(`\n${reason}: stopping the instances, then the chain, then PostgreSQL`);
    await Promise.all(instances.map((i) => i.child?.stop()));
    await chain?.stop(5_000);
    await postgres?.stop().catch((error: unknown) => say(`PostgreSQL: ${(error as Error).message}`));
    watchdog.disarm();
    rmSync(root, { recursive: true, force: true });
    say(`stopped; removed ${root}`);
    process.exit(code);
  })();
  return stopping;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pad = (text: string, width: number) => text.padEnd(width);

async function main(): Promise<void> {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal, 0));
  say(`rfq cluster: ${count} instances, one PostgreSQL, one chain; temp folder ${root}`);

  say('building the service (dist/main.mjs) …');
  await buildService();
  say('starting PostgreSQL (fsync on) …');
  postgres = await startThrowawayPostgres({ fsync: true });
  const databaseUrl = await createDatabase(postgres.url, 'rfq_maker');
  say('starting the chain …');
  const started = await startChain();

  const configPath = join(root, 'config.json');
  const base = JSON.parse(readFileSync(baseConfigPath, 'utf8')) as Record<string, unknown>;
  const doc = clusterConfigDocument(
    base,
    {
      url: started.url,
      wsUrl: started.wsUrl,
      programId: started.programId,
      makerKeypairPath: join(root, 'maker-keypair.json'),
    },
    // One secret for the run's instances: they sign the commands they forward to each other.
    {
      secret: randomBytes(32).toString('hex'),
      ...(leaseTtlSeconds === undefined ? {} : { leaseTtlSeconds }),
    },
  );
  writeFileSync(configPath, `${JSON.stringify(doc, null, 2)}\n`);
  const ttl = loadConfig(configPath).cluster.leaseTtlSeconds; // validates it as the instances will

  const env = { DATABASE_URL: databaseUrl, CONFIG: configPath };
  for (let index = 1; index <= count; index++) {
    instances.push({
      index,
      url: `http://127.0.0.1:${basePort + index - 1}`,
      dataDir: join(root, `instance-${index}`),
      logFile: join(root, `instance-${index}.log`),
      child: null,
      runId: null,
    });
  }
  say(`starting ${count} instances on ports ${basePort}..${basePort + count - 1} …`);
  // All at once, as a deployment does: the migrations run under an advisory lock.
  for (const instance of instances) startInstance(instance, env);
  await Promise.all(instances.map(untilReady));

  const first = instances[0] as Instance;
  const second = instances[1] ?? first;
  const takeover = Math.round(ttl + ttl / 3);
  say();
  say(`PostgreSQL  ${databaseUrl} (${postgres.binaries.from} binaries: ${postgres.binaries.dir})`);
  say(
    `chain       ${started.url} (websocket ${started.wsUrl}); program ${started.programId}; maker ${started.maker}`,
  );
  say(`config      ${configPath} (lease ${ttl} s)`);
  say();
  say(`${pad('instance', 9)}${pad('url', 24)}${pad('pid', 9)}${pad('run id', 38)}log`);
  for (const i of instances) {
    say(
      `${pad(String(i.index), 9)}${pad(i.url, 24)}${pad(String(i.child?.pid), 9)}${pad(i.runId ?? '?', 38)}${i.logFile}`,
    );
  }
  say(`chain log: ${join(root, 'chain.log')}`);
  say();
  say(`swap:      npm run demo -- --url ${second.url} --chain-url ${started.url} --maker ${started.maker}`);
  say(`runs:      curl -s ${first.url}/v1/runtime/runs`);
  const after = flags.restart ? '; --restart restarts it in place, and it takes them back at once' : '';
  say(
    count > 1
      ? `kill one:  kill -9 ${second.child?.pid}   (instance ${second.index}; the others take over its trades within ` +
          `about ${takeover} s: lease ${ttl} s + a third of it${after})`
      : `kill it:   kill -9 ${first.child?.pid}   (one instance: nobody takes its trades over until it is back${after})`,
  );
  say('stop:      Ctrl-C');
}

main().catch((error: unknown) => {
  say(`\ncluster: ${(error as Error).message}`);
  void stop('failed to start', 1);
});
