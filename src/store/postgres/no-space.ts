// PostgreSQL's words for a full disk: SQLSTATE 53100 (disk_full), which it raises for every file access that
// meets ENOSPC ("could not extend file …: No space left on device", a temporary file, a WAL segment), and the
// OS's own words when they reach us under another code.
import { StorageFull } from '../storage-full.ts';

const DISK_FULL = '53100';

/** The error as a StorageFull when it is PostgreSQL's for a full disk; else null. */
export function postgresNoSpace(error: unknown): StorageFull | null {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  if (code !== DISK_FULL && !text.includes('No space left on device')) return null;
  return new StorageFull(
    'postgres',
    typeof code === 'string' ? code : DISK_FULL,
    `the database's disk is full: ${text}`,
    {
      cause: error,
    },
  );
}
