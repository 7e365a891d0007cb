// The option term of the spread: what the taker's right to walk away is worth to it. Between settlement
// start and the maker's expiry the taker decides whether to lock and then whether to reveal its secret,
// knowing the market meanwhile: it holds an option on the pair for up to T = lock window + the pair's maker
// timelock. An at-the-money option is worth about S · σ√T / √(2π) ≈ 0.4 · σ√T of the notional (Black–Scholes
// for a short expiry), so each leg adds k · σ · √T, k = 0.4 by default.
//
// Per leg, each with its own σ, summed: the pair's relative price has σ_pair ≤ σ_in + σ_out whatever the two
// assets' correlation, so the sum never underprices the option and needs no correlation estimate; it
// overprices a pair of correlated assets (JUP/SOL), which the cap per leg bounds. A stablecoin leg adds
// about nothing.
//
// σ is a float (it is not an amount); the term is a whole number of bps, rounded up, so the arithmetic on
// amounts stays exact bigint and a quote's spread is a deterministic integer.

export interface OptionTermInput {
  /** The leg's volatility, σ per √second; 0 (or unknown) adds nothing. */
  sigmaPerSqrtSecond: number;
  /** T: the longest the taker holds the option, in seconds. */
  windowSeconds: number;
  k: number;
  /** Cap of the leg's term. */
  maxBps: number;
}

/** ⌈k · σ · √T · 10000⌉ bps, at most maxBps; 0 for σ, T or k that is not positive. */
export function optionTermBps({ sigmaPerSqrtSecond, windowSeconds, k, maxBps }: OptionTermInput): number {
  if (!(sigmaPerSqrtSecond > 0) || !(windowSeconds > 0) || !(k > 0) || maxBps <= 0) return 0;
  const bps = Math.ceil(k * sigmaPerSqrtSecond * Math.sqrt(windowSeconds) * 10_000);
  return Number.isFinite(bps) ? Math.min(maxBps, bps) : maxBps;
}
