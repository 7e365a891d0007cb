// PostgreSQL for tests: a fresh, empty database per caller on the run's shared throwaway server
// (started once by test/support/postgres-global-setup.ts).
import { inject } from 'vitest';
import { createDatabase } from '../../scripts/postgres/throwaway.ts';

/** False under PG_TESTS=0, when no server was started: suites that need one skip themselves with it. */
export const POSTGRES_TESTS = process.env.PG_TESTS !== '0';

/** Its own database for the calling test, so tests never see each other's rows. */
export async function testDatabaseUrl(): Promise<string> {
  const adminUrl = inject('postgresAdminUrl');
  if (!adminUrl) {
    throw new Error(
      'no PostgreSQL server for this run: PG_TESTS=0 skipped it, or the config lacks ' +
        'test/support/postgres-global-setup.ts in globalSetup',
    );
  }
  return createDatabase(adminUrl);
}
