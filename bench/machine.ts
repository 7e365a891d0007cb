// The machine a bench ran on, and core pinning: the service and every baseline server on SERVER_CPU, the
// load generator (this process) on LOAD_CPU, with `taskset` where it exists.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

export const SERVER_CPU = 1;
export const LOAD_CPU = 0;

export interface Machine {
  cpu: string;
  cores: number;
  node: string;
  /** Null when taskset is missing or refused: everything then runs unpinned. */
  pinning: string | null;
  /** 1-minute load average at the start: these machines are shared. */
  load: number;
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

let pinning = false;

/** `taskset -c <cpu>` in front of a command line, or nothing when this run is unpinned. */
export function pinned(cpu: number, command: string[]): string[] {
  return pinning ? ['taskset', '-c', String(cpu), ...command] : command;
}

/** Pins every thread of this process (libuv's pool included) to the load generator's core. */
function pinSelf(): boolean {
  if (!hasTaskset()) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(LOAD_CPU), String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function prepareMachine(): Machine {
  const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1];
  const cores = cpus().length;
  pinning = cores > Math.max(SERVER_CPU, LOAD_CPU) && pinSelf();
  return {
    cpu: model ?? cpus()[0]?.model ?? 'unknown',
    cores,
    node: process.version,
    pinning: pinning
      ? `service and baselines on CPU ${SERVER_CPU} (taskset -c ${SERVER_CPU}), load generator on CPU ${allowedCpus('self')}`
      : null,
    load: loadavg()[0] ?? 0,
  };
}

/** The CPUs a process may run on, as the kernel says (Cpus_allowed_list). */
export function allowedCpus(pid: number | 'self'): string {
  return /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '?';
}

/**
 * CPU time a process has used so far, user + system, in seconds (fields 14 and 15 of /proc/<pid>/stat, in
 * clock ticks of 10 ms); null where /proc is not there.
 */
export function cpuSeconds(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces: count the fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident set size of a process in kB (VmRSS of /proc/<pid>/status). */
export function rssKb(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match?.[1]) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]);
}
