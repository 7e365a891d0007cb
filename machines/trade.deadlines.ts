// When the runtime must next wake a trade: the earliest chain time at which a CHAIN_TIME_ADVANCED (or,
// in pending, the lock-window check) can change it. Works on a persisted { value, context } without
// restoring the actor, so restores can be lazy and still never miss a deadline.
import type { StateValue } from 'xstate';
import { tradeMachine } from './trade.machine.ts';
import type { ChainTime, TradeContext, TradeDeadline, TradeStateMeta } from './trade.types.ts';

export interface TradeSnapshotLike {
  value: StateValue;
  context: TradeContext;
}

interface StateFacts {
  metas: (TradeStateMeta | undefined)[];
  tags: ReadonlySet<string>;
}

const facts = new Map<string, StateFacts>();

/**
 * What a state value declares — its active nodes' meta and tags — which depends on the value alone, so
 * it is worked out once per state (the machine has a few dozen) rather than resolved for every snapshot.
 */
export function stateFacts(value: StateValue): StateFacts {
  const key = typeof value === 'string' ? value : JSON.stringify(value);
  let found = facts.get(key);
  if (!found) {
    const resolved = tradeMachine.resolveState({ value, context: {} as TradeContext });
    found = { metas: Object.values(resolved.getMeta()), tags: new Set(resolved.tags) };
    facts.set(key, found);
  }
  return found;
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
 * The next chain time at which the runtime must wake the trade: the state's declared deadline (it then
 * sends CHAIN_TIME_ADVANCED) or a failed effect's retry time (RETRY_EFFECT), whichever comes first; null
 * when only a chain fact, a command or a running effect can move the trade. A deadline at or before the
 * current chain time is due at once; if sending it changes nothing (pending with a lock signature,
 * waiting for the held lock to land or to be proved dropped), the runtime checks again at its own pace.
 */
export function nextDeadline(snapshot: TradeSnapshotLike): ChainTime | null {
  const deadline = earliestDeadline(stateFacts(snapshot.value).metas, snapshot.context);
  const retryAt = snapshot.context.effectError?.retryAt ?? null;
  if (retryAt === null) return deadline;
  return deadline === null ? retryAt : Math.min(deadline, retryAt);
}
