// Quote pricing: what the maker pays out for an input, exactly (bigint rationals, floored in raw units).
//
// output = input × mid × (1 − σ), floored to the output's smallest unit, where σ (in bps) is
//   σ = base + C + O                    C = confidence term: ⌈conf/price⌉ in bps of each price, summed
//                                       O = option term: ⌈k·σ_leg·√T⌉ in bps of each leg, summed (option.ts)
//            + S · x / (x + H)          size term: x = input raw, H = halfSizeRaw (an order of H pays S/2)
//            + K · e / (e + A)          skew term: A = available output inventory, e = max(0, g − τ·A),
//                                       g = input × mid in output raw, τ = freeShareBps / 10000
// Both extra terms are 0 for a zero order, grow with size and saturate below their caps S and K; the
// skew term stays exactly 0 while the order would take at most τ of the available inventory.
// Why this shape and not a per-bps step rule: with any spread that rises in integer steps over the
// whole order, a slightly larger order can receive less. Here each term t = T·e/(e + c) with
// e = max(0, kx − f), f ≤ c satisfies t + x·t' ≤ T, so d/dx[x(1 − σ)] ≥ 1 − (base + S + K) ≥ 0:
// the output never falls as the input grows, provided base + C + O + S + K ≤ 10000 (checked). C and O depend
// on the prices and the pair, not on the order, so they are part of the constant base in that argument; and
// the output falls as C or O grows (a larger volatility or a longer option never pays the taker more). σ is therefore
// a rational; the reported spread_bps is σ rounded UP to whole bps, so the taker's output is never
// below what the reported spread implies (outputAtSpread(spread_bps) ≤ output ≤ outputAtSpread(⌊σ⌋)).

import { AmountError, INT64_MAX, isInt64Raw, MAX_DECIMALS, type Price } from '../money/index.ts';

const BPS = 10_000n;

export interface SizeSpread {
  /** Cap the size term approaches for very large orders. */
  maxBps: number;
  /** Input size (raw) that pays half of maxBps; configure as the pair's max input size or similar. */
  halfSizeRaw: bigint;
}

export interface InventorySkew {
  /** Cap the skew term approaches as an order would take ever more of the inventory. */
  maxBps: number;
  /** Share of the available inventory an order may take before any skew applies (0..10000 bps). */
  freeShareBps: number;
  /** Output inventory minus what open quotes and live trades reserve; below zero counts as zero. */
  availableOutputRaw: bigint;
}

export interface QuotePricingInput {
  inputRaw: bigint;
  inputDecimals: number;
  outputDecimals: number;
  /** Output display units per input display unit. */
  mid: Price;
  baseSpreadBps: number;
  /** The confidence term C: whole bps the prices' uncertainty adds, the same for every size; default 0. */
  confidenceSpreadBps?: number;
  /** The option term O: whole bps the taker's option adds, the same for every size; default 0. */
  optionSpreadBps?: number;
  sizeSpread?: SizeSpread;
  inventorySkew?: InventorySkew;
}

export interface PricedQuote {
  outputRaw: bigint;
  /** σ rounded up to whole bps, within baseSpreadBps..10000. */
  spreadBps: number;
}

function assertBps(name: string, bps: number): void {
  if (!Number.isInteger(bps) || bps < 0 || bps > 10_000) {
    throw new RangeError(`${name} must be an integer 0..10000, got ${bps}`);
  }
}

function assertLeg(inputRaw: bigint, inputDecimals: number, outputDecimals: number, mid: Price): void {
  for (const d of [inputDecimals, outputDecimals]) {
    if (!Number.isInteger(d) || d < 0 || d > MAX_DECIMALS)
      throw new RangeError(`decimals must be 0..18, got ${d}`);
  }
  if (mid.num <= 0n || mid.den <= 0n)
    throw new RangeError(`mid must be a positive rational, got ${mid.num}/${mid.den}`);
  if (!isInt64Raw(inputRaw))
    throw new AmountError('out_of_range', `input ${inputRaw} is outside 0..${INT64_MAX}`);
}

/** The mid converted to raw units on both sides: output raw per input raw = num / den. */
const rawMid = (inputDecimals: number, outputDecimals: number, mid: Price) => ({
  num: mid.num * 10n ** BigInt(outputDecimals),
  den: mid.den * 10n ** BigInt(inputDecimals),
});

/** floor(input × mid) in output raw: the value at mid, an upper bound for every quote. */
export function midOutputRaw(
  inputRaw: bigint,
  inputDecimals: number,
  outputDecimals: number,
  mid: Price,
): bigint {
  assertLeg(inputRaw, inputDecimals, outputDecimals, mid);
  const m = rawMid(inputDecimals, outputDecimals, mid);
  return (inputRaw * m.num) / m.den;
}

/** The quote formula (docs/quotes-and-ledger.md#pricing) with a whole-bps spread: floor(input × mid × (10000 − spreadBps) / 10000) in output raw. */
export function outputAtSpread(
  inputRaw: bigint,
  inputDecimals: number,
  outputDecimals: number,
  mid: Price,
  spreadBps: number,
): bigint {
  assertLeg(inputRaw, inputDecimals, outputDecimals, mid);
  assertBps('spreadBps', spreadBps);
  const m = rawMid(inputDecimals, outputDecimals, mid);
  return (inputRaw * m.num * (BPS - BigInt(spreadBps))) / (m.den * BPS);
}

/** T·e/(e + c) as a fraction; 0/1 when e = 0 so an empty order or an empty reference never divides by 0. */
const saturating = (capBps: number, e: bigint, c: bigint) =>
  e === 0n ? { num: 0n, den: 1n } : { num: BigInt(capBps) * e, den: e + c };

export function priceQuote(input: QuotePricingInput): PricedQuote {
  const { inputRaw: x, inputDecimals, outputDecimals, mid, sizeSpread, inventorySkew } = input;
  assertLeg(x, inputDecimals, outputDecimals, mid);
  assertBps('baseSpreadBps', input.baseSpreadBps);
  assertBps('confidenceSpreadBps', input.confidenceSpreadBps ?? 0);
  assertBps('optionSpreadBps', input.optionSpreadBps ?? 0);
  const baseSpreadBps = input.baseSpreadBps + (input.confidenceSpreadBps ?? 0) + (input.optionSpreadBps ?? 0);
  const sizeCap = sizeSpread?.maxBps ?? 0;
  const skewCap = inventorySkew?.maxBps ?? 0;
  assertBps('sizeSpread.maxBps', sizeCap);
  assertBps('inventorySkew.maxBps', skewCap);
  if (baseSpreadBps + sizeCap + skewCap > 10_000) {
    // Beyond 100% the output could shrink as the order grows; refuse such a configuration outright.
    throw new RangeError(`base + confidence + option + size + skew spread caps must not exceed 10000 bps`);
  }
  const m = rawMid(inputDecimals, outputDecimals, mid);

  let size = { num: 0n, den: 1n };
  if (sizeSpread !== undefined) {
    if (sizeSpread.halfSizeRaw <= 0n) throw new RangeError('sizeSpread.halfSizeRaw must be > 0');
    size = saturating(sizeCap, x, sizeSpread.halfSizeRaw);
  }

  let skew = { num: 0n, den: 1n };
  if (inventorySkew !== undefined) {
    assertBps('inventorySkew.freeShareBps', inventorySkew.freeShareBps);
    const available = inventorySkew.availableOutputRaw > 0n ? inventorySkew.availableOutputRaw : 0n;
    // Everything scaled by 10000·m.den so the gross output g = x·m.num/m.den and τ·A stay integers
    // (g unfloored: a floored g would make σ step and break monotonicity by a raw unit).
    const gross = BPS * x * m.num;
    const free = BigInt(inventorySkew.freeShareBps) * available * m.den;
    const excess = gross > free ? gross - free : 0n;
    skew = saturating(skewCap, excess, BPS * available * m.den);
  }

  // σ = N / D in bps.
  const D = size.den * skew.den;
  const N = BigInt(baseSpreadBps) * D + size.num * skew.den + skew.num * size.den;
  const outputRaw = (x * m.num * (BPS * D - N)) / (m.den * BPS * D);
  if (outputRaw > INT64_MAX) {
    throw new AmountError(
      'out_of_range',
      `quoted output ${outputRaw} raw exceeds the int64 maximum ${INT64_MAX}`,
    );
  }
  return { outputRaw, spreadBps: Number((N + D - 1n) / D) };
}
