// The cluster's watchdog (scripts/cluster/processes.ts): the pid list it keeps is rewritten whenever a child
// starts or exits, and a child can exit after its cluster was torn down (a start that failed kills the others
// and removes the folder; their exits come later). That late rewrite must not throw: it surfaced as an
// unhandled rejection (ENOENT …/pids) that failed a test run after the cluster had already said why it failed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { startWatchdog } from '../../scripts/cluster/processes.ts';

test('the watchdog tracks pids while armed, and a child exiting after the folder is gone changes nothing', () => {
  const root = mkdtempSync(join(tmpdir(), 'rfq-watchdog-'));
  const pidFile = join(root, 'pids');
  const watchdog = startWatchdog(root, pidFile);
  // A child of this test's own: the only pid the guard could ever kill, should this process die meanwhile.
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  const pid = child.pid ?? -1;
  try {
    watchdog.track([pid]);
    expect(readFileSync(pidFile, 'utf8')).toBe(`${pid}\n`);
    // Torn down as startCluster's failure path does it: the folder first, the guard after.
    rmSync(root, { recursive: true, force: true });
    expect(() => watchdog.track([pid])).not.toThrow();
    watchdog.disarm();
    expect(() => watchdog.track([])).not.toThrow();
    expect(existsSync(root)).toBe(false);
  } finally {
    child.kill('SIGKILL');
    watchdog.disarm();
    rmSync(root, { recursive: true, force: true });
  }
});
