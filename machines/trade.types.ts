// The trade machine's data contract: what the runtime gives at creation (input), what the actor keeps
// (context, persisted as JSON), the events it accepts and the effects it invokes. Types only.
import type { TradeSignatureKind } from '../src/vocabulary/index.ts';

/** Unix seconds on the chain's clock. Every expiry is absolute, so it survives restarts. */
export type ChainTime = number;

/** A trade's parameters, fixed when settlement starts. Amounts are decimal strings of raw units. */
export interface TradeInput {
  tradeId: string;
  quoteId: string;
  /** The run that created the trade. */
  runId: string;
  takerWallet: string;
  /** The maker's wallet: the recipient of the taker lock and the initializer of the maker lock. */
  makerWallet: string;
  /** 64 hex, either case; kept lowercase in context. */
  secretHash: string;
  inputMint: string;
  inputAmountRaw: string;
  outputMint: string;
  outputAmountRaw: string;
  /** The taker HTLC expiry (settlement start + taker timelock). */
  takerExpiry: ChainTime;
  /** End of the lock window: the program refuses a lock once chain time is past it. */
  lockDeadline: ChainTime;
  takerEscrow: string;
  makerEscrow: string;
  /** Seconds. */
  makerTimelock: number;
  safetyMargin: number;
  minRedeemWindow: number;
  landingMargin: number;
}

export interface TradeSignature {
  kind: TradeSignatureKind;
  signature: string;
}

/** A taker lock as read from the taker escrow account on chain. */
export interface TakerLockTerms {
  escrow: string;
  initializer: string;
  recipient: string;
  mint: string;
  amountRaw: string;
  hashlock: string;
  expiry: ChainTime;
  lockDeadline: ChainTime;
}

/** A signed lock the service holds for the taker (POST /lock). */
export interface LockSubmission {
  signature: string;
  lastValidBlockHeight: number | null;
}

/**
 * The maker lock, written before it is sent: its presence means the trade may never sign another.
 * `lapsed` is set once the chain proved it can no longer land (last valid block height passed and the
 * maker escrow absent at finalized).
 */
export interface MakerLockIntent {
  makerExpiry: ChainTime;
  signature: string;
  lastValidBlockHeight: number;
  transactionBase64: string;
  lapsed: boolean;
}

export const FAILURE_REASONS = [
  // failed
  'abandoned',
  'lock_window_expired',
  'lock_not_landed',
  'lock_terms_mismatch',
  // refunded
  'inventory_unavailable',
  'redeem_window_too_short',
  'maker_lock_lapsed',
  'maker_escrow_expired',
  'taker_cancelled',
  'maker_missed_redeem',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export interface TradeContext extends TradeInput {
  /** The run that owns the actor now (the creating run, or the last run that adopted it). */
  currentRunId: string;
  adoptedAt: ChainTime | null;
  /** Movements of funds in the order they landed (or were recorded), each signature once. */
  signatures: TradeSignature[];
  /** The taker lock signature known to exist: the one seen on chain, else the latest one held. */
  lockSignature: string | null;
  lockSubmissions: LockSubmission[];
  /** Terms of the taker lock that landed, as read at finality (matching or not). */
  takerLockTerms: TakerLockTerms | null;
  /** The maker's decision inputs: inventory and the chain time it was taken at. */
  assessment: { available: boolean; now: ChainTime } | null;
  makerExpiry: ChainTime | null;
  makerLockIntent: MakerLockIntent | null;
  /** Stored only once a redeem proceeds (accepted REDEEM_REQUESTED, or revealed on chain). */
  preimage: string | null;
  /** The maker escrow's redeem was reported on chain (MAKER_ESCROW_REDEEMED). */
  makerEscrowRedeemSeen: boolean;
  /** What each command did, so the runtime can tell a replay from a refusal. */
  abandonedWith: string | null;
  redeemRequested: boolean;
  refundRequested: boolean;
  failureReason: FailureReason | null;
  /** Set when the maker lost funds (missed its redeem): the runtime logs an alert. */
  alert: boolean;
  /**
   * The current effect state's failures: cleared when the state is left, kept across its retries. The
   * runtime sends RETRY_EFFECT once chain time reaches `retryAt`; `retryAt` is null while a retry runs.
   */
  effectError: EffectErrorInfo | null;
}

export interface EffectErrorInfo {
  effect: TradeEffect;
  message: string;
  /** Consecutive failures of this effect in this state. */
  attempts: number;
  /** Chain time the next attempt is due (exponential backoff with jitter); null while one runs. */
  retryAt: ChainTime | null;
}

/**
 * What the runtime's effects reject with: why, and the chain time of the failure, from which the retry is
 * scheduled. A rejection without `at` (a bug, or a test's plain Error) counts as failed at time 0: its
 * retry is due at once.
 */
export interface EffectFailure {
  message: string;
  at: ChainTime;
}

// ── Events ────────────────────────────────────────────────────────────────────────────────────────

/** Commands (HTTP and runtime bookkeeping). */
export type TradeCommand =
  | { type: 'ABANDON'; secretHash: string }
  | { type: 'LOCK_SUBMITTED'; signature: string; lastValidBlockHeight: number | null }
  | { type: 'REDEEM_REQUESTED'; preimage: string; preimageHash: string; now: ChainTime }
  | { type: 'REFUND_REQUESTED'; now: ChainTime }
  | { type: 'ADOPTED'; runId: string; now: ChainTime }
  | { type: 'RETRY_EFFECT'; now: ChainTime };

/** Facts the runtime observed on chain (finalized on real clusters). */
export type ChainFact =
  | { type: 'TAKER_LOCK_SEEN'; signature: string }
  | { type: 'TAKER_LOCK_FINALIZED'; signature: string; terms: TakerLockTerms }
  | { type: 'TAKER_LOCK_DROPPED'; now: ChainTime }
  | { type: 'MAKER_ESCROW_REDEEMED'; signature: string; preimage: string }
  | { type: 'MAKER_ESCROW_RETURNED'; signature: string; how: ReturnedHow }
  | { type: 'TAKER_ESCROW_REFUNDED'; signature: string }
  | { type: 'TAKER_ESCROW_PAID'; signature: string }
  | { type: 'CHAIN_TIME_ADVANCED'; now: ChainTime };

/** Every event the runtime may send (done/error events of invoked effects come from xstate). */
export type TradeEvent = TradeCommand | ChainFact;
export type TradeEventType = TradeEvent['type'];

export const TRADE_EVENT_TYPES = [
  'ABANDON',
  'LOCK_SUBMITTED',
  'REDEEM_REQUESTED',
  'REFUND_REQUESTED',
  'ADOPTED',
  'RETRY_EFFECT',
  'TAKER_LOCK_SEEN',
  'TAKER_LOCK_FINALIZED',
  'TAKER_LOCK_DROPPED',
  'MAKER_ESCROW_REDEEMED',
  'MAKER_ESCROW_RETURNED',
  'TAKER_ESCROW_REFUNDED',
  'TAKER_ESCROW_PAID',
  'CHAIN_TIME_ADVANCED',
] as const satisfies readonly TradeEventType[];

// ── Effects (invoked actors the runtime provides) ─────────────────────────────────────────────────

export const TRADE_EFFECTS = [
  'checkInventory',
  'signMakerLock',
  'makerLock',
  'takerRedeem',
  'makerRedeem',
  'makerRefund',
  'makerCancel',
  'takerRefund',
  'closeEscrows',
] as const;
export type TradeEffect = (typeof TRADE_EFFECTS)[number];

export interface CheckInventoryInput {
  tradeId: string;
  outputMint: string;
  outputAmountRaw: string;
}
/** `now` is the chain time the decision is made at; it fixes the maker expiry. */
export interface CheckInventoryOutput {
  available: boolean;
  now: ChainTime;
}

export interface SignMakerLockInput {
  tradeId: string;
  takerEscrow: string;
  makerEscrow: string;
  initializer: string;
  recipient: string;
  mint: string;
  amountRaw: string;
  hashlock: string;
  expiry: ChainTime;
}
/** Signed, not sent. */
export interface SignMakerLockOutput {
  signature: string;
  lastValidBlockHeight: number;
  transactionBase64: string;
}

export interface MakerLockInput {
  tradeId: string;
  makerEscrow: string;
  intent: MakerLockIntent;
}
/** Final on chain, or proved unable to land (last valid block height passed, escrow absent at finalized). */
export type MakerLockOutput = { landed: true; signature: string } | { landed: false };

/** How an escrow that left `locked` came back to the initializer: the expiry refund or the recipient's cancel. */
export type ReturnedHow = 'refunded' | 'cancelled';

/**
 * How an escrow ended, as the chain proves it (the account's status, or once it is closed, the token
 * movements of the transaction that settled it): paid to its recipient (a redeem, whoever submitted it;
 * with the revealed preimage when the chain still shows it) or returned to its initializer. Effects that
 * settle an escrow answer this rather than "done": a party may have settled it first, in either
 * direction, and the trade follows what happened.
 */
export type EscrowEnding =
  | { kind: 'paid'; signature: string; preimage: string | null }
  | { kind: 'returned'; signature: string; how: ReturnedHow };

/**
 * An escrow's agreed terms, as effects need them to act on it and to recognise how it ended even once
 * its account is closed. Amounts are raw units as decimal strings.
 */
export interface EscrowTerms {
  address: string;
  mint: string;
  amountRaw: string;
  /** Paid by a redeem (the maker escrow's is the taker; the taker escrow's is the maker). */
  recipient: string;
  /** Gets the funds back by refund or cancel, and the rent at close. */
  initializer: string;
}

export interface EscrowEffectInput {
  tradeId: string;
  escrow: EscrowTerms;
}
/** Redeem of the maker escrow (for the taker) or of the taker escrow (for the maker) with the preimage. */
export interface RedeemEffectInput extends EscrowEffectInput {
  preimage: string;
}
export type TakerRedeemInput = RedeemEffectInput;
export type MakerRedeemInput = RedeemEffectInput;
/** The maker escrow's expiry refund (or, in refunded, its reclaim). */
export type MakerRefundInput = EscrowEffectInput;
/** makerCancel (the maker, as recipient, releases the taker escrow) and takerRefund (expiry refund). */
export type TakerEscrowReleaseInput = EscrowEffectInput;
/** `absent` when the maker escrow turned out never to have held anything (the maker lock never landed). */
export type MakerRefundOutput = EscrowEnding | { kind: 'absent' };
/** makerCancel (the maker, as recipient, releases the taker escrow) and takerRefund (expiry refund). */
export interface CloseEscrowsInput {
  tradeId: string;
  makerEscrow: string;
}
