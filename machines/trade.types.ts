// The trade machine's contract, written once: what the runtime gives at creation (input), what the actor
// keeps (context, persisted as JSON), the events it accepts, the effects it invokes and the rules both sides
// rely on. Types only. The states and transitions are drawn in docs/trade-machine.md, generated from the
// machine (`npm run machines:diagram`); test/machines/contract.test.ts holds this file to the machine.
//
// The machine's top-level states are exactly the settlement_status values. Once redeemed, refunded or
// failed, no transition leaves that state (substates still move while funds are released or rent reclaimed).
import type { Hash32, Preimage, TradeSignatureKind } from '../src/vocabulary/index.ts';

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
  /** The taker's commitment, parsed at the request boundary. */
  secretHash: Hash32;
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
  /**
   * Just-in-time sourcing, when the quote priced part of the output from an aggregator (the maker's free
   * inventory did not cover it): after the taker's lock is final, the maker sells `sellRaw` of the input
   * asset through the aggregator for at least `minBuyRaw` of the output, then locks. Null for a trade its
   * inventory covers.
   */
  sourcing: SourcingPlan | null;
}

export interface SourcingPlan {
  /** What the maker sells (its own inventory of the trade's input asset) and what it buys (the output). */
  sellMint: string;
  sellRaw: string;
  buyMint: string;
  /** The least the swap may bring back: what the quote owes the taker for the sourced part. */
  minBuyRaw: string;
}

/** The sourcing swap, signed before it is sent (like the maker lock's intent): never a second one unless proved lapsed. */
export interface SourcingIntent {
  signature: string;
  lastValidBlockHeight: number;
  transactionBase64: string;
  lapsed: boolean;
}

/**
 * Just-in-time minting through Circle Gateway: the maker's Solana USDC fell short of what the trade needs (its
 * output, or what its sourcing swap sells), so it mints the shortfall from its unified balance before it
 * locks. Each step is written before the next leaves the process: the burn intent signed (its transfer spec
 * hash is the replay protection — Gateway attests a spec once, the minter mints it once), then Gateway's
 * attestation with the gatewayMint signed from it, then the mint sent. Opaque to the machine beyond its presence:
 * the runtime reads the bytes back.
 */
export interface MintIntent {
  /** The signed BurnIntent in Gateway's JSON (its wire form), the depositor's EIP-712 signature (0x-hex). */
  burnIntent: Record<string, unknown>;
  signature: string;
  /** keccak256 of its TransferSpec, 0x-hex: what the minter's used-hash account is derived from. */
  transferSpecHash: string;
  /** The USDC minted, raw units. */
  valueRaw: string;
  /** The last source-chain block Gateway may burn in: past it the intent is dead. */
  maxBlockHeight: string;
  /** Gateway's answer, checked (never asked for again: Gateway refuses a spec it attested). */
  attestation: MintAttestation | null;
  /** The gatewayMint signed from the attestation, before it is sent; `lapsed` once proved unable to land. */
  transaction: {
    signature: string;
    lastValidBlockHeight: number;
    transactionBase64: string;
    lapsed: boolean;
  } | null;
}

export interface MintAttestation {
  transferId: string;
  /** The encoded attestation and the attester's signature, 0x-hex, as the minter reads them. */
  attestation: string;
  signature: string;
  /** Gateway's fee, raw USDC, burned on the source chain beside the value. */
  feeRaw: string;
  /** The last Solana slot the mint may land in. */
  expirationBlock: string;
}

export interface TradeSignature {
  kind: TradeSignatureKind;
  signature: string;
  /** Set on a swap of the maker's that landed and failed (only its fee moved); absent: it succeeded. */
  outcome?: 'failed';
}

/** A taker lock as read from the taker escrow account on chain. */
export interface TakerLockTerms {
  escrow: string;
  initializer: string;
  recipient: string;
  mint: string;
  amountRaw: string;
  hashlock: Hash32;
  expiry: ChainTime;
  lockDeadline: ChainTime;
}

/**
 * A signed lock the service holds for the taker (POST /lock): its signature, and — when the service was
 * handed the transaction itself — its bytes, which the service broadcasts until they land or can no longer
 * land. `lastValidBlockHeight` is that of the blockhash the service issued the lock with, when it knows it.
 */
export interface LockSubmission {
  signature: string;
  lastValidBlockHeight: number | null;
  transactionBase64: string | null;
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
  'price_moved',
  'price_unavailable',
  'sourcing_failed',
  'gateway_failed',
  'redeem_window_too_short',
  'maker_lock_lapsed',
  'maker_escrow_expired',
  'taker_cancelled',
  'maker_missed_redeem',
  // failed, or refunded once the maker escrow is back: the confirmed taker lock the maker went on vanished
  'taker_lock_rolled_back',
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
  /** Terms of the taker lock that landed, as read at finality (matching or not), or at confirmed (below). */
  takerLockTerms: TakerLockTerms | null;
  /**
   * The maker went on the taker lock at confirmed, not final yet (the commitment policy: a small trade, a
   * cluster whose finality keeps up): the lock may still be rolled back (a fork) until TAKER_LOCK_FINALIZED
   * clears this. Always false on the usual path, which waits for the lock to be final.
   */
  takerLockConfirmedOnly: boolean;
  /** The maker's decision inputs: inventory, the trade re-priced now, and the chain time it was taken at. */
  assessment: CheckInventoryOutput | null;
  makerExpiry: ChainTime | null;
  makerLockIntent: MakerLockIntent | null;
  sourcingIntent: SourcingIntent | null;
  /** Just-in-time minting's intent, once signed: the trade never signs a second. */
  mintIntent: MintIntent | null;
  /** The sourcing swap as it landed: what the maker sold and bought (raw units, as the chain recorded them). */
  sourced: { signature: string; soldRaw: string; boughtRaw: string } | null;
  /** Stored only once a redeem proceeds (accepted REDEEM_REQUESTED, or revealed on chain). */
  preimage: Preimage | null;
  /** The maker escrow's redeem was reported on chain (MAKER_ESCROW_REDEEMED). */
  makerEscrowRedeemSeen: boolean;
  /** What each command did, so the runtime can tell a replay from a refusal. */
  abandonedWith: Hash32 | null;
  redeemRequested: boolean;
  refundRequested: boolean;
  failureReason: FailureReason | null;
  /**
   * Set when the maker lost funds (missed its redeem): the runtime logs an alert. Only on proven loss: the
   * chain shows the taker escrow back with the taker after the preimage was known (revealed by the maker
   * escrow's redeem).
   */
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
  /** The taker gives up before any lock exists, proving it holds the settlement's secret hash. */
  | { type: 'ABANDON'; secretHash: Hash32 }
  /**
   * The taker hands over its signed lock (its bytes, or only the signature of a lock its wallet sent itself);
   * a fresh one may replace it while the lock window is open.
   */
  | {
      type: 'LOCK_SUBMITTED';
      signature: string;
      lastValidBlockHeight: number | null;
      transactionBase64: string | null;
    }
  /** The taker reveals the preimage: the service redeems the maker escrow for it before the maker expiry. */
  | { type: 'REDEEM_REQUESTED'; preimage: Preimage; preimageHash: Hash32; now: ChainTime }
  /** The taker asks the service to refund its escrow; taken only once that escrow's expiry has passed. */
  | { type: 'REFUND_REQUESTED'; now: ChainTime }
  /** A run activated the actor from the store; recorded only when it is another run than the owner. */
  | { type: 'ADOPTED'; runId: string; now: ChainTime }
  /**
   * The retry time of the current effect state's failure has come (`effectError.retryAt`): the state is
   * re-entered and its effect runs again, its failures counting on.
   */
  | { type: 'RETRY_EFFECT'; now: ChainTime };

/** Facts the runtime observed on chain (finalized on real clusters, unless a fact says confirmed). */
export type ChainFact =
  /** A lock of the taker escrow landed, not final yet. */
  | { type: 'TAKER_LOCK_SEEN'; signature: string }
  /**
   * The taker lock is confirmed (not final), with the terms read from the escrow at confirmed: the maker may go
   * on it when the commitment policy admits the trade (guard confirmedLockAdmitted), else waits for finality.
   */
  | { type: 'TAKER_LOCK_CONFIRMED'; signature: string; terms: TakerLockTerms }
  /** The taker lock is final, with the terms read from the escrow (matching the agreed ones or not). */
  | { type: 'TAKER_LOCK_FINALIZED'; signature: string; terms: TakerLockTerms }
  /**
   * A taker lock the maker went on at confirmed is no longer on chain (a fork took its block back): `dropped`
   * are the trade's movements the chain no longer knows, the lock among them (the maker lock too, when it was
   * built on that fork).
   */
  | { type: 'TAKER_LOCK_ROLLED_BACK'; dropped: TradeSignature[] }
  /**
   * The maker's own lock, which counts as landed at confirmed, is no longer known to the chain (a fork took its
   * block back) while the taker lock stands.
   */
  | { type: 'MAKER_LOCK_ROLLED_BACK'; signature: string }
  /** The lock window is over and the taker escrow absent at finalized: the lock held can no longer land. */
  | { type: 'TAKER_LOCK_DROPPED'; now: ChainTime }
  /** The maker escrow was paid to the taker, revealing the preimage the maker redeems with. */
  | { type: 'MAKER_ESCROW_REDEEMED'; signature: string; preimage: Preimage }
  /** The maker escrow went back to the maker: the taker cancelled it, or it was refunded at its expiry. */
  | { type: 'MAKER_ESCROW_RETURNED'; signature: string; how: ReturnedHow }
  /** The taker escrow went back to the taker (refund or cancel), whoever submitted it. */
  | { type: 'TAKER_ESCROW_REFUNDED'; signature: string }
  /** The taker escrow was paid to the maker (a redeem with the preimage), whoever submitted it. */
  | { type: 'TAKER_ESCROW_PAID'; signature: string }
  /** The chain's clock reached a deadline the trade waits for. */
  | { type: 'CHAIN_TIME_ADVANCED'; now: ChainTime }
  /**
   * The chain answers again after the runtime could not reach it: an effect that failed meanwhile and waits
   * for its retry runs now rather than at the end of its backoff.
   */
  | { type: 'CHAIN_REACHABLE' };

/**
 * Every event the runtime may send (done/error events of invoked effects come from xstate).
 *
 * Time is the chain's clock. Every expiry is an absolute chain time in context; no XState timer guards
 * anything (timers do not survive a persisted snapshot). The runtime sends CHAIN_TIME_ADVANCED { now } when
 * `nextDeadline(snapshot)` is due and, before it, what it sees of the trade's escrows.
 */
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
  'TAKER_LOCK_CONFIRMED',
  'TAKER_LOCK_FINALIZED',
  'TAKER_LOCK_ROLLED_BACK',
  'MAKER_LOCK_ROLLED_BACK',
  'TAKER_LOCK_DROPPED',
  'MAKER_ESCROW_REDEEMED',
  'MAKER_ESCROW_RETURNED',
  'TAKER_ESCROW_REFUNDED',
  'TAKER_ESCROW_PAID',
  'CHAIN_TIME_ADVANCED',
  'CHAIN_REACHABLE',
] as const satisfies readonly TradeEventType[];

// ── States ────────────────────────────────────────────────────────────────────────────────────────

/** Which context deadline a state waits for (read by `nextDeadline`). */
export type TradeDeadline = 'lockWindowEnd' | 'makerExpiry' | 'takerExpiry' | 'lateLockExpiry';
export interface TradeStateMeta {
  wakeAt?: TradeDeadline;
}
/**
 * `closed`: no funds of the trade left in any escrow and nothing left to do. `effect`: the state runs one
 * of the TradeEffects (and retries it on RETRY_EFFECT).
 */
export type TradeTag = 'closed' | 'effect';

// ── Effects (invoked actors the runtime provides) ─────────────────────────────────────────────────

/**
 * The effects the machine invokes, by name, each with its input and what it resolves with; the runtime
 * provides them (`tradeMachine.provide({ actors })`); the bare machine's placeholders fail by name.
 *
 * - An effect resolves only once its transaction is final (the maker lock: once confirmed), and answers what the chain proves (an
 *   EscrowEnding: paid to the recipient or returned to the initializer, whoever settled the escrow).
 * - A rejection (an EffectFailure) means "try again later": the state records `effectError` with a retry
 *   time (exponential backoff in chain seconds) and the runtime sends RETRY_EFFECT { now } once it is due.
 *   Retries survive restarts: the retry time is context, and it feeds the runtime's deadline index.
 * - Effects must `await` the runtime's durability barrier before their first send: the transition that
 *   started them (and the maker lock's intent) is then on disk. A restored snapshot restarts an in-flight
 *   effect with the same input (the maker lock re-sends the persisted intent, never signs anew).
 */
export interface TradeEffects {
  /**
   * Broadcast the taker's signed lock again and again until it lands, the chain refuses it, or it can no
   * longer land (its blockhash expired, or the lock window closed); answers which.
   */
  broadcastTakerLock(input: BroadcastTakerLockInput): Promise<BroadcastTakerLockOutput>;
  /**
   * Quote and sign the sourcing swap (nothing is sent); the machine persists it as the intent. Answers why
   * when no swap can be had within the plan (route gone, slippage, venue down): the maker then declines.
   */
  signSourcing(input: SignSourcingInput): Promise<SignSourcingOutput>;
  /** Send the intent's sourcing swap until final, or until proved unable to land (as the maker lock). */
  sendSourcing(input: SendSourcingInput): Promise<SendSourcingOutput>;
  /**
   * Sign a burn intent for the USDC the maker lacks on Solana (nothing leaves the process); the machine
   * persists it as the mint intent. Answers why when none can be signed (no Gateway, no key, fee above the cap).
   */
  signMint(input: SignMintInput): Promise<SignMintOutput>;
  /**
   * Gateway's attestation for the intent (asked for once; a stored one is reused), checked, and the
   * gatewayMint built from it, checked and signed (not sent). Answers why when Gateway refuses, is down, or
   * answers something the maker did not ask for.
   */
  attestMint(input: AttestMintInput): Promise<AttestMintOutput>;
  /** Send the signed gatewayMint until final, booking it; or proved unable to land (expired, refused). */
  sendMint(input: SendMintInput): Promise<SendMintOutput>;
  /** Can the maker serve: its output inventory, and the chain time the decision is made at. */
  checkInventory(input: CheckInventoryInput): Promise<CheckInventoryOutput>;
  /** Sign the maker lock without sending it; the machine persists the result as the intent. */
  signMakerLock(input: SignMakerLockInput): Promise<SignMakerLockOutput>;
  /**
   * Send the intent's maker lock until confirmed (the taker reveals only after checking it on chain, at the
   * commitment it chooses), or until proved unable to land: then whether it expired unseen (a fresh signature
   * may still land in time) and the chain time that was proved at.
   */
  makerLock(input: MakerLockInput): Promise<MakerLockOutput>;
  /** Redeem the maker escrow for the taker with the preimage it revealed. */
  takerRedeem(input: TakerRedeemInput): Promise<EscrowEnding>;
  /** Redeem the taker escrow for the maker with the preimage (before the taker expiry). */
  makerRedeem(input: MakerRedeemInput): Promise<EscrowEnding>;
  /** Refund the maker escrow to the maker at its expiry (or reclaim it once the trade is refunded). */
  makerRefund(input: MakerRefundInput): Promise<MakerRefundOutput>;
  /** The maker, as the taker escrow's recipient, cancels it: the taker gets its funds back at once. */
  makerCancel(input: TakerEscrowReleaseInput): Promise<EscrowEnding>;
  /** Refund the taker escrow to the taker at its expiry. */
  takerRefund(input: TakerEscrowReleaseInput): Promise<EscrowEnding>;
  /**
   * The maker escrow's rent back to the maker (donated tokens swept to it), once the escrow is settled;
   * answers once it is closed, or held nothing (absent, or never settled by this trade).
   */
  closeEscrows(input: CloseEscrowsInput): Promise<unknown>;
}

export const TRADE_EFFECTS = [
  'broadcastTakerLock',
  'checkInventory',
  'signSourcing',
  'sendSourcing',
  'signMint',
  'attestMint',
  'sendMint',
  'signMakerLock',
  'makerLock',
  'takerRedeem',
  'makerRedeem',
  'makerRefund',
  'makerCancel',
  'takerRefund',
  'closeEscrows',
] as const satisfies readonly (keyof TradeEffects)[];
export type TradeEffect = (typeof TRADE_EFFECTS)[number];
export type EffectInput<E extends TradeEffect> = Parameters<TradeEffects[E]>[0];
export type EffectOutput<E extends TradeEffect> = Awaited<ReturnType<TradeEffects[E]>>;

export interface BroadcastTakerLockInput {
  tradeId: string;
  takerEscrow: string;
  lockDeadline: ChainTime;
  submission: LockSubmission & { transactionBase64: string };
}
/** How the broadcast ended; the watcher, reading the escrow, decides what it means for the trade. */
export interface BroadcastTakerLockOutput {
  outcome: 'landed' | 'refused' | 'lapsed';
}

export interface SignSourcingInput extends SourcingPlan {
  tradeId: string;
  /** Sourcing swaps of the trade that landed and failed: a swap signed again must not be one of them. */
  failedSwaps?: string[];
}
export type SignSourcingOutput =
  | { ok: true; signature: string; lastValidBlockHeight: number; transactionBase64: string }
  | { ok: false; reason: string };

export interface SendSourcingInput {
  tradeId: string;
  plan: SourcingPlan;
  intent: SourcingIntent;
}
/**
 * Landed (with what it sold and bought), or not: expired unseen (may be signed afresh), or refused. `failed`:
 * it landed and failed on chain (its fee paid), and whether for its minimum out — quoted once more then.
 */
export type SendSourcingOutput =
  | { landed: true; signature: string; soldRaw: string; boughtRaw: string }
  | {
      landed: false;
      expired: boolean;
      now: ChainTime;
      failed?: { signature: string; slippage: boolean };
    };

export interface SignMintInput {
  tradeId: string;
  valueRaw: string;
}
export type SignMintOutput =
  | { ok: true; intent: Omit<MintIntent, 'attestation' | 'transaction'> }
  | { ok: false; reason: string };

export interface AttestMintInput {
  tradeId: string;
  intent: MintIntent;
}
export type AttestMintOutput =
  | {
      ok: true;
      attestation: MintAttestation;
      transaction: { signature: string; lastValidBlockHeight: number; transactionBase64: string };
    }
  | { ok: false; reason: string };

export interface SendMintInput {
  tradeId: string;
  intent: MintIntent;
}
/**
 * Landed (final, booked), or proved unable to land: `expired` when its blockhash passed unseen and the
 * attestation may still be minted by a transaction signed afresh; otherwise why not (refused on chain, the
 * attestation or the intent's maxBlockHeight passed).
 */
export type SendMintOutput =
  | { landed: true; signature: string }
  | { landed: false; expired: boolean; now: ChainTime; reason: string };

export interface CheckInventoryInput {
  tradeId: string;
  quoteId: string;
  outputMint: string;
  outputAmountRaw: string;
  /** The trade's sourcing plan: what its swap sells counts against the maker's balance of that asset. */
  sourcing?: SourcingPlan | null;
}
/**
 * `now` is the chain time the decision is made at; it fixes the maker expiry. `price`: the trade re-priced
 * from the current price snapshot against its quote (null where no re-pricing applies, e.g. a snapshot
 * assessed before the re-check existed).
 */
export interface CheckInventoryOutput {
  available: boolean;
  now: ChainTime;
  price: PriceCheck | null;
  /**
   * The Gateway's USDC the maker lacks on Solana for this trade (raw units): its output less what its sourcing
   * buys, plus what its sourcing sells, less its balance. Null (or absent) when none is missing or no Gateway
   * runs: then nothing is minted.
   */
  mintRaw?: string | null;
}

/**
 * The maker's last look: the mid (output per input, as USD prices give it) at quote time and now, how far it
 * moved against the maker (bps, ceiling; negative when in its favour), and whether that is within the
 * tolerance. `price_unavailable` when a side's price is not usable now (stale, wide or deviating).
 */
export interface PriceCheck {
  holds: boolean;
  reason: 'price_moved' | 'price_unavailable' | null;
  quotedMid: string;
  currentMid: string | null;
  movedBps: number | null;
  toleranceBps: number;
}

export interface SignMakerLockInput {
  tradeId: string;
  takerEscrow: string;
  makerEscrow: string;
  initializer: string;
  recipient: string;
  mint: string;
  amountRaw: string;
  hashlock: Hash32;
  expiry: ChainTime;
  /** What the taker escrow must hold, exactly (the agreed input): the program refuses the lock otherwise. */
  takerMint: string;
  takerAmountRaw: string;
  /** When the taker escrow must expire, exactly (the agreed one): the maker's margin to redeem after a late reveal. */
  takerExpiry: ChainTime;
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
/**
 * Landed (confirmed: what the taker checks before it reveals), or proved unable to land: `expired` when its
 * blockhash passed with the signature unknown to the chain (a lock signed afresh may still land), not when
 * the chain refused it; `now` is the chain time of that proof.
 */
export type MakerLockOutput =
  | { landed: true; signature: string }
  | { landed: false; expired: boolean; now: ChainTime };

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
  | { kind: 'paid'; signature: string; preimage: Preimage | null }
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
  preimage: Preimage;
}
export type TakerRedeemInput = RedeemEffectInput;
export type MakerRedeemInput = RedeemEffectInput;
/** The maker escrow's expiry refund (or, in refunded, its reclaim). */
export type MakerRefundInput = EscrowEffectInput;
/** makerCancel (the maker, as recipient, releases the taker escrow) and takerRefund (expiry refund). */
export type TakerEscrowReleaseInput = EscrowEffectInput;
/** `absent` when the maker escrow turned out never to have held anything (the maker lock never landed). */
export type MakerRefundOutput = EscrowEnding | { kind: 'absent' };
export interface CloseEscrowsInput {
  tradeId: string;
  makerEscrow: string;
}
