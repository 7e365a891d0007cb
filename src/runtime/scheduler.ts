// Deadlines from an index: each trade's wake time (its state's deadline, or its failed effect's retry time)
// is a column of the store with an index over the run's unclosed trades, so the runtime never scans trades
// to find what is due. Each tick asks for the earliest wake time; only when chain time may have reached it
// does it read the chain's clock and wake the due trades: their escrows read in one batch first (a
// deadline is never judged on a stale view of the escrows), then CHAIN_TIME_ADVANCED / RETRY_EFFECT.
import { nextDeadline } from '../../machines/index.ts';
import type { GroupCommit, OwnedTrades } from '../store/index.ts';
import type { ChainClock } from './clock.ts';
import type { TradeHandle, TradeHost } from './host.ts';
import type { RuntimeLogger } from './logger.ts';
import type { ChainWatcher, Readings } from './watcher.ts';

/** Trades woken per query (and concurrently, up to this many). */
const DUE_BATCH = 128;

/**
 * Chain time reached `now`: the deadline event and a due effect retry, for the machine's guards to judge —
 * again while that moved the trade into a state whose own deadline is already due (pending → failed, then
 * the failed trade's lock window is over too).
 */
export function advance(trade: TradeHandle, now: number): void {
  for (let step = 0; step < 4 && !trade.closed; step++) {
    const before = trade.snapshot;
    const due = nextDeadline(before);
    if (due !== null && now >= due) trade.send({ type: 'CHAIN_TIME_ADVANCED', now });
    const retryAt = trade.context.effectError?.retryAt ?? null;
    if (retryAt !== null && now >= retryAt) trade.send({ type: 'RETRY_EFFECT', now });
    if (trade.snapshot === before) return;
  }
}

/**
 * advance(), for a trade whose escrows were just read (`readings`, at chain time `now` of that reading): a
 * lock that came and went while no run watched (see ChainWatcher.unseenLock) is looked for before the
 * deadline fails the trade, and taken after, as a late lock the trade then releases.
 */
export async function advanceRead(
  trade: TradeHandle,
  watcher: ChainWatcher,
  readings: Readings,
  now: number,
): Promise<void> {
  const unseen = await watcher.unseenLock(trade, readings, now);
  advance(trade, now);
  if (trade.status === 'failed') for (const fact of unseen) trade.send(fact);
}

export interface SchedulerOptions {
  /** The trades of the run it wakes (their wake times). */
  trades: Pick<OwnedTrades, 'dueTrades' | 'earliestWake'>;
  /** The run whose trades it wakes. */
  runId: string;
  durable: GroupCommit;
  host: TradeHost;
  watcher: ChainWatcher;
  clock: ChainClock;
  log: RuntimeLogger;
  /** A deadline that changed nothing when due (e.g. waiting for a held lock to be proved dropped) is
   * looked at again after this many chain seconds. */
  recheckSeconds: number;
}

export class DeadlineScheduler {
  private readonly waking = new Set<string>();

  constructor(private readonly options: SchedulerOptions) {}

  /** Wakes every trade whose time has come; reads the chain clock only when one may have. */
  async wakeDue(): Promise<void> {
    const { trades, clock } = this.options;
    const earliest = await trades.earliestWake();
    if (earliest === null) return;
    const known = clock.fresh();
    const now = known !== null && clock.estimate() + 1 < earliest ? clock.estimate() : await clock.read();
    if (now < earliest) return;
    for (;;) {
      const due = (await trades.dueTrades(now, DUE_BATCH)).filter((id) => !this.waking.has(id));
      if (due.length === 0) return;
      await this.wake(due, now);
      if (due.length < DUE_BATCH) return;
      // The batch's new wake times (moved on, or re-armed) must be on disk before the next query, else the
      // same batch is due again and woken twice.
      await this.options.durable.barrier();
    }
  }

  private async wake(tradeIds: string[], now: number): Promise<void> {
    const { host, watcher, durable, log, runId } = this.options;
    for (const id of tradeIds) this.waking.add(id);
    try {
      const read = await watcher.read(tradeIds);
      const { readings } = read;
      // Deadlines are judged by the clock of the (finalized) reading the escrows come from, never by a
      // later one: a lock still short of finality at the deadline is not taken for absent.
      const at = read.now === null ? now : Math.min(now, read.now);
      await Promise.all(
        tradeIds.map((tradeId) =>
          host
            .use(tradeId, async (trade) => {
              await watcher.observe(trade, { readings });
              const before = trade.snapshot;
              await advanceRead(trade, watcher, readings, at);
              // The trade is observed in its new state from the same reading, not read again.
              if (trade.snapshot !== before && !trade.closed) await watcher.observe(trade, { readings });
              // Still due after being told: nothing can change it before chain time moves on.
              const again = trade.closed ? null : nextDeadline(trade.snapshot);
              if (again !== null && again <= now) {
                const later = now + this.options.recheckSeconds;
                void durable.write({ kind: 'setWake', tradeId, runId, at: later }).catch(() => undefined);
              }
            })
            .catch((error: unknown) => {
              log.warn({ trade_id: tradeId, err: (error as Error).message }, 'waking a due trade failed');
              const at = now + this.options.recheckSeconds;
              void durable.write({ kind: 'setWake', tradeId, runId, at }).catch(() => undefined);
            }),
        ),
      );
    } finally {
      for (const id of tradeIds) this.waking.delete(id);
    }
  }
}
