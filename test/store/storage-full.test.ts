// A full disk, as each engine says it, is a StorageFull: SQLite's SQLITE_FULL (tried on a real tmpfs filled to
// the last byte: the whole batch fails, none of it stored, and the same connection commits once space is back)
// and its SQLITE_IOERR_* when the filesystem is full; PostgreSQL's SQLSTATE 53100 (its own words on a full
// disk, tried in test/e2e/disk-full.test.ts) and the OS's "No space left on device".
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openStore, StorageFull, type Store } from '../../src/store/index.ts';
import { postgresNoSpace } from '../../src/store/postgres/no-space.ts';
import { filesystemFull, sqliteNoSpace } from '../../src/store/sqlite/no-space.ts';
import { mountedSmallFs, type SmallFs, smallFsUnavailable } from '../support/small-fs.ts';
import { quoteRecord, startRun } from './fixtures.ts';

describe('what each engine says of a full disk', () => {
  test('SQLite: SQLITE_FULL always, an SQLITE_IOERR only on a full filesystem, nothing else', () => {
    const path = join(process.cwd(), 'maker.sqlite');
    const full = sqliteNoSpace(
      Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }),
      path,
    );
    expect(full).toBeInstanceOf(StorageFull);
    expect(full).toMatchObject({ engine: 'sqlite', engineCode: 'SQLITE_FULL' });
    // The checkout's disk has room: an I/O error there is not a full disk.
    expect(filesystemFull(path)).toBe(false);
    expect(
      sqliteNoSpace(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }), path),
    ).toBeNull();
    expect(
      sqliteNoSpace(Object.assign(new Error('UNIQUE'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }), path),
    ).toBeNull();
    expect(sqliteNoSpace(new Error('no code'), path)).toBeNull();
  });

  test('PostgreSQL: SQLSTATE 53100, or the OS’s words under another code', () => {
    const extend = Object.assign(new Error('could not extend file "base/5/16385": No space left on device'), {
      code: '53100',
      severity: 'ERROR',
    });
    expect(postgresNoSpace(extend)).toMatchObject({ engine: 'postgres', engineCode: '53100' });
    expect(
      postgresNoSpace(
        Object.assign(new Error('could not write to file: No space left on device'), { code: 'XX000' }),
      ),
    ).toMatchObject({ engineCode: 'XX000' });
    expect(postgresNoSpace(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeNull();
    expect(postgresNoSpace(Object.assign(new Error('out of memory'), { code: '53200' }))).toBeNull();
  });
});

const unavailable = smallFsUnavailable();

describe.skipIf(unavailable !== null)(
  `SQLite on a filesystem filled to the last byte${unavailable === null ? '' : ` (skipped: ${unavailable})`}`,
  () => {
    const run = randomUUID();
    let fs: SmallFs;
    let store: Store;

    beforeAll(async () => {
      fs = mountedSmallFs(8);
      store = await openStore({ dataDir: join(fs.path, 'data') });
      await startRun(store, run);
    });
    afterAll(async () => {
      await store?.close();
      fs?.unmount();
    });

    test('a batch fails whole as a StorageFull, none of it stored; the same connection commits once space is back', async () => {
      const before = quoteRecord(run);
      await store.commit([{ kind: 'insertQuote', quote: before }]);
      fs.fill();
      expect(filesystemFull(join(fs.path, 'data', 'maker.sqlite'))).toBe(true);
      const batch = Array.from({ length: 20 }, () => quoteRecord(run));
      let failure: unknown;
      // A write may still fit where SQLite has room already (its WAL): more batches until one needs the disk.
      for (let attempt = 0; attempt < 200 && failure === undefined; attempt++) {
        await store
          .commit(batch.map((quote) => ({ kind: 'insertQuote', quote: { ...quote, quoteId: randomUUID() } })))
          .catch((error: unknown) => {
            failure = error;
          });
      }
      expect(failure).toBeInstanceOf(StorageFull);
      expect(failure).toMatchObject({ engine: 'sqlite', engineCode: 'SQLITE_FULL' });
      const refused = batch.map((quote) => ({ ...quote, quoteId: randomUUID() }));
      await expect(
        store.commit(refused.map((quote) => ({ kind: 'insertQuote', quote }))),
      ).rejects.toBeInstanceOf(StorageFull);
      for (const quote of refused) expect(await store.getQuote(quote.quoteId)).toBeUndefined();
      expect(await store.getQuote(before.quoteId)).toBeDefined();

      fs.unfill();
      const after = quoteRecord(run);
      await expect(store.commit([{ kind: 'insertQuote', quote: after }])).resolves.toEqual([{ ok: true }]);
      expect(await store.getQuote(after.quoteId)).toBeDefined();
      expect(store.isOpen).toBe(true);
    });
  },
);
