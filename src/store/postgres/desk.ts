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
  deskChangeFromRow,
  deskChangeRow,
  deskOverrideFromRow,
  type NewDeskChange,
} from '../desk.ts';

/** Within the batch's transaction: each change logged, its override set or removed. */
export async function changeDesk(client: pg.ClientBase, changes: readonly NewDeskChange[]): Promise<void> {
  for (const change of changes) {
    const row = deskChangeRow(change);
    const { rows } = await client.query<{ seq: number | string }>(
      `INSERT INTO desk_changes (at, actor, run_id, target, field, before_value, after_value, override_value)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING seq`,
      [
        row.at,
        row.actor,
        row.run_id,
        row.target,
        row.field,
        row.before_value,
        row.after_value,
        row.override_value,
      ],
    );
    const seq = rows[0]?.seq;
    if (row.override_value === null) {
      await client.query('DELETE FROM desk_overrides WHERE target = $1 AND field = $2', [
        change.target,
        change.field,
      ]);
    } else {
      await client.query(
        `INSERT INTO desk_overrides (target, field, value, change_seq) VALUES ($1, $2, $3, $4)
         ON CONFLICT (target, field) DO UPDATE SET value = excluded.value, change_seq = excluded.change_seq`,
        [change.target, change.field, row.override_value, seq],
      );
    }
  }
}

export async function deskOverrides(pool: pg.Pool): Promise<DeskOverride[]> {
  const { rows } = await pool.query<DeskOverrideRow>(DESK_OVERRIDES_QUERY);
  return rows.map(deskOverrideFromRow);
}

export async function deskChanges(pool: pg.Pool, limit: number, beforeSeq?: number): Promise<DeskChange[]> {
  const { rows } =
    beforeSeq === undefined
      ? await pool.query<DeskChangeRow>('SELECT * FROM desk_changes ORDER BY seq DESC LIMIT $1', [limit])
      : await pool.query<DeskChangeRow>(
          'SELECT * FROM desk_changes WHERE seq < $1 ORDER BY seq DESC LIMIT $2',
          [beforeSeq, limit],
        );
  return rows.map(deskChangeFromRow);
}
