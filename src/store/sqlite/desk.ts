// The desk's live settings on SQLite (the reference for their meaning): a change is a row in the log, and
// the override it leaves set (or removed) names it.
import type Database from 'better-sqlite3';
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
import type { SqliteWrites } from './writes.ts';

/** Its statements, prepared once when the store opens. */
function prepare(db: Database.Database) {
  return {
    insert: db.prepare(`
      INSERT INTO desk_changes (at, actor, run_id, target, field, before_value, after_value, override_value)
      VALUES (@at, @actor, @run_id, @target, @field, @before_value, @after_value, @override_value)`),
    setOverride: db.prepare(`
      INSERT INTO desk_overrides (target, field, value, change_seq) VALUES (@target, @field, @value, @seq)
      ON CONFLICT (target, field) DO UPDATE SET value = excluded.value, change_seq = excluded.change_seq`),
    dropOverride: db.prepare('DELETE FROM desk_overrides WHERE target = ? AND field = ?'),
    overridesQuery: db.prepare(DESK_OVERRIDES_QUERY),
    newest: db.prepare('SELECT * FROM desk_changes ORDER BY seq DESC LIMIT ?'),
    before: db.prepare('SELECT * FROM desk_changes WHERE seq < ? ORDER BY seq DESC LIMIT ?'),
  };
}

type Statements = ReturnType<typeof prepare>;

export class SqliteDesk implements DeskRepository {
  private readonly statements: Statements;

  constructor(db: Database.Database) {
    this.statements = prepare(db);
  }

  readonly writes: SqliteWrites<DeskWrite> = {
    changeDesk: ({ changes }) => this.change(changes),
  };

  /** Within the caller's transaction: each change logged, its override set or removed. */
  private change(changes: readonly NewDeskChange[]): void {
    const { insert, dropOverride, setOverride } = this.statements;
    for (const change of changes) {
      const row = deskChangeRow(change);
      const seq = Number(insert.run(row).lastInsertRowid);
      if (row.override_value === null) dropOverride.run(change.target, change.field);
      else setOverride.run({ target: change.target, field: change.field, value: row.override_value, seq });
    }
  }

  async deskOverrides(): Promise<DeskOverride[]> {
    return (this.statements.overridesQuery.all() as DeskOverrideRow[]).map(deskOverrideFromRow);
  }

  async deskChanges(limit: number, beforeSeq?: number): Promise<DeskChange[]> {
    const { newest, before } = this.statements;
    const rows = (
      beforeSeq === undefined ? newest.all(limit) : before.all(beforeSeq, limit)
    ) as DeskChangeRow[];
    return rows.map(deskChangeFromRow);
  }

  /** One process writes: its own changes are the only ones there are. */
  async watchDesk(_listener: () => void): Promise<() => Promise<void>> {
    return async () => {};
  }
}
