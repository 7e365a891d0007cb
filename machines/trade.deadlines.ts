// When the runtime must next wake a trade: the earliest chain time at which a CHAIN_TIME_ADVANCED (or,
// in pending, the lock-window check) can change it. Works on a persisted { value, context } without
// restoring the actor, so restores can be lazy and still never miss a deadline.
import type { StateValue } from 'xstate';
import { type TradeDeadline, type TradeStateMeta, tradeMachine } from './trade.machine.ts';
import type { ChainTime, TradeContext } from './trade.types.ts';

export interface TradeSnapshotLike {
  value: StateValue;
  context: TradeContext;
}

/** The chain time a state's declared deadline falls due (guards: `now > lockDeadline`, `now ≥ expiry`). */
export function deadlineTime(deadline: TradeDeadline, context: TradeContext): ChainTime | null {
  switch (deadline) {
    case 'lockWindowEnd':
      return context.lockDeadline + 1;
    case 'makerExpiry':
      return context.makerExpiry;
    case 'takerExpiry':
      return context.takerExpiry;
    case 'lateLockExpiry':
      return context.takerLockTerms?.expiry ?? null;
  }
}

/**
 * The earliest chain time among the deadlines the active state nodes declare, or null when none does.
 * Today at most one active node declares one (no parallel regions, no nested deadlines); taking the
 * minimum keeps a future nested deadline from being woken late.
 */
export function earliestDeadline(
  metas: readonly (TradeStateMeta | undefined)[],
  context: TradeContext,
): ChainTime | null {
  const times = metas
    .map((meta) => (meta?.wakeAt === undefined ? null : deadlineTime(meta.wakeAt, context)))
    .filter((at) => at !== null);
  return times.length === 0 ? null : Math.min(...times);
}

/**
 * The next chain time at which the runtime must send CHAIN_TIME_ADVANCED, or null when only a chain
 * fact, a command or an effect can move the trade. A deadline at or before the current chain time is
 * due at once; if sending it changes nothing (pending with a lock signature, waiting for the held lock
 * to land or to be proved dropped), the runtime polls the chain at its own interval.
 */
export function nextDeadline(snapshot: TradeSnapshotLike): ChainTime | null {
  const resolved = tradeMachine.resolveState({ value: snapshot.value, context: snapshot.context });
  return earliestDeadline(Object.values(resolved.getMeta()), snapshot.context);
}
