// The desk's live settings on SQLite (the reference for their meaning): a change is a row in the log, and
// the override it leaves set (or removed) names it.
import type Database from 'better-sqlite3';
import {
  DESK_OVERRIDES_QUERY,
  type DeskChange,
  type DeskChangeRow,
  type DeskOverride,
  type DeskOverrideRow,
  deskChangeFromRow,
  deskChangeRow,
  deskOverrideFromRow,
  type NewDeskChange,
} from '../desk.ts';

export class SqliteDesk {
  private readonly insert: Database.Statement;
  private readonly setOverride: Database.Statement;
  private readonly dropOverride: Database.Statement;
  private readonly overridesQuery: Database.Statement;
  private readonly newest: Database.Statement;
  private readonly before: Database.Statement;

  constructor(db: Database.Database) {
    this.insert = db.prepare(`
      INSERT INTO desk_changes (at, actor, run_id, target, field, before_value, after_value, override_value)
      VALUES (@at, @actor, @run_id, @target, @field, @before_value, @after_value, @override_value)`);
    this.setOverride = db.prepare(`
      INSERT INTO desk_overrides (target, field, value, change_seq) VALUES (@target, @field, @value, @seq)
      ON CONFLICT (target, field) DO UPDATE SET value = excluded.value, change_seq = excluded.change_seq`);
    this.dropOverride = db.prepare('DELETE FROM desk_overrides WHERE target = ? AND field = ?');
    this.overridesQuery = db.prepare(DESK_OVERRIDES_QUERY);
    this.newest = db.prepare('SELECT * FROM desk_changes ORDER BY seq DESC LIMIT ?');
    this.before = db.prepare('SELECT * FROM desk_changes WHERE seq < ? ORDER BY seq DESC LIMIT ?');
  }

  /** Within the caller's transaction: each change logged, its override set or removed. */
  change(changes: readonly NewDeskChange[]): void {
    for (const change of changes) {
      const row = deskChangeRow(change);
      const seq = Number(this.insert.run(row).lastInsertRowid);
      if (row.override_value === null) this.dropOverride.run(change.target, change.field);
      else
        this.setOverride.run({ target: change.target, field: change.field, value: row.override_value, seq });
    }
  }

  overrides(): DeskOverride[] {
    return (this.overridesQuery.all() as DeskOverrideRow[]).map(deskOverrideFromRow);
  }

  changes(limit: number, beforeSeq?: number): DeskChange[] {
    const rows = (
      beforeSeq === undefined ? this.newest.all(limit) : this.before.all(beforeSeq, limit)
    ) as DeskChangeRow[];
    return rows.map(deskChangeFromRow);
  }
}
