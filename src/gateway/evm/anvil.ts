// anvil, the EVM node of the dev Gateway's source domain: a child process on a free loopback port, started from
// the binary the npm registry's platform package ships (@foundry-rs/anvil-<os>-<cpu>), no network, and ended
// with its owner however the owner ends (the pattern of scripts/postgres/throwaway.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { createInterface } from 'node:readline';

export interface Anvil {
  /** JSON-RPC over HTTP: http://127.0.0.1:PORT */
  url: string;
  port: number;
  chainId: number;
  /** Stops the node (its chain is in memory and goes with it); calling it again does nothing. */
  stop(): Promise<void>;
}

export interface AnvilOptions {
  /** The EVM chain id (not the Gateway domain); anvil's own default, 31337, unless given. */
  chainId?: number;
  /** anvil's output lines (one per RPC call it serves, and its banner); dropped unless given. */
  log?: (line: string) => void;
  /** How long anvil may take to listen; a ceiling, not an expectation (it takes ~50 ms on a quiet machine). */
  startTimeoutMs?: number;
}

export const ANVIL_DEFAULT_CHAIN_ID = 31337;

/**
 * The EVM rules anvil runs, named rather than "latest" so that a newer anvil does not change them under the
 * contracts (compiled for cancun, which prague includes).
 */
export const ANVIL_HARDFORK = 'prague';

const PLATFORM_PACKAGES: Record<string, string> = {
  'linux-x64': 'linux-amd64',
  'linux-arm64': 'linux-arm64',
  'darwin-x64': 'darwin-amd64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-amd64',
};

/**
 * The anvil binary of this platform's package. Started directly, not through the `anvil` wrapper script of
 * @foundry-rs/anvil: a signal then reaches anvil itself, and no second node process stands between.
 */
export function anvilBinary(platform: string = process.platform, arch: string = process.arch): string {
  const suffix = PLATFORM_PACKAGES[`${platform}-${arch}`];
  if (!suffix) throw new Error(`anvil has no npm package for ${platform}-${arch}`);
  const name = `@foundry-rs/anvil-${suffix}/bin/anvil${platform === 'win32' ? '.exe' : ''}`;
  let path: string;
  try {
    path = createRequire(import.meta.url).resolve(name);
  } catch {
    throw new Error(`${name} is not installed (npm install brings it with @foundry-rs/anvil)`);
  }
  if (!existsSync(path)) throw new Error(`${path} is missing`);
  return path;
}

/**
 * Signals and SIGKILL skip 'exit' hooks. This shell, in a session of its own, blocks reading a pipe from us
 * and, once the pipe closes, which is when we die however we die, kills anvil.
 */
function watchdog(pid: number): ChildProcess {
  const child = spawn('/bin/sh', ['-c', 'read -r _; kill -9 "$0" 2>/dev/null', String(pid)], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  child.unref();
  (child.stdin as Socket | null)?.unref();
  return child;
}

const LISTENING = /^Listening on 127\.0\.0\.1:(\d+)$/;

export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  const chainId = options.chainId ?? ANVIL_DEFAULT_CHAIN_ID;
  const log = options.log ?? (() => {});
  // Port 0: the kernel picks a free port as anvil binds, and anvil says which; no race with another process.
  // No prefunded accounts: the dev domain funds the keys it uses, none of them the well-known test keys.
  const args = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId)];
  const child = spawn(anvilBinary(), [...args, '--accounts', '0', '--hardfork', ANVIL_HARDFORK], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const onExit = () => child.kill('SIGKILL');
  process.on('exit', onExit);
  const guard = child.pid === undefined ? undefined : watchdog(child.pid);
  // A process that could not be spawned emits 'error' and may never emit 'exit'.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr as NonNullable<typeof child.stderr> }).on('line', (line) => {
    // The last few lines only, for the error of a start that fails.
    if (stderr.push(line) > 20) stderr.shift();
    log(line);
  });

  const stop = async () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    }
    guard?.kill('SIGKILL');
    process.off('exit', onExit);
  };

  try {
    const port = await listeningPort(child, log, options.startTimeoutMs ?? 60_000, stderr);
    const url = `http://127.0.0.1:${port}`;
    await checkChainId(url, chainId);
    let stopping: Promise<void> | undefined;
    return {
      url,
      port,
      chainId,
      stop: () => {
        stopping ??= stop();
        return stopping;
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Reads anvil's stdout until it says where it listens; keeps reading (into log) so its pipe never fills. */
function listeningPort(
  child: ChildProcess,
  log: (line: string) => void,
  timeoutMs: number,
  stderr: readonly string[],
): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(`anvil did not listen within ${timeoutMs} ms`), timeoutMs);
    const fail = (message: string) => {
      clearTimeout(timer);
      reject(new Error(stderr.length > 0 ? `${message}: ${stderr.slice(-5).join('\n')}` : message));
    };
    child.once('error', (error) => fail(`anvil did not start: ${error.message}`));
    child.once('exit', (code, signal) => fail(`anvil exited (${signal ?? `code ${code}`}) before listening`));
    createInterface({ input: child.stdout as NonNullable<typeof child.stdout> }).on('line', (line) => {
      log(line);
      const match = LISTENING.exec(line.trim());
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
  });
}

/** Proves the node answers JSON-RPC where its callers will connect, on the chain asked for. */
async function checkChainId(url: string, chainId: number): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    signal: AbortSignal.timeout(10_000),
  });
  const { result } = (await response.json()) as { result?: string };
  if (result === undefined || Number(result) !== chainId) {
    throw new Error(`anvil at ${url} answers chain id ${result}, not ${chainId}`);
  }
}
