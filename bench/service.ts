// The service under test as its own process, started as `npm start` starts it (node on the bundle)
// on a DATA_DIR and a config, pinned to the server's core; with the times from spawn to its first
// /v1/health 200 and its first /v1/health/ready 200.
import { SERVICE_BUNDLE } from '../scripts/build-service.ts';
import { answers200, freePort } from '../scripts/net.ts';
import { allowedCpus, cpuSeconds, rssKb } from './machine.ts';
import { type Child, spawnPinnedNode } from './process.ts';

export interface StartTimes {
  /** From spawn to the first 200 of GET /v1/health. */
  healthMs: number;
  /** From spawn to the first 200 of GET /v1/health/ready. */
  readyMs: number;
}

export interface ServiceProcess {
  readonly url: string;
  readonly child: Child;
  readonly started: StartTimes;
  /** The CPUs the kernel lets it run on (Cpus_allowed_list), to show the pinning held. */
  readonly cpus: string;
  /** The port of its V8 inspector, when started with `inspect`. */
  readonly inspectPort: number | null;
  rssKb(): number;
  /** CPU time it has used so far (user + system), in seconds; null where /proc is not there. */
  cpuSeconds(): number | null;
  /** The store's group commits so far, from its /metrics. */
  commits(): Promise<CommitCounts>;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Spawns the service and polls /v1/health, then /v1/health/ready, every `pollMs` until each answers 200.
 * LOG_LEVEL=warn: request logs would otherwise go through a pipe to this process on every request.
 */
export async function startServiceProcess(options: {
  dataDir: string;
  configPath: string;
  timeoutMs?: number;
  pollMs?: number;
  /** Opens the V8 inspector on a loopback port (row 4 forces collections through it). */
  inspect?: boolean;
}): Promise<ServiceProcess> {
  const port = await freePort();
  const inspectPort = options.inspect ? await freePort() : null;
  const url = `http://127.0.0.1:${port}`;
  // BENCH_CPU_PROF=<dir>: the service writes a V8 CPU profile there when it exits (to see where time goes).
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const inspect = inspectPort === null ? [] : [`--inspect=127.0.0.1:${inspectPort}`];
  const child = spawnPinnedNode([...profile, ...inspect, '--enable-source-maps', SERVICE_BUNDLE], {
    DATA_DIR: options.dataDir,
    CONFIG: options.configPath,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
  });
  const pollMs = options.pollMs ?? 10;
  const until = Date.now() + (options.timeoutMs ?? 60_000);
  const waitFor = async (path: string): Promise<number> => {
    for (;;) {
      if (child.exited())
        throw new Error(`service exited before ${path} answered: ${child.output().slice(-3_000)}`);
      if (await answers200(`${url}${path}`)) return performance.now() - child.spawnedAt;
      if (Date.now() > until) {
        await child.kill9();
        throw new Error(`service did not answer ${path} in time: ${child.output().slice(-3_000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  };
  const healthMs = await waitFor('/v1/health');
  const readyMs = await waitFor('/v1/health/ready');
  return {
    url,
    child,
    started: { healthMs, readyMs },
    cpus: allowedCpus(child.pid),
    inspectPort,
    rssKb: () => rssKb(child.pid),
    cpuSeconds: () => cpuSeconds(child.pid),
    commits: () => commitCounts(url),
    kill9: () => child.kill9(),
    stop: () => child.stop(),
  };
}

/** The store's group commits as counted by the service's histograms (totals since it started). */
export interface CommitCounts {
  commits: number;
  writes: number;
  seconds: number;
}

async function commitCounts(url: string): Promise<CommitCounts> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string) =>
    Number(new RegExp(`^rfq_maker_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 'NaN');
  return {
    commits: value('store_commit_batch_size_count'),
    writes: value('store_commit_batch_size_sum'),
    seconds: value('store_commit_duration_seconds_sum'),
  };
}

/** What the store's commits did between two counts, as a note: how many, how full, how long. */
export function commitNote(what: string, before: CommitCounts, after: CommitCounts, seconds: number): string {
  const commits = after.commits - before.commits;
  const writes = after.writes - before.writes;
  const busy = after.seconds - before.seconds;
  if (!(commits > 0)) return `${what}: no store commits counted`;
  return (
    `${what}: ${Math.round(commits / seconds).toLocaleString('en-US')} store commits/s of ${(writes / commits).toFixed(1)} writes, ` +
    `${((busy / commits) * 1000).toFixed(2)} ms each (${Math.round((busy / seconds) * 100)} % of the window)`
  );
}
