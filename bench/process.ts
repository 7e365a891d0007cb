// Child processes of the bench: node (the service bundle, or tsx scripts) pinned to the server's core, long-lived (the service,
// the bare baseline server) or one-shot (baselines that print one JSON line and exit).
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pinned, SERVER_CPU } from './machine.ts';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

// Whatever happens to the bench, none of its children outlives it.
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
// A signal would end this process without 'exit' handlers: end through process.exit instead.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

export interface Child {
  readonly process: ChildProcess;
  readonly pid: number;
  /** Milliseconds (performance.now()) at spawn. */
  readonly spawnedAt: number;
  /** stdout and stderr together (the last 100–200 kB). */
  output(): string;
  stdout(): string;
  exited(): boolean;
  /** SIGKILL, and wait until it is gone. */
  kill9(): Promise<void>;
  /** SIGTERM (graceful), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** A TypeScript script under tsx, pinned to the server's core. */
export function spawnPinned(script: string, args: string[] = [], env: Record<string, string> = {}): Child {
  return spawnPinnedNode(['--import', 'tsx', script, ...args], env);
}

/** node with these arguments, pinned to the server's core. */
export function spawnPinnedNode(nodeArgs: string[], env: Record<string, string> = {}): Child {
  const [command, ...rest] = pinned(SERVER_CPU, [process.execPath, ...nodeArgs]);
  const spawnedAt = performance.now();
  const child = spawn(command as string, rest, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  let stdout = '';
  const keep = (chunk: Buffer) => {
    output += String(chunk);
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    keep(chunk);
    stdout = (stdout + String(chunk)).slice(-100_000);
  });
  child.stderr?.on('data', keep);
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    process: child,
    pid: child.pid as number,
    spawnedAt,
    output: () => output,
    stdout: () => stdout,
    exited,
    async kill9() {
      if (!exited()) child.kill('SIGKILL');
      await gone;
    },
    async stop(graceMs = 15_000) {
      if (!exited()) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await gone;
      clearTimeout(timer);
    },
  };
}

/** Runs a one-shot pinned script and returns the JSON of its last stdout line. */
export async function runPinned<T>(
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<T> {
  const child = spawnPinned(script, args, env);
  // 'close', not 'exit': stdout may still hold the last line when the process exits.
  const code = await new Promise<number | null>((resolve) => child.process.once('close', (c) => resolve(c)));
  if (code !== 0) throw new Error(`${script} exited with ${code}: ${child.output().slice(-2_000)}`);
  return JSON.parse(child.stdout().trim().split('\n').at(-1) ?? '') as T;
}

/** Waits for a line of a long-lived child's output that matches, e.g. the URL it listens on. */
export async function waitForLine(
  child: Child,
  pattern: RegExp,
  timeoutMs = 30_000,
): Promise<RegExpExecArray> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(child.output());
    if (match) return match;
    if (child.exited()) throw new Error(`child exited early: ${child.output().slice(-2_000)}`);
    if (Date.now() > until)
      throw new Error(`child did not print ${pattern}: ${child.output().slice(-2_000)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
