// The fence of a trade's writes on PostgreSQL: a write names the run writing it, and its own statement
// refuses it unless that run owns the trade and its lease lives (the row it writes, or locks, stays locked
// until the commit, so no claim can overtake it). When a fenced write changed nothing, refused says why.
import { StoreConflict } from '../writes.ts';
import { isLive, type Queryable, runner } from './sql.ts';

/** The fence of a write of trade $1 by run $2, as a condition on `trades t`. */
export const FENCE = `t.trade_id = $1 AND t.owner_run_id = $2 AND ${isLive('$2')}`;

const SQL = {
  /** Why a fenced write changed nothing: the trade is missing, closed, or someone else's. */
  tradeState: 'SELECT closed FROM trades WHERE trade_id = $1',
} as const;

export const FENCE_STATEMENTS = SQL;
const run = runner(SQL);

/**
 * A fenced write changed nothing: says why (after the fact, only to choose the error — the write itself
 * decided in its own statement). Trades are never deleted nor reopened, so the answer cannot go stale.
 */
export async function refused(
  client: Queryable,
  tradeId: string,
  runId: string,
  allowed: { unknown?: 'ok'; closed?: 'ok' } = {},
): Promise<void> {
  const [row] = (await run<{ closed: boolean }>(client, 'tradeState', [tradeId])).rows;
  if (row === undefined) {
    if (allowed.unknown === 'ok') return;
    throw new Error(`trade ${tradeId} does not exist`);
  }
  if (row.closed && allowed.closed === 'ok') return;
  throw new StoreConflict('fenced', `run ${runId} does not own trade ${tradeId}, or its lease lapsed`);
}
