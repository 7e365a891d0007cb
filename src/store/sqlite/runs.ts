// Runs on SQLite: one instance, so no leases (a run's lease reads NULL); and the storage watch's probe row.
import type Database from 'better-sqlite3';
import type { NewRun, RunRecord } from '../records.ts';
import { type RunRow, runFromRow } from '../rows.ts';
import type { RunsRepository, RunWrite } from '../runs.ts';
import type { SqliteWrites } from './writes.ts';

/** Its statements, prepared once when the store opens. */
function prepare(db: Database.Database) {
  return {
    insert: db.prepare(
      'INSERT INTO runs (run_id, version, started_at, stopped_at, url) VALUES (@runId, @version, @startedAt, NULL, @url)',
    ),
    stop: db.prepare('UPDATE runs SET stopped_at = ? WHERE run_id = ?'),
    retire: db.prepare('UPDATE runs SET stopped_at = ? WHERE url = ? AND run_id <> ? AND stopped_at IS NULL'),
    list: db.prepare(
      'SELECT run_id, version, started_at, stopped_at, url, NULL AS lease_expires_at_ms FROM runs ORDER BY started_at, run_id',
    ),
    probe: db.prepare(
      'INSERT INTO store_probes (run_id, at) VALUES (?, ?) ON CONFLICT (run_id) DO UPDATE SET at = excluded.at',
    ),
  };
}

type Statements = ReturnType<typeof prepare>;

export class SqliteRuns implements RunsRepository {
  private readonly statements: Statements;

  constructor(db: Database.Database) {
    this.statements = prepare(db);
  }

  readonly writes: SqliteWrites<RunWrite> = {
    probe: ({ runId, at }) => void this.statements.probe.run(runId, at),
  };

  async insertRun(run: NewRun): Promise<void> {
    this.statements.insert.run({
      runId: run.runId,
      version: run.version,
      startedAt: run.startedAt,
      url: run.url,
    });
  }

  async stopRun(runId: string, stoppedAt: string): Promise<void> {
    this.statements.stop.run(stoppedAt, runId);
  }

  async retireRuns(url: string, runId: string, stoppedAt: string): Promise<number> {
    return this.statements.retire.run(stoppedAt, url, runId).changes;
  }

  async listRuns(): Promise<RunRecord[]> {
    return (this.statements.list.all() as RunRow[]).map(runFromRow);
  }
}
