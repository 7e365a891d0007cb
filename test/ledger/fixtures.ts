// Small factories for ledger tests: the assets of a SOL/USDC trade, their prices, and whole swaps
// posted movement by movement, as the runtime posts them.
import {
  type AssetPricing,
  type EscrowMovement,
  type LedgerEntry,
  postMovement,
  postNetworkFee,
} from '../../src/ledger/index.ts';
import { type Price, parsePrice } from '../../src/money/index.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';

/** An 18-decimal token (an EVM-bridged asset), for exactness at the widest scale. */
export const WIDE_MINT = 'Wide18Dec1111111111111111111111111111111111';

export const USD_1: Price = { num: 1n, den: 1n };

export const pricing = (
  entries: readonly (readonly [mint: string, usd: string, decimals: number])[],
): Map<string, AssetPricing> =>
  new Map(entries.map(([mint, usd, decimals]) => [mint, { usd: parsePrice(usd), decimals }]));

/** SOL at $187.42 and USDC at $1, the quote's prices in most examples. */
export const SOL_USDC_PRICING = pricing([
  [SOL_MINT, '187.42', 9],
  [USDC_MINT, '1', 6],
]);

export type Movement = EscrowMovement;

/** One posting of the runtime: a movement of funds, or a fee the maker paid. */
export type Posting =
  | { kind: 'movement'; movement: Movement; signature: string; mint: string; amountRaw: bigint }
  | { kind: 'fee'; signature: string; lamports: bigint };

export const post = (posting: Posting): LedgerEntry[] =>
  posting.kind === 'fee'
    ? postNetworkFee(posting.signature, posting.lamports)
    : postMovement(posting.movement, posting.signature, posting.mint, posting.amountRaw);

export const postAll = (postings: readonly Posting[]): LedgerEntry[] => postings.flatMap(post);

export interface SwapTerms {
  inputMint: string;
  inputRaw: bigint;
  outputMint: string;
  outputRaw: bigint;
  /** Lamports of each transaction the maker paid for. */
  fees: readonly bigint[];
}

const feePostings = (fees: readonly bigint[]): LedgerEntry[] =>
  fees.flatMap((lamports, i) => postNetworkFee(`sig-fee-${i}`, lamports));

/** Taker locks the input, maker locks the output, taker redeems, maker redeems. */
export function redeemedSwap(terms: SwapTerms): LedgerEntry[] {
  return [
    ...postMovement('taker_lock', 'sig-taker-lock', terms.inputMint, terms.inputRaw),
    ...postMovement('maker_lock', 'sig-maker-lock', terms.outputMint, terms.outputRaw),
    ...postMovement('taker_redeem', 'sig-taker-redeem', terms.outputMint, terms.outputRaw),
    ...postMovement('maker_redeem', 'sig-maker-redeem', terms.inputMint, terms.inputRaw),
    ...feePostings(terms.fees),
  ];
}

/** Both locks land, nobody redeems: each side gets its escrow back after expiry. */
export function refundedSwap(terms: SwapTerms): LedgerEntry[] {
  return [
    ...postMovement('taker_lock', 'sig-taker-lock', terms.inputMint, terms.inputRaw),
    ...postMovement('maker_lock', 'sig-maker-lock', terms.outputMint, terms.outputRaw),
    ...postMovement('maker_refund', 'sig-maker-refund', terms.outputMint, terms.outputRaw),
    ...postMovement('taker_refund', 'sig-taker-refund', terms.inputMint, terms.inputRaw),
    ...feePostings(terms.fees),
  ];
}

/** Reference for net_usdc_estimate, computed independently: reduced rationals, then a floor. */
export function referenceMicroUsdc(
  net: ReadonlyMap<string, bigint>,
  prices: ReadonlyMap<string, AssetPricing>,
  usdcUsd: Price,
): bigint {
  const gcd = (a: bigint, b: bigint): bigint => {
    let [x, y] = [a < 0n ? -a : a, b];
    while (y !== 0n) [x, y] = [y, x % y];
    return x;
  };
  let sum = { num: 0n, den: 1n };
  for (const [mint, raw] of net) {
    const price = prices.get(mint);
    if (!price) continue;
    const num = raw * price.usd.num;
    const den = price.usd.den * 10n ** BigInt(price.decimals);
    const lcm = (sum.den / gcd(sum.den, den)) * den;
    const total = sum.num * (lcm / sum.den) + num * (lcm / den);
    const g = gcd(total, lcm) || 1n;
    sum = { num: total / g, den: lcm / g };
  }
  const num = sum.num * usdcUsd.den * 1_000_000n;
  const den = sum.den * usdcUsd.num;
  // Floor for any sign: the mathematical modulo is always in [0, den).
  const mod = ((num % den) + den) % den;
  return (num - mod) / den;
}

/** Renders micro-USDC the plain way, digit by digit, for comparison with the module's output. */
export function microToText(micro: bigint): string {
  const sign = micro < 0n ? '-' : '';
  const abs = micro < 0n ? -micro : micro;
  return `${sign}${abs / 1_000_000n}.${(abs % 1_000_000n).toString().padStart(6, '0')}`;
}
