// The priority fee of a maker transaction: the configured base while its deadline is far, rising
// geometrically to the configured cap over the last `rampSeconds` before it — a congested cluster gets
// outbid only when a transaction must land soon (a maker lock before its lock deadline, a redeem before the
// escrow's expiry), never beyond what the operator allowed.

export interface PriorityFeePolicy {
  /** Micro-lamports per compute unit far from any deadline (0: no compute-budget instructions at all). */
  baseMicroLamports: number;
  /** The most it may rise to at a deadline. */
  maxMicroLamports: number;
  /** How long before a deadline the fee starts to rise. */
  rampSeconds: number;
  /** Compute-unit limit set with the price. */
  unitLimit: number;
}

/** What the caller knows of the transaction's urgency: seconds until it must have landed, if it must. */
export interface SignOptions {
  secondsLeft?: number;
}

/**
 * base · (max / base)^u, u = how far into the ramp the deadline is (0 … 1), floored to a whole
 * micro-lamport: base without a deadline or before the ramp, max at (or past) the deadline, never outside.
 */
export function priorityFeeFor(policy: PriorityFeePolicy, secondsLeft?: number): number {
  const { baseMicroLamports: base, maxMicroLamports: max, rampSeconds } = policy;
  if (base <= 0 || secondsLeft === undefined || !Number.isFinite(secondsLeft) || max <= base) return base;
  const into = rampSeconds <= 0 ? 1 : 1 - secondsLeft / rampSeconds;
  const u = Math.min(1, Math.max(0, into));
  return Math.min(max, Math.max(base, Math.floor(base * (max / base) ** u)));
}
