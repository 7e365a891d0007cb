// Runs on PostgreSQL: each with its lease on the database's clock (renewed by the run; a run is live while
// its row is not stopped and its lease has not lapsed), and the storage watch's probe row.
import type pg from 'pg';
import type { NewRun, RunRecord } from '../records.ts';
import { type RunRow, runFromRow } from '../rows.ts';
import type { RunsRepository, RunWrite } from '../runs.ts';
import { columns, liveRow, NOW_MS, runner } from './sql.ts';
import type { PostgresWrites } from './writes.ts';

/** Runs' statements. */
const SQL = {
  insertRun: `
    INSERT INTO runs (run_id, version, started_at, stopped_at, url, lease_expires_at_ms)
    VALUES ($1, $2, $3, NULL, $4, ${NOW_MS} + $5)`,
  renewLease: `UPDATE runs r SET lease_expires_at_ms = ${NOW_MS} + $2 WHERE r.run_id = $1 AND ${liveRow('r')}`,
  stopRun: `
    UPDATE runs SET stopped_at = $2, lease_expires_at_ms = least(lease_expires_at_ms, ${NOW_MS})
    WHERE run_id = $1`,
  retireRuns: `
    UPDATE runs SET stopped_at = $3, lease_expires_at_ms = least(lease_expires_at_ms, ${NOW_MS})
    WHERE url = $1 AND run_id <> $2 AND stopped_at IS NULL`,
  listRuns: `
    SELECT ${columns<RunRow>(['run_id', 'version', 'started_at', 'stopped_at', 'url', 'lease_expires_at_ms'])}
    FROM runs ORDER BY started_at, run_id`,
  probe: `
    INSERT INTO store_probes (run_id, at) VALUES ($1, $2)
    ON CONFLICT (run_id) DO UPDATE SET at = excluded.at`,
} as const;

export const RUN_STATEMENTS = SQL;
const run = runner(SQL);

export class PostgresRuns implements RunsRepository {
  constructor(private readonly pool: pg.Pool) {}

  readonly writes: PostgresWrites<RunWrite> = {
    probe: {
      apply: async ({ client }, { runId, at }) => {
        await run(client, 'probe', [runId, at]);
      },
    },
  };

  /** Records a run (not stopped); its lease runs leaseTtlMs from now (the store's clock). */
  async insertRun(newRun: NewRun, leaseTtlMs: number): Promise<void> {
    await run(this.pool, 'insertRun', [
      newRun.runId,
      newRun.version,
      newRun.startedAt,
      newRun.url,
      leaseTtlMs,
    ]);
  }

  /** Extends the run's lease if it is still live; false when it had lapsed (or the run was stopped). */
  async renewLease(runId: string, leaseTtlMs: number): Promise<boolean> {
    return (await run(this.pool, 'renewLease', [runId, leaseTtlMs])).rowCount === 1;
  }

  async stopRun(runId: string, stoppedAt: string): Promise<void> {
    await run(this.pool, 'stopRun', [runId, stoppedAt]);
  }

  async retireRuns(url: string, runId: string, stoppedAt: string): Promise<number> {
    return (await run(this.pool, 'retireRuns', [url, runId, stoppedAt])).rowCount ?? 0;
  }

  async listRuns(): Promise<RunRecord[]> {
    return (await run<RunRow>(this.pool, 'listRuns')).rows.map(runFromRow);
  }
}
