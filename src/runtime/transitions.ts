// A stored transition of a trade, as the actor host tells its listeners (metrics, the hedger, the log) once
// the transition's commit is durable, and the listener that logs what an operator must see of it.
import type { TradeContext } from '../../machines/index.ts';
import type { SettlementStatus } from '../vocabulary/index.ts';
import type { RuntimeLogger } from './logger.ts';

/** A stored transition, as the host sees it before it updates its own view of the trade. */
export interface TradeTransition {
  tradeId: string;
  /** The machine event that caused it (xstate.error.actor.<effect> when an effect failed). */
  event: string;
  from: SettlementStatus;
  to: SettlementStatus;
  substate: string;
  context: Pick<TradeContext, 'alert' | 'effectError' | 'assessment' | 'inputMint' | 'outputMint'> &
    Partial<Pick<TradeContext, 'tradeId' | 'failureReason' | 'takerLockConfirmedOnly'>>;
  /** The maker-loss alert was raised for this trade before. */
  alertedBefore: boolean;
  /** When the trade was created (settlement start), ISO. */
  createdAt: string;
}

export type TransitionListener = (transition: TradeTransition) => void;

/** Attempts of one effect after which every further failure is logged as a warning. */
const EFFECT_FAILING_ATTEMPTS = 5;

/**
 * The runtime log's lines about transitions: each status change, the maker-loss alert once (at error level,
 * where alerting on logs looks), and an effect that keeps failing at every failed attempt from the fifth.
 */
export function transitionLog(log: RuntimeLogger): TransitionListener {
  return ({ tradeId, from, to, substate, context, alertedBefore }) => {
    if (from !== to) log.info({ trade_id: tradeId, from, to, substate }, 'trade status');
    if (context.alert && !alertedBefore) {
      log.error({ trade_id: tradeId, reason: context.failureReason }, 'ALERT: maker lost funds');
    }
    const failing = context.effectError;
    if (failing && failing.attempts >= EFFECT_FAILING_ATTEMPTS && failing.retryAt !== null) {
      log.warn(
        { trade_id: tradeId, effect: failing.effect, attempts: failing.attempts },
        `effect failing: ${failing.message}`,
      );
    }
  };
}
