// The throwaway PostgreSQL the tests run against: the run's shared server hands each caller its own empty
// database, and a server of one's own starts, answers, and on stop() is gone with its folder. Its binaries are
// the system's when it has them, else the npm registry's, which run here whatever the system has.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import {
  findPostgresBin,
  npmPostgresBin,
  startThrowawayPostgres,
  type ThrowawayPostgres,
} from '../../scripts/postgres/throwaway.ts';
import { POSTGRES_TESTS, testDatabaseUrl } from '../support/postgres.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function query<Row extends pg.QueryResultRow>(url: string, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

const userTables = (url: string) =>
  query<{ name: string }>(
    url,
    "select table_name as name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')",
  );

describe.skipIf(!POSTGRES_TESTS)('the shared test server', () => {
  test('hands out a database that answers as PostgreSQL', async () => {
    const [row] = await query<{ version: string }>(await testDatabaseUrl(), 'select version()');
    expect(row?.version).toMatch(/^PostgreSQL \d+/);
  });

  test('two callers get two different databases, both empty, neither seeing the other', async () => {
    const [first, second] = [await testDatabaseUrl(), await testDatabaseUrl()];
    expect(first).not.toBe(second);
    const names = await Promise.all(
      [first, second].map(
        async (url) => (await query<{ name: string }>(url, 'select current_database() as name'))[0]?.name,
      ),
    );
    expect(names[0]).not.toBe(names[1]);
    expect(await userTables(first)).toEqual([]);
    expect(await userTables(second)).toEqual([]);

    await query(first, 'create table only_here (id int)');
    expect(await userTables(first)).toEqual([{ name: 'only_here' }]);
    expect(await userTables(second)).toEqual([]);
  });

  test("runs the binaries the lookup finds: under PG_BIN=npm the registry's, whatever the system has", () => {
    expect(inject('postgresBinaries')?.from).toBe(findPostgresBin().from);
  });
});

describe.skipIf(!POSTGRES_TESTS)('a throwaway server of its own', () => {
  let server: ThrowawayPostgres;

  beforeAll(async () => {
    server = await startThrowawayPostgres({ fsync: false });
  });

  afterAll(() => server?.stop());

  // One story, start to stop: the server's life is the order the checks must run in.
  test('starts reachable on its port as PostgreSQL; stop() ends it and removes its folder, a second stop() does nothing', async () => {
    expect(server.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
    expect(existsSync(server.dataDir)).toBe(true);
    const [row] = await query<{ version: string }>(server.url, 'select version()');
    expect(row?.version).toMatch(/^PostgreSQL \d+/);

    await server.stop();
    await expect(query(server.url, 'select 1')).rejects.toThrow(/ECONNREFUSED/);
    expect(existsSync(server.dataDir)).toBe(false);
    expect(existsSync(dirname(server.dataDir))).toBe(false);
    await expect(server.stop()).resolves.toBeUndefined();
  });
});

describe.skipIf(!POSTGRES_TESTS)('an owner killed without warning', () => {
  test('leaves no server and no folder behind: its watchdog stops and removes them', async () => {
    const owner = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        "const { startThrowawayPostgres } = await import('./scripts/postgres/throwaway.ts');" +
          'const server = await startThrowawayPostgres({ fsync: false });' +
          'console.log(JSON.stringify(server));' +
          'setInterval(() => {}, 1000);',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [line] = (await once(owner.stdout, 'data')) as [Buffer];
    const server = JSON.parse(String(line)) as { url: string; dataDir: string };
    expect(await query(server.url, 'select 1 as one')).toEqual([{ one: 1 }]);

    owner.kill('SIGKILL');
    await once(owner, 'exit');
    await expect.poll(() => existsSync(dirname(server.dataDir)), { timeout: 10_000 }).toBe(false);
    await expect(query(server.url, 'select 1')).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('where the binaries come from', () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  /** A folder laid out as Debian's /usr/lib/postgresql, with an initdb in each given major's bin/. */
  function systemPrefix(...majors: number[]): string {
    const prefix = mkdtempSync(join(tmpdir(), 'rfq-pg-prefix-'));
    folders.push(prefix);
    for (const major of majors) {
      mkdirSync(join(prefix, String(major), 'bin'), { recursive: true });
      writeFileSync(join(prefix, String(major), 'bin', 'initdb'), '');
    }
    mkdirSync(join(prefix, '17', 'bin'), { recursive: true }); // a client-only major: psql, no initdb
    return prefix;
  }

  test("the system's when it has them: the newest major that has a server", () => {
    const prefix = systemPrefix(9, 15, 16);
    expect(findPostgresBin({ PATH: '' }, prefix)).toEqual({ dir: join(prefix, '16', 'bin'), from: 'system' });
  });

  test('else the folder of an initdb on PATH', () => {
    const prefix = systemPrefix(16);
    const onPath = join(prefix, '16', 'bin');
    expect(findPostgresBin({ PATH: `/nonexistent:${onPath}` }, '/nonexistent')).toEqual({
      dir: onPath,
      from: 'system',
    });
  });

  test("else the npm registry's, which `npm install` brought: initdb, pg_ctl and postgres", () => {
    const dir = npmPostgresBin();
    expect(dir).toBeDefined();
    for (const binary of ['initdb', 'pg_ctl', 'postgres'])
      expect(existsSync(join(dir ?? '', binary))).toBe(true);
    expect(findPostgresBin({ PATH: '' }, '/nonexistent')).toEqual({ dir, from: 'npm' });
  });

  test("PG_BIN=npm takes the registry's even where the system has its own", () => {
    expect(findPostgresBin({ PG_BIN: 'npm', PATH: '' }, systemPrefix(16))).toEqual({
      dir: npmPostgresBin(),
      from: 'npm',
    });
  });

  test('PG_BIN naming a folder without initdb is refused by name', () => {
    expect(() => findPostgresBin({ PG_BIN: '/nonexistent' })).toThrow('PG_BIN=/nonexistent holds no initdb');
  });
});

describe.skipIf(!POSTGRES_TESTS)("a server from the npm registry's binaries", () => {
  let server: ThrowawayPostgres;

  beforeAll(async () => {
    server = await startThrowawayPostgres({ fsync: false, bin: 'npm' });
  });

  afterAll(() => server?.stop());

  test('runs here, whatever the system has, and answers as the PostgreSQL the package ships', async () => {
    expect(server.binaries.from).toBe('npm');
    const shipped = execFileSync(join(server.binaries.dir, 'postgres'), ['--version'], { encoding: 'utf8' });
    const [major, minor] = /\(PostgreSQL\) (\d+)\.(\d+)/.exec(shipped)?.slice(1) ?? [];
    const [row] = await query<{ version: string }>(server.url, 'select version()');
    expect(row?.version).toMatch(new RegExp(`^PostgreSQL ${major}\\.${minor} `));
  });
});

// The user PostgreSQL runs as under root (postgres, or nobody) may not be able to enter a root checkout (under
// /root, say): the binaries then run from a copy that it can reach.
describe.skipIf(!POSTGRES_TESTS || process.getuid?.() !== 0)(
  'as root, binaries in a folder closed to others',
  () => {
    let closed: string;
    let server: ThrowawayPostgres | undefined;

    beforeAll(() => {
      closed = mkdtempSync(join(tmpdir(), 'rfq-closed-')); // mode 0700: only root enters
      symlinkSync(dirname(npmPostgresBin() ?? '/nonexistent'), join(closed, 'native'));
    });

    afterAll(async () => {
      await server?.stop();
      rmSync(closed, { recursive: true, force: true });
    });

    test('run from a copy in the temp dir, and the server answers', async () => {
      server = await startThrowawayPostgres({ fsync: false, bin: join(closed, 'native', 'bin') });
      expect(server.binaries.dir.startsWith(closed)).toBe(false);
      expect(server.binaries.dir).toMatch(/rfq-postgres-bin-[0-9a-f]{16}\/bin$/);
      expect(await query(server.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    });
  },
);
