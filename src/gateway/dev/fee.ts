// The dev Gateway's fee, documented in docs/gateway.md: a base fee per transfer plus 0.005 % of its value,
// rounded up — Circle's published shape (a gas-covering base fee by source domain and a transfer fee in basis
// points), at figures of our own. Pure; raw units of USDC.

export interface DevFeeSchedule {
  /** Per intent, raw units. */
  baseRaw: bigint;
  /** Of the value, in millionths (50 = 0.005 %). */
  ppm: bigint;
}

export const DEV_FEE_SCHEDULE: DevFeeSchedule = { baseRaw: 10_000n, ppm: 50n };

export const devFee = (value: bigint, schedule: DevFeeSchedule = DEV_FEE_SCHEDULE): bigint =>
  schedule.baseRaw + (value * schedule.ppm + 999_999n) / 1_000_000n;
