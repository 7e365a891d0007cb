// The cluster's child processes (the chain and the instances): each in a process group of its own, so a
// Ctrl-C reaches only the cluster script, which then stops them in order; output appended to a log file and,
// with --logs, also echoed to stdout line by line behind a prefix. A watchdog ends them all should the
// script itself be killed without a chance to clean up.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';

export interface ChildOptions {
  /** Shown in front of echoed lines: `[instance 2]`. */
  name: string;
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  logFile: string;
  echo: boolean;
}

export interface Child {
  readonly pid: number;
  /** Resolves once the process is gone, with how it ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it printed, the last 50 kB: to find its listening line, or to show why it failed. */
  output(): string;
  isRunning(): boolean;
  /** SIGTERM (a graceful stop), SIGKILL after graceMs. */
  stop(graceMs?: number): Promise<void>;
}

export function startChild(options: ChildOptions): Child {
  const [command, ...args] = options.argv;
  const child: ChildProcess = spawn(command as string, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const log = createWriteStream(options.logFile, { flags: 'a' });
  let output = '';
  let partial = '';
  const take = (chunk: Buffer) => {
    const text = String(chunk);
    log.write(text);
    output = (output + text).slice(-50_000);
    if (!options.echo) return;
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) process.stdout.write(`${options.name} ${line}\n`);
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  let running = true;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      resolve({ code, signal });
    });
    child.once('error', (error) => {
      running = false;
      take(Buffer.from(`${error.message}\n`));
      resolve({ code: null, signal: null });
    });
  });
  // Stream ends come after 'exit': close the log once both pipes have drained.
  child.once('close', () => log.end());
  return {
    pid: child.pid ?? -1,
    exited,
    output: () => output,
    isRunning: () => running,
    async stop(graceMs = 15_000) {
      if (running) child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (running) child.kill('SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Should the script die without cleaning up (kill -9), its children and temp folder must not stay behind:
 * a shell in a session of its own waits on a pipe from this process, and once the pipe closes — however
 * this process ended — kills every pid listed in pidFile and removes root.
 */
export function startWatchdog(
  root: string,
  pidFile: string,
): { track(pids: number[]): void; disarm(): void } {
  writeFileSync(pidFile, '');
  const script = 'read -r _; for pid in $(cat "$1"); do kill -9 "$pid" 2>/dev/null; done; rm -rf "$0"';
  const guard = spawn('/bin/sh', ['-c', script, root, pidFile], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  guard.unref();
  (guard.stdin as Socket | null)?.unref();
  let armed = true;
  return {
    // A child that exits after the cluster was torn down (its folder removed, the guard disarmed) has nothing
    // left to guard: the list is not written again, and a folder removed meanwhile is no failure.
    track: (pids) => {
      if (!armed) return;
      try {
        writeFileSync(pidFile, `${pids.join('\n')}\n`);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    },
    disarm: () => {
      armed = false;
      guard.kill('SIGKILL');
    },
  };
}
