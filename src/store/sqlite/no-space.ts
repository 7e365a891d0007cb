// SQLite's words for a full disk. Its unix VFS answers SQLITE_FULL when a write meets ENOSPC; other writes that
// meet it (growing the shared-memory index, truncating, syncing) surface as SQLITE_IOERR_* variants, whose errno
// better-sqlite3 does not pass on, so those count as a full disk when the filesystem under the database shows
// no space (or no inode) left for this process.
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { StorageFull } from '../storage-full.ts';

/** Below this the filesystem counts as full: SQLite writes a page (4 KiB) or a WAL frame at a time. */
const NO_SPACE_BYTES = 64 * 1024;

/** Whether the filesystem holding `path` has (next to) no space or no inode left for this process. */
export function filesystemFull(path: string): boolean {
  try {
    const fs = statfsSync(dirname(path));
    // root may use the blocks reserved for it; anyone else only the available ones.
    const blocks = process.getuid?.() === 0 ? fs.bfree : fs.bavail;
    return blocks * fs.bsize < NO_SPACE_BYTES || (fs.files > 0 && fs.ffree === 0);
  } catch {
    return false;
  }
}

/** The error as a StorageFull when it is SQLite's for a full disk under the database at `path`; else null. */
export function sqliteNoSpace(error: unknown, path: string): StorageFull | null {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return null;
  const full = code === 'SQLITE_FULL' || (code.startsWith('SQLITE_IOERR') && filesystemFull(path));
  if (!full) return null;
  return new StorageFull(
    'sqlite',
    code,
    `the disk under ${dirname(path)} is full: ${(error as Error).message}`,
    {
      cause: error,
    },
  );
}
