// A small filesystem of a test's own: a tmpfs of a few megabytes mounted in a temp folder (root only, as CI
// runs), which the test fills to the last byte mid-run and frees again. Where mounting is impossible (not
// root, no CAP_SYS_ADMIN in a container) `smallFsUnavailable` says why, and the test skips with that reason —
// unless DISK_FULL_TESTS=require (.ci/run sets it), which makes that a failure.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statfsSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallFs {
  /** Where it is mounted (traversable by every user: PostgreSQL's runs as its own). */
  readonly path: string;
  /** Bytes still free for root. */
  free(): number;
  /** Writes a file of everything that is left, until the filesystem refuses a single byte; answers its size. */
  fill(): number;
  /** Removes what fill wrote. */
  unfill(): void;
  unmount(): void;
}

const FILL = '.fill';

/** A tmpfs of `megabytes`, or why none can be mounted here. */
export function mountSmallFs(megabytes: number): SmallFs | { unavailable: string } {
  if (process.platform !== 'linux')
    return { unavailable: `mounting a tmpfs needs Linux (${process.platform})` };
  if (process.getuid?.() !== 0) return { unavailable: 'mounting a tmpfs needs root (CI runs as root)' };
  const root = mkdtempSync(join(tmpdir(), 'rfq-small-fs-'));
  const path = join(root, 'mnt');
  mkdirSync(path);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0755`, 'tmpfs', path], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    const stderr = String((error as { stderr?: Buffer }).stderr ?? '').trim();
    return { unavailable: `mount -t tmpfs failed: ${stderr || (error as Error).message}` };
  }
  chmodSync(root, 0o755);
  const fillPath = join(path, FILL);
  return {
    path,
    free() {
      const fs = statfsSync(path);
      return fs.bfree * fs.bsize;
    },
    fill() {
      const fd = openSync(fillPath, 'a');
      let written = 0;
      try {
        // Big chunks first, then ever smaller ones: the last block is taken too.
        for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 9, 1]) {
          const chunk = Buffer.alloc(size, 0x5a);
          for (;;) {
            try {
              written += writeSync(fd, chunk);
            } catch (error) {
              if ((error as { code?: string }).code !== 'ENOSPC') throw error;
              break;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
      return written;
    },
    unfill() {
      rmSync(fillPath, { force: true });
    },
    unmount() {
      try {
        execFileSync('umount', ['-l', path], { stdio: 'ignore' });
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Why no small filesystem can be mounted here, or null when one can (a tiny one is mounted and unmounted to
 * find out). Under DISK_FULL_TESTS=require (.ci/run) a reason throws: the test fails rather than skipping.
 */
export function smallFsUnavailable(): string | null {
  const probe = mountSmallFs(1);
  if (!('unavailable' in probe)) {
    probe.unmount();
    return null;
  }
  if (process.env.DISK_FULL_TESTS === 'require') {
    throw new Error(`DISK_FULL_TESTS=require, and no small filesystem can be mounted: ${probe.unavailable}`);
  }
  return probe.unavailable;
}

/** Mounts one of `megabytes`; throws why not (call it where smallFsUnavailable() said it can). */
export function mountedSmallFs(megabytes: number): SmallFs {
  const mounted = mountSmallFs(megabytes);
  if ('unavailable' in mounted) throw new Error(mounted.unavailable);
  return mounted;
}
