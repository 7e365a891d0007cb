// Double-entry ledger of a trade, in raw units per asset (docs/quotes-and-ledger.md#ledger). Every on-chain movement posts a debit
// to the account that receives and a credit to the account that gives, so debits equal credits per asset;
// the summary checks that equality over whatever was stored rather than assuming it. A swap through an
// aggregator (a hedge the trade triggered) is posted against the `venue`, the market's side of it. USDC minted
// through Circle Gateway comes from `maker_gateway`, the maker's own unified balance outside Solana.
import { formatDecimal, type Price } from '../money/index.ts';
import type { TradeSignatureKind } from '../vocabulary/index.ts';

export const LEDGER_ACCOUNTS = [
  'taker',
  'maker',
  'taker_escrow',
  'maker_escrow',
  'network',
  'venue',
  /** The maker's unified USDC balance at Circle Gateway (deposits on other chains): the maker's, off Solana. */
  'maker_gateway',
] as const;
export type LedgerAccount = (typeof LEDGER_ACCOUNTS)[number];

/** An escrow's movements of funds, named as the signature kinds that make them: each at most once a trade. */
export const ESCROW_MOVEMENTS = [
  'taker_lock',
  'maker_lock',
  'taker_redeem',
  'maker_redeem',
  'maker_refund',
  'taker_refund',
] as const;
export type EscrowMovement = (typeof ESCROW_MOVEMENTS)[number];

export const LEDGER_MOVEMENTS = [
  ...ESCROW_MOVEMENTS,
  'aggregator_swap',
  'gateway_mint',
  'network_fee',
  'rolled_back',
] as const;
export type LedgerMovement = (typeof LEDGER_MOVEMENTS)[number];

/** Native SOL (lamports) for network fees; fees are paid in SOL whatever the trade's assets. */
export const FEE_MINT = 'So11111111111111111111111111111111111111112';

export interface LedgerEntry {
  movement: LedgerMovement;
  signature: string;
  mint: string;
  account: LedgerAccount;
  side: 'debit' | 'credit';
  amountRaw: bigint;
}

/** Who gives and who receives in each movement of funds. */
const FLOWS: Record<EscrowMovement, { from: LedgerAccount; to: LedgerAccount }> = {
  taker_lock: { from: 'taker', to: 'taker_escrow' },
  maker_lock: { from: 'maker', to: 'maker_escrow' },
  taker_redeem: { from: 'maker_escrow', to: 'taker' },
  maker_redeem: { from: 'taker_escrow', to: 'maker' },
  maker_refund: { from: 'maker_escrow', to: 'maker' },
  taker_refund: { from: 'taker_escrow', to: 'taker' },
};

/** The two entries of one movement of `amountRaw` of `mint`. */
export function postMovement(
  movement: EscrowMovement,
  signature: string,
  mint: string,
  amountRaw: bigint,
): LedgerEntry[] {
  const { from, to } = FLOWS[movement];
  return [
    { movement, signature, mint, account: to, side: 'debit', amountRaw },
    { movement, signature, mint, account: from, side: 'credit', amountRaw },
  ];
}

/**
 * A swap the maker made through an aggregator, as the chain recorded it: what left the maker's account for the
 * venue and what came back. Both legs under the swap's signature; the fee is posted apart (postNetworkFee).
 */
export function postSwap(
  signature: string,
  swap: { inputMint: string; amountInRaw: bigint; outputMint: string; amountOutRaw: bigint },
): LedgerEntry[] {
  const movement = 'aggregator_swap';
  const entries: LedgerEntry[] = [];
  if (swap.amountInRaw > 0n) {
    entries.push(
      {
        movement,
        signature,
        mint: swap.inputMint,
        account: 'venue',
        side: 'debit',
        amountRaw: swap.amountInRaw,
      },
      {
        movement,
        signature,
        mint: swap.inputMint,
        account: 'maker',
        side: 'credit',
        amountRaw: swap.amountInRaw,
      },
    );
  }
  if (swap.amountOutRaw > 0n) {
    entries.push(
      {
        movement,
        signature,
        mint: swap.outputMint,
        account: 'maker',
        side: 'debit',
        amountRaw: swap.amountOutRaw,
      },
      {
        movement,
        signature,
        mint: swap.outputMint,
        account: 'venue',
        side: 'credit',
        amountRaw: swap.amountOutRaw,
      },
    );
  }
  return entries;
}

/**
 * USDC minted on Solana through Circle Gateway, as a transfer between the maker's own accounts: `value` from its
 * unified balance (maker_gateway) to its Solana account (maker), movement gateway_mint; and Gateway's fee,
 * burned from the unified balance beside the value, as the ledger treats every cost the maker pays for a
 * transaction — a network_fee, debit `network`, credit the account that paid (here in USDC, from
 * maker_gateway). Both under the mint's signature: the fee is fixed by the attestation the mint used; the
 * source-chain burn that follows (gateway_burn) settles these same amounts and posts nothing more.
 */
export function postGatewayMint(
  signature: string,
  mint: { usdcMint: string; valueRaw: bigint; feeRaw: bigint },
): LedgerEntry[] {
  const entry = (
    movement: LedgerMovement,
    account: LedgerAccount,
    side: 'debit' | 'credit',
    amountRaw: bigint,
  ): LedgerEntry => ({ movement, signature, mint: mint.usdcMint, account, side, amountRaw });
  const entries = [
    entry('gateway_mint', 'maker', 'debit', mint.valueRaw),
    entry('gateway_mint', 'maker_gateway', 'credit', mint.valueRaw),
  ];
  if (mint.feeRaw > 0n) {
    entries.push(
      entry('network_fee', 'network', 'debit', mint.feeRaw),
      entry('network_fee', 'maker_gateway', 'credit', mint.feeRaw),
    );
  }
  return entries;
}

/** A network fee the maker paid for one of its transactions. */
export function postNetworkFee(signature: string, lamports: bigint): LedgerEntry[] {
  if (lamports === 0n) return [];
  return [
    {
      movement: 'network_fee',
      signature,
      mint: FEE_MINT,
      account: 'network',
      side: 'debit',
      amountRaw: lamports,
    },
    {
      movement: 'network_fee',
      signature,
      mint: FEE_MINT,
      account: 'maker',
      side: 'credit',
      amountRaw: lamports,
    },
  ];
}

/** Which side of the trade each signature kind moves; kinds not listed move nothing of the trade's. */
const SIGNATURE_MOVEMENT: Partial<Record<TradeSignatureKind, 'input' | 'output'>> = {
  taker_lock: 'input',
  maker_redeem: 'input',
  taker_refund: 'input',
  maker_lock: 'output',
  taker_redeem: 'output',
  maker_refund: 'output',
};

/**
 * The entries a transition posts: a movement for each signature it added (the amount of the side that
 * signature moves). The taker escrow's side is what its lock put there as read on chain (a lock with other
 * terms than agreed holds other funds); the maker escrow's is the agreed output, which only the maker
 * locks. Network fees are posted apart, once the chain shows what each maker transaction cost
 * (postNetworkFee), whether or not it moved funds of the trade.
 */
export function transitionPostings(
  added: readonly { kind: TradeSignatureKind; signature: string }[],
  trade: {
    inputMint: string;
    inputAmountRaw: string;
    outputMint: string;
    outputAmountRaw: string;
    takerLockTerms: { mint: string; amountRaw: string } | null;
  },
): LedgerEntry[] {
  const entries: LedgerEntry[] = [];
  const locked = trade.takerLockTerms;
  for (const { kind, signature } of added) {
    const side = SIGNATURE_MOVEMENT[kind];
    if (!side) continue;
    const mint = side === 'input' ? (locked?.mint ?? trade.inputMint) : trade.outputMint;
    const amount = BigInt(
      side === 'input' ? (locked?.amountRaw ?? trade.inputAmountRaw) : trade.outputAmountRaw,
    );
    entries.push(...postMovement(kind as EscrowMovement, signature, mint, amount));
  }
  return entries;
}

/**
 * Movements a fork took back (a confirmed taker lock the maker went on, and what was built on it): each is
 * reversed under its own signature — movement `rolled_back`, the original's debit and credit swapped — so
 * every account nets to what the chain still shows.
 */
export function rollbackPostings(
  removed: readonly { kind: TradeSignatureKind; signature: string }[],
  trade: Parameters<typeof transitionPostings>[1],
): LedgerEntry[] {
  return transitionPostings(removed, trade).map((entry) => ({
    ...entry,
    movement: 'rolled_back',
    side: entry.side === 'debit' ? 'credit' : 'debit',
  }));
}

export interface AssetPricing {
  /** USD per display unit. */
  usd: Price;
  decimals: number;
}

export interface LedgerSummary {
  balanced: boolean;
  entry_count: number;
  net_usdc_estimate: string;
}

/** Debits equal credits for every asset. */
export function isBalanced(entries: readonly LedgerEntry[]): boolean {
  const totals = new Map<string, bigint>();
  for (const entry of entries) {
    const signed = entry.side === 'debit' ? entry.amountRaw : -entry.amountRaw;
    totals.set(entry.mint, (totals.get(entry.mint) ?? 0n) + signed);
  }
  return [...totals.values()].every((total) => total === 0n);
}

/**
 * The maker's net position change per mint: what it received minus what it gave, on Solana and in its unified
 * Gateway balance (a mint moves USDC between the two and nets to minus its fee).
 */
export function makerNet(entries: readonly LedgerEntry[]): Map<string, bigint> {
  const net = new Map<string, bigint>();
  for (const entry of entries) {
    if (entry.account !== 'maker' && entry.account !== 'maker_gateway') continue;
    const signed = entry.side === 'debit' ? entry.amountRaw : -entry.amountRaw;
    net.set(entry.mint, (net.get(entry.mint) ?? 0n) + signed);
  }
  return net;
}

/**
 * Prices some movements were made at, by their signature: a hedge's legs are valued at the mid it was bounded
 * by, not at the trade's quote, so what it adds to the estimate is its slippage against that mid (and its
 * fee), not the market's move between the quote and the hedge.
 */
export type Valuations = ReadonlyMap<string, ReadonlyMap<string, AssetPricing>>;

/**
 * The maker's result in USDC at the quote's prices, with 6 fraction digits, rounded down (toward a loss):
 * Σ net_raw × usd / 10^decimals / usdc_usd. An entry whose signature `valuations` names is valued at that
 * movement's own prices instead. A mint without a price counts as zero — it cannot happen for the trade's
 * own two assets and SOL, which the runtime always prices.
 */
export function netUsdcEstimate(
  entries: readonly LedgerEntry[],
  pricing: ReadonlyMap<string, AssetPricing>,
  usdcUsd: Price,
  valuations: Valuations = new Map(),
): string {
  const USDC_DECIMALS = 6;
  let num = 0n;
  let den = 1n;
  const add = (raw: bigint, price: AssetPricing | undefined) => {
    if (!price || raw === 0n) return;
    // raw × usd.num / (usd.den × 10^decimals), added to num/den exactly.
    const termNum = raw * price.usd.num;
    const termDen = price.usd.den * 10n ** BigInt(price.decimals);
    num = num * termDen + termNum * den;
    den *= termDen;
    const g = gcd(num < 0n ? -num : num, den);
    if (g > 1n) {
      num /= g;
      den /= g;
    }
  };
  const quoted = entries.filter((entry) => !valuations.has(entry.signature));
  for (const [mint, raw] of makerNet(quoted)) add(raw, pricing.get(mint));
  for (const [signature, prices] of valuations) {
    const own = entries.filter((entry) => entry.signature === signature);
    for (const [mint, raw] of makerNet(own)) add(raw, prices.get(mint) ?? pricing.get(mint));
  }
  // In micro-USDC: num/den USD ÷ usdc_usd, scaled by 10^6, floored toward −∞.
  const scaledNum = num * usdcUsd.den * 10n ** BigInt(USDC_DECIMALS);
  const scaledDen = den * usdcUsd.num;
  // bigint division truncates toward zero; below zero that rounds up, so step down once (scaledDen > 0).
  let micro = scaledNum / scaledDen;
  if (micro * scaledDen > scaledNum) micro -= 1n;
  return formatDecimal(micro, USDC_DECIMALS);
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

export function summarize(
  entries: readonly LedgerEntry[],
  pricing: ReadonlyMap<string, AssetPricing>,
  usdcUsd: Price,
  valuations: Valuations = new Map(),
): LedgerSummary {
  return {
    balanced: isBalanced(entries),
    entry_count: entries.length,
    net_usdc_estimate: netUsdcEstimate(entries, pricing, usdcUsd, valuations),
  };
}
