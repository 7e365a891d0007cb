// Exact ratios of raw amounts and basis points: what the aggregator's checks, the hedger, the runtime's
// sourcing and the venue's pool arithmetic all price with. Raw units throughout; no floats.

export const BPS = 10_000n;

/** A price as an exact ratio: `num / den` units of one mint per unit of the other (raw units). */
export interface Ratio {
  num: bigint;
  den: bigint;
}

/** Jupiter's otherAmountThreshold for ExactIn: floor(out × (10000 − slippageBps) / 10000). */
export function minimumOut(amountOut: bigint, slippageBps: number): bigint {
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > 10_000) {
    throw new RangeError('slippageBps must be an integer from 0 to 10000');
  }
  return (amountOut * (BPS - BigInt(slippageBps))) / BPS;
}
