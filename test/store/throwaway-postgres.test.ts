// The throwaway PostgreSQL the tests run against: the run's shared server hands each caller its own empty
// database, and a server of one's own starts, answers, and on stop() is gone with its folder.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  findPostgresBin,
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
});

describe.skipIf(!POSTGRES_TESTS)('a throwaway server of its own', () => {
  let server: ThrowawayPostgres;

  beforeAll(async () => {
    server = await startThrowawayPostgres({ fsync: false });
  });

  afterAll(() => server?.stop());

  test('starts reachable on its port as PostgreSQL', async () => {
    expect(server.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
    expect(existsSync(server.dataDir)).toBe(true);
    const [row] = await query<{ version: string }>(server.url, 'select version()');
    expect(row?.version).toMatch(/^PostgreSQL \d+/);
  });

  test('stop() ends the server and removes its folder, and a second stop() does nothing', async () => {
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

test('PG_BIN naming a folder without initdb is refused by name', () => {
  expect(() => findPostgresBin({ PG_BIN: '/nonexistent' })).toThrow('PG_BIN=/nonexistent holds no initdb');
});
