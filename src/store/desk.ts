// The desk's live settings as the store keeps them (src/control/): the overrides an operator set over the
// config file's pair, hedging and sourcing settings, one row per (target, field), and every change made to
// them, in order, with who made it and the values before and after. Values are JSON, written and read back
// as the exact text. The repository's port and its write, then the row mapping both engines share.

/** A change to be recorded: the override it leaves (null: none, the config file's value applies again). */
export interface NewDeskChange {
  at: string;
  /** The operator token's name the change was made with. */
  actor: string;
  /** The run (instance) that made it. */
  runId: string;
  /** `desk`, `pair:<IN>-<OUT>` or `hedging:<ASSET>`. */
  target: string;
  field: string;
  /** The value in force before and after, as the desk's view shows it. */
  before: unknown;
  after: unknown;
  override: unknown;
}

/** A recorded change: its place in the log (seq, ascending). */
export interface DeskChange extends NewDeskChange {
  seq: number;
}

/** An override in force, with the change that set it. */
export interface DeskOverride {
  target: string;
  field: string;
  value: unknown;
  seq: number;
  at: string;
  actor: string;
}

export type DeskWrite =
  /**
   * Operator changes to the desk's live settings, in order: each recorded in the change log, and the
   * override it leaves set (or removed, when null) — all or nothing. PostgreSQL notifies the other instances
   * with the commit (watchDesk).
   */
  { kind: 'changeDesk'; changes: NewDeskChange[] };

/** The overrides in force over the config file, and the log of every change made to them (changeDesk). */
export interface DeskRepository {
  /** The overrides in force, each with the change that set it, by target and field. */
  deskOverrides(): Promise<DeskOverride[]>;
  /** The change log, newest first: up to `limit` changes, those before `beforeSeq` when given. */
  deskChanges(limit: number, beforeSeq?: number): Promise<DeskChange[]>;
  /**
   * Calls the listener whenever another process committed a change to the desk's settings (PostgreSQL:
   * LISTEN/NOTIFY on commit). SQLite: never (one process). Resolves once listening; the function it gives
   * stops it.
   */
  watchDesk(listener: () => void): Promise<() => Promise<void>>;
}

export interface DeskChangeRow {
  seq: number | string;
  at: string;
  actor: string;
  run_id: string;
  target: string;
  field: string;
  before_value: string;
  after_value: string;
  override_value: string | null;
}

export interface DeskOverrideRow {
  target: string;
  field: string;
  value: string;
  change_seq: number | string;
  at: string;
  actor: string;
}

/** The columns of a change's row, in the order both engines insert them. */
export function deskChangeRow(change: NewDeskChange) {
  return {
    at: change.at,
    actor: change.actor,
    run_id: change.runId,
    target: change.target,
    field: change.field,
    before_value: JSON.stringify(change.before ?? null),
    after_value: JSON.stringify(change.after ?? null),
    override_value: change.override === null ? null : JSON.stringify(change.override),
  };
}

export function deskChangeFromRow(row: DeskChangeRow): DeskChange {
  return {
    seq: Number(row.seq),
    at: row.at,
    actor: row.actor,
    runId: row.run_id,
    target: row.target,
    field: row.field,
    before: JSON.parse(row.before_value),
    after: JSON.parse(row.after_value),
    override: row.override_value === null ? null : JSON.parse(row.override_value),
  };
}

export function deskOverrideFromRow(row: DeskOverrideRow): DeskOverride {
  return {
    target: row.target,
    field: row.field,
    value: JSON.parse(row.value),
    seq: Number(row.change_seq),
    at: row.at,
    actor: row.actor,
  };
}

/** The overrides with the change that set each, by target and field. */
export const DESK_OVERRIDES_QUERY = `
  SELECT o.target, o.field, o.value, o.change_seq, c.at, c.actor
  FROM desk_overrides o JOIN desk_changes c ON c.seq = o.change_seq
  ORDER BY o.target, o.field`;
