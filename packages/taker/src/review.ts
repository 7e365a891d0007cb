// A lock under review: what the client checked and what a person must see before the wallet opens — the
// input, its mint and how long it is locked, all decoded from the transaction's bytes; the output from the
// taker's own record of the quote; the maker the lock names. Pure: the client fills it from its checks.
import type { AmountView } from './api.ts';
import type { DecodedLock, LockAgreement, TransactionCheck } from './lock-check.ts';
import type { BalanceChange, SimulationCheck } from './simulation-check.ts';
import type { Trust } from './trust.ts';

export interface LockSummary {
  /** What leaves the wallet into the escrow: decoded from the lock (raw units, mint), named by the quote. */
  input: { amountRaw: bigint; asset: string; decimals: number; mint: string };
  /** The escrow's expiry, unix seconds of the chain's clock: the taker can refund from then on. */
  expiry: bigint;
  /** What the taker is to get: its own record of the quote, with the mint it agreed to. */
  output: { amountRaw: bigint; asset: string; decimals: number; mint: string };
  /** The key the lock lets redeem with the preimage. */
  maker: string;
  /** Whether the maker key and the mints are pinned by the client or taken from the embedded service. */
  trust: Trust;
  /** Fee bids above the base fee (lamports), and the base fee. */
  priorityFeeLamports: bigint;
  baseFeeLamports: bigint;
}

export interface LockReview {
  /** The bytes reviewed: the only ones `lock` hands the wallet. */
  transactionBase64: string;
  agreement: LockAgreement;
  check: TransactionCheck;
  simulation: SimulationCheck & { logs: string[]; unitsConsumed: bigint | null };
  summary: LockSummary;
  /** When the review ran (ms since the epoch). */
  at: number;
}

/** The summary of a lock that passed the checks (its decoded lock and the taker's record of the quote). */
export function lockSummary(a: {
  lock: DecodedLock;
  input: AmountView;
  output: AmountView;
  agreement: LockAgreement;
  trust: Trust;
}): LockSummary {
  return {
    input: {
      amountRaw: a.lock.amountRaw,
      asset: a.input.asset,
      decimals: a.input.decimals,
      mint: a.lock.mint,
    },
    expiry: a.lock.expiry,
    output: {
      amountRaw: BigInt(a.output.amount_raw),
      asset: a.output.asset,
      decimals: a.output.decimals,
      mint: a.agreement.outputMint,
    },
    maker: a.lock.counterparty,
    trust: a.trust,
    priorityFeeLamports: a.lock.priorityFeeLamports,
    baseFeeLamports: a.lock.baseFeeLamports,
  };
}

/** The accounts a lock's simulation watches: the wallet, its own token accounts, and every account it may write. */
export function watchedAccounts(agreement: LockAgreement, check: TransactionCheck): string[] {
  return [
    ...new Set([
      agreement.taker,
      agreement.inputTokenAccount,
      agreement.outputTokenAccount,
      ...(check.transaction?.writableAccounts ?? []),
    ]),
  ];
}

export type { BalanceChange };
