// The desk's live settings on PostgreSQL, as SQLite keeps them (sqlite/desk.ts): a change is a row in the
// log, and the override it leaves set (or removed) names it. The commit that writes them notifies the other
// instances (commit.ts, notifications.ts).
import type pg from 'pg';
import {
  DESK_OVERRIDES_QUERY,
  type DeskChange,
  type DeskChangeRow,
  type DeskOverride,
  type DeskOverrideRow,
  type DeskRepository,
  type DeskWrite,
  deskChangeFromRow,
  deskChangeRow,
  deskOverrideFromRow,
  type NewDeskChange,
} from '../desk.ts';
import { runner } from './sql.ts';
import type { PostgresWrites } from './writes.ts';

/** The desk's statements. */
const SQL = {
  insertDeskChange: `
    INSERT INTO desk_changes (at, actor, run_id, target, field, before_value, after_value, override_value)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING seq`,
  setDeskOverride: `
    INSERT INTO desk_overrides (target, field, value, change_seq) VALUES ($1, $2, $3, $4)
    ON CONFLICT (target, field) DO UPDATE SET value = excluded.value, change_seq = excluded.change_seq`,
  dropDeskOverride: 'DELETE FROM desk_overrides WHERE target = $1 AND field = $2',
  deskOverrides: DESK_OVERRIDES_QUERY,
  deskChanges: 'SELECT * FROM desk_changes ORDER BY seq DESC LIMIT $1',
  deskChangesBefore: 'SELECT * FROM desk_changes WHERE seq < $1 ORDER BY seq DESC LIMIT $2',
} as const;

export const DESK_STATEMENTS = SQL;
const run = runner(SQL);

export class PostgresDesk implements DeskRepository {
  constructor(
    private readonly pool: pg.Pool,
    /** LISTENs for other instances' changes (notifications.ts), on a connection of its own. */
    private readonly watch: (listener: () => void) => Promise<() => Promise<void>>,
  ) {}

  readonly writes: PostgresWrites<DeskWrite> = {
    changeDesk: {
      changesDesk: true,
      apply: ({ client }, { changes }) => this.change(client, changes),
    },
  };

  /** Within the batch's transaction: each change logged, its override set or removed. */
  private async change(client: pg.PoolClient, changes: readonly NewDeskChange[]): Promise<void> {
    for (const change of changes) {
      const row = deskChangeRow(change);
      const { rows } = await run<{ seq: number | string }>(client, 'insertDeskChange', [
        row.at,
        row.actor,
        row.run_id,
        row.target,
        row.field,
        row.before_value,
        row.after_value,
        row.override_value,
      ]);
      const seq = rows[0]?.seq;
      if (row.override_value === null) {
        await run(client, 'dropDeskOverride', [change.target, change.field]);
      } else {
        await run(client, 'setDeskOverride', [change.target, change.field, row.override_value, seq]);
      }
    }
  }

  async deskOverrides(): Promise<DeskOverride[]> {
    return (await run<DeskOverrideRow>(this.pool, 'deskOverrides')).rows.map(deskOverrideFromRow);
  }

  async deskChanges(limit: number, beforeSeq?: number): Promise<DeskChange[]> {
    const { rows } =
      beforeSeq === undefined
        ? await run<DeskChangeRow>(this.pool, 'deskChanges', [limit])
        : await run<DeskChangeRow>(this.pool, 'deskChangesBefore', [beforeSeq, limit]);
    return rows.map(deskChangeFromRow);
  }

  watchDesk(listener: () => void): Promise<() => Promise<void>> {
    return this.watch(listener);
  }
}
