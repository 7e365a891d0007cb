// A price series' volatility, estimated from the prices the service already reads: an exponentially
// weighted mean of squared log returns per second, weighted by time (docs/quotes-and-ledger.md#volatility).
//
// Each new publish of a feed (a publish time later than the last one seen) is a sample x = r² / Δt, where
// r = ln(p / p_prev) and Δt the seconds between the two publish times: for a price that moves as a random
// walk, E[x] = σ² whatever the spacing, so irregular publishes (Pyth's sponsored feeds push on a heartbeat
// or on a 0.5 % move) and a refresh that skips publishes in between still estimate the same σ². The sample
// enters with weight 1 − λ, λ = 2^(−Δt / half-life): older samples fade by half every half-life of time, not
// of samples. The estimate is the weighted mean S / W (W the same recursion over 1s), so the first samples
// after a start are an average rather than an estimate pulled toward zero.
//
// σ is a float: it is not an amount. Units: σ per √second (σ² per second); annualised for people with
// √(seconds in a Julian year).

/** Seconds in a Julian year (365.25 days): what an annual volatility is scaled with. */
export const SECONDS_PER_YEAR = 31_557_600;

/** σ per √second as an annual volatility (0.8 = 80 %). */
export const annualised = (perSqrtSecond: number): number => perSqrtSecond * Math.sqrt(SECONDS_PER_YEAR);

/** σ per √second from an annual volatility. */
export const perSqrtSecond = (annual: number): number => annual / Math.sqrt(SECONDS_PER_YEAR);

/** ln of an integer price scaled by 10^exponent (the exponent cancels in a return, unless it changes). */
export const logPrice = (price: bigint, exponent: number): number =>
  Math.log(Number(price)) + exponent * Math.LN10;

export class VolatilityEstimate {
  private lastTime: number | null = null;
  private lastLog = 0;
  private weighted = 0;
  private weight = 0;

  constructor(private readonly halfLifeSeconds: number) {
    if (!(halfLifeSeconds > 0)) throw new RangeError(`half-life must be positive, got ${halfLifeSeconds}`);
  }

  /**
   * A price published at `time` (unix seconds), as ln(price): a sample when it is later than the last price
   * seen; the same publish read again (or an older one) changes nothing.
   */
  observe(time: number, log: number): void {
    if (!Number.isFinite(log)) return;
    if (this.lastTime === null) {
      this.lastTime = time;
      this.lastLog = log;
      return;
    }
    const dt = time - this.lastTime;
    if (!(dt > 0)) return;
    const r = log - this.lastLog;
    const decay = 2 ** (-dt / this.halfLifeSeconds);
    this.weighted = decay * this.weighted + (1 - decay) * ((r * r) / dt);
    this.weight = decay * this.weight + (1 - decay);
    this.lastTime = time;
    this.lastLog = log;
  }

  /** σ per √second; null before a second price was seen. */
  get perSqrtSecond(): number | null {
    return this.weight > 0 ? Math.sqrt(this.weighted / this.weight) : null;
  }
}
