// Pure rules the trade machine's guards and the runtime share: timing (docs/lifecycle.md#expiries), lock terms,
// and the signature list. No I/O, no clock: time always comes in.
import { sameHash32, type TradeSignatureKind } from '../src/vocabulary/index.ts';
import type { ChainTime, TakerLockTerms, TradeContext, TradeSignature } from './trade.types.ts';

/** maker_expiry = min(now + maker timelock, taker_expiry − safety margin). */
export function plannedMakerExpiry(
  context: Pick<TradeContext, 'makerTimelock' | 'takerExpiry' | 'safetyMargin'>,
  now: ChainTime,
): ChainTime {
  return Math.min(now + context.makerTimelock, context.takerExpiry - context.safetyMargin);
}

/** The maker locks only if the maker expiry still leaves the taker its minimum redeem window. */
export function leavesMinRedeemWindow(
  context: Pick<TradeContext, 'makerTimelock' | 'takerExpiry' | 'safetyMargin' | 'minRedeemWindow'>,
  now: ChainTime,
): boolean {
  return plannedMakerExpiry(context, now) - now >= context.minRedeemWindow;
}

/** redeem_by: the last moment a taker redeem is accepted (maker expiry − landing margin). */
export function redeemBy(context: Pick<TradeContext, 'makerExpiry' | 'landingMargin'>): ChainTime | null {
  return context.makerExpiry === null ? null : context.makerExpiry - context.landingMargin;
}

/** `agreed` is the trade's own amount (always canonical digits); `seen` is read off the chain. */
function sameRawAmount(seen: string, agreed: string): boolean {
  return /^\d+$/.test(seen) && BigInt(seen) === BigInt(agreed);
}

/** A taker lock is this trade's only with exactly the agreed terms. */
export function lockTermsMatch(context: TradeContext, terms: TakerLockTerms): boolean {
  return (
    terms.escrow === context.takerEscrow &&
    terms.initializer === context.takerWallet &&
    terms.recipient === context.makerWallet &&
    terms.mint === context.inputMint &&
    sameRawAmount(terms.amountRaw, context.inputAmountRaw) &&
    sameHash32(terms.hashlock, context.secretHash) &&
    terms.expiry === context.takerExpiry &&
    terms.lockDeadline === context.lockDeadline
  );
}

export function hasSignature(context: Pick<TradeContext, 'signatures'>, kind: TradeSignatureKind): boolean {
  return context.signatures.some((s) => s.kind === kind);
}

/** Appends in landing order; the same movement reported twice (effect and watcher) is kept once. */
export function withSignature(
  signatures: readonly TradeSignature[],
  kind: TradeSignatureKind,
  signature: string,
): TradeSignature[] {
  return signatures.some((s) => s.kind === kind && s.signature === signature)
    ? [...signatures]
    : [...signatures, { kind, signature }];
}

/** Funds may still sit in the maker escrow: a lock landed and nothing took it out, or a lock may land. */
export function makerEscrowMayHoldFunds(context: TradeContext): boolean {
  const settled = hasSignature(context, 'taker_redeem') || hasSignature(context, 'maker_refund');
  if (hasSignature(context, 'maker_lock')) return !settled;
  return context.makerLockIntent !== null && !context.makerLockIntent.lapsed;
}

/** The taker escrow holds the taker's funds: locked, and neither refunded nor paid to the maker yet. */
export function takerEscrowHoldsFunds(context: Pick<TradeContext, 'signatures'>): boolean {
  return (
    hasSignature(context, 'taker_lock') &&
    !hasSignature(context, 'taker_refund') &&
    !hasSignature(context, 'maker_redeem')
  );
}

/** The maker's lock landed and nothing has taken it out of the maker escrow yet. */
export function makerEscrowUnsettled(context: Pick<TradeContext, 'signatures'>): boolean {
  return (
    hasSignature(context, 'maker_lock') &&
    !hasSignature(context, 'taker_redeem') &&
    !hasSignature(context, 'maker_refund')
  );
}

/** No maker lock can land any more: none was signed, or the one sent is proved lapsed. */
export function noMakerLockCanLand(context: TradeContext): boolean {
  return (
    !hasSignature(context, 'maker_lock') &&
    (context.makerLockIntent === null || context.makerLockIntent.lapsed)
  );
}

/**
 * Effect retries back off exponentially in chain seconds (1, 2, 4 … capped at a minute) with up to 25 %
 * jitter, so a chain outage does not turn into a synchronized retry storm. After `visibleAfterAttempts`
 * consecutive failures the trade is flagged to operators (runtime views) rather than retrying silently.
 */
export const EFFECT_RETRY = { firstDelaySeconds: 1, maxDelaySeconds: 60, visibleAfterAttempts: 5 } as const;

/**
 * Seconds to wait after the `attempts`-th consecutive failure. The jitter is a pure function of the trade
 * and the attempt (FNV-1a), so the machine stays deterministic and replayable.
 */
export function effectRetryDelay(attempts: number, tradeId: string): number {
  const exponent = Math.max(0, Math.min(attempts - 1, 30));
  const base = Math.min(EFFECT_RETRY.maxDelaySeconds, EFFECT_RETRY.firstDelaySeconds * 2 ** exponent);
  let hash = 0x811c9dc5;
  for (const char of `${tradeId}#${attempts}`) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  const jitter = (hash % 1000) / 4000; // 0 … 0.25
  return Math.max(1, Math.round(base * (1 + jitter)));
}
