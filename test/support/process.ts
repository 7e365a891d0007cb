// The service as a real child process (node on the bundle, as `npm start` runs it), for crash tests: start it on a
// DATA_DIR and port, wait until it answers, and kill it with SIGKILL.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_BUNDLE } from '../../scripts/build-service.ts';
import { freePort } from '../../scripts/net.ts';
import { DEFAULT_CONFIG_PATH } from '../../src/config/index.ts';
import { TEST_LEASE_SECONDS, testStore } from './service.ts';

/**
 * The environment a service process on dataDir gets for the test run's store: nothing for SQLite; for
 * PostgreSQL its DATA_DIR's database and its config (env.CONFIG or the default) with a short lease.
 */
async function storeEnv(dataDir: string, env: Record<string, string>): Promise<Record<string, string>> {
  const { databaseUrl } = await testStore(dataDir);
  if (databaseUrl === undefined) return {};
  const doc = JSON.parse(readFileSync(env.CONFIG ?? DEFAULT_CONFIG_PATH, 'utf8')) as Record<string, unknown>;
  // An instance on DATABASE_URL needs a cluster secret to start (it signs the commands it forwards).
  doc.cluster = { lease_ttl_seconds: TEST_LEASE_SECONDS, secret: 'test-cluster-secret-0123456789abcdef' };
  const configPath = join(dataDir, 'postgres-test-config.json');
  writeFileSync(configPath, JSON.stringify(doc));
  return { DATABASE_URL: databaseUrl, CONFIG: configPath };
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export { freePort };

/** Each DATA_DIR's port, kept across restarts. */
const ports = new Map<string, number>();

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

export async function startServiceProcess(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<ServiceProcess> {
  // A service started again on its DATA_DIR comes back on its port, as a supervisor restarts one in place.
  const port = ports.get(dataDir) ?? (await freePort());
  ports.set(dataDir, port);
  const child = spawn(process.execPath, ['--enable-source-maps', SERVICE_BUNDLE], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...env,
      ...(await storeEnv(dataDir, env)),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const disarm = killWhenOrphaned(child);
  child.once('exit', disarm);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 45_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited early: ${output}`);
    try {
      if ((await fetch(`${url}/v1/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`service did not start: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    output: () => output,
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Kills the service should this test process end without killing it (a test that timed out, its worker torn
 * down; a run stopped early): a shell in a session of its own waits on a pipe from this process, and once the
 * pipe closes — however this process ended — kills the service. Left running, a service kept its port and
 * its ticks' share of a loaded machine for the rest of the run. Disarmed when the service exits first.
 */
function killWhenOrphaned(child: ChildProcess): () => void {
  if (child.pid === undefined) return () => {};
  const guard = spawn('/bin/sh', ['-c', 'read -r _; kill -9 "$0" 2>/dev/null', String(child.pid)], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  guard.unref();
  (guard.stdin as Socket | null)?.unref();
  return () => {
    guard.kill('SIGKILL');
  };
}
