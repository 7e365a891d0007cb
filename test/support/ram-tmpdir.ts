// The test workers' temporary folders (os.tmpdir(): every DATA_DIR, SQLite store, chain store and throwaway
// PostgreSQL a test makes) on a RAM filesystem where the machine has one with room: /dev/shm on Linux. The
// service's SQLite store commits with synchronous = FULL, and better-sqlite3's fsync blocks the worker's event
// loop: on a disk other work shares, each commit stalled the test for milliseconds (the strategic taker: 79 s
// → 62 s, a fifth of its samples in the commit). What the tests check survives a kill -9 either way — a
// killed process's writes are in the kernel's page cache — and the full-disk tests mount filesystems of their
// own. TEST_TMPDIR=disk keeps the system's temp folder.
import { chmodSync, mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

const RAM_FS = '/dev/shm';
/** Free space a run needs there (a container's default /dev/shm is 64 MB: then the disk it is). */
const ROOM_BYTES = 4 * 2 ** 30;
const PREFIX = 'rfq-tests-';
/** The environment variable the config hands the folder to its global setup by, to remove it at the end. */
const HANDOVER = 'RFQ_TEST_RAM_TMPDIR';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * A folder of this run's own on the RAM filesystem (mode 1777 like /tmp: PostgreSQL's server runs as its own
 * user), or null where there is none with room. Folders of earlier runs whose process is gone (a run killed
 * before its teardown) are removed first: they would hold memory until the next boot.
 */
export function ramTmpDir(): string | null {
  if (process.platform !== 'linux' || process.env.TEST_TMPDIR === 'disk') return null;
  try {
    // The config read again in the same run (not a run this one started: its pid is another).
    const made = process.env[HANDOVER];
    if (made?.startsWith(join(RAM_FS, `${PREFIX}${process.pid}-`))) return made;
    const { bavail, bsize } = statfsSync(RAM_FS);
    if (bavail * bsize < ROOM_BYTES) return null;
    for (const name of readdirSync(RAM_FS)) {
      const pid = Number(name.slice(PREFIX.length).split('-')[0]);
      if (name.startsWith(PREFIX) && Number.isInteger(pid) && pid > 0 && !alive(pid)) {
        rmSync(join(RAM_FS, name), { recursive: true, force: true });
      }
    }
    const dir = mkdtempSync(join(RAM_FS, `${PREFIX}${process.pid}-`));
    chmodSync(dir, 0o1777);
    process.env[HANDOVER] = dir;
    return dir;
  } catch {
    return null;
  }
}

/** Global setup: the run's folder is removed once every file has run. */
export default function setup(): () => void {
  return () => {
    const dir = process.env[HANDOVER];
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  };
}
