// The chain port: everything the trade runtime asks of Solana, behind one interface with two
// implementations (embedded litesvm, JSON-RPC cluster). Amounts are bigint raw units; times are chain
// unix seconds (the Clock sysvar), never the host's clock.

import type { PublicKey, TransactionInstruction } from '@solana/web3.js';
import type { TransactionErrorJson } from './errors.ts';
import type { EscrowState } from './htlc/index.ts';
import type { SignOptions } from './priority.ts';
import type { PriceUpdate } from './pyth/layout.ts';
import type { MintInfo } from './token.ts';

export type Commitment = 'confirmed' | 'finalized';

/** A taker transaction for the wallet: legacy, fee payer = taker, base64 of serialize({requireAllSignatures:false}). */
export interface UnsignedTransaction {
  transactionBase64: string;
  recentBlockhash: string;
  lastValidBlockHeight: number;
}

/** Instructions someone else proposed (an aggregator's swap), for the maker to sign alone (v0.ts). */
export interface MakerInstructions {
  /** In execution order. */
  instructions: readonly TransactionInstruction[];
  /** Address lookup tables the message may load keys from (Jupiter's addressLookupTableAddresses). */
  lookupTables: readonly PublicKey[];
}

/**
 * Signed, NOT yet sent: the runtime persists this intent first, then calls send(). The maker's sign*
 * methods take SignOptions: how many seconds the transaction has left to land, which raises its priority
 * fee as that deadline nears (within the configured cap).
 */
export interface SignedMakerTransaction {
  signature: string;
  transactionBase64: string;
  lastValidBlockHeight: number;
}

export type SignatureState =
  | { status: 'unknown' }
  | {
      status: 'processed' | 'confirmed';
      slot: number;
      /** null on success; the HTLC error name when our program refused, else a compact error text. */
      err: string | null;
    }
  | {
      status: 'finalized';
      slot: number;
      err: string | null;
      /** Lamports the fee payer paid (also when the transaction failed); for the maker's ledger. */
      fee: bigint;
    };

/** A transaction known to the chain, as the runtime needs it for reconciliation. */
export interface ChainTransaction {
  signature: string;
  slot: number;
  blockTime: number | null;
  err: string | null;
  txError: TransactionErrorJson | null;
  fee: bigint;
  /** Static account keys in message order; [0] is the fee payer. */
  accountKeys: string[];
  logs: string[];
  transactionBase64: string;
  /**
   * Every SPL token account among the account keys that existed before or after the transaction, like
   * meta.pre/postTokenBalances merged by account: `pre` is 0 for an account the transaction created,
   * `post` 0 for one it closed; `owner` is the token account's authority. Shows where an escrow vault's
   * tokens went even after the escrow was closed. null when the chain kept no token balances for it.
   */
  tokenBalances: TokenBalanceChange[] | null;
}

export interface SignatureInfo {
  signature: string;
  slot: number;
  err: string | null;
  blockTime: number | null;
}

/** What land() saw: a state, or 'expired' once the blockhash passed with the signature still unknown. */
export type LandResult = SignatureState | { status: 'expired' };

export interface ChainPort {
  readonly kind: 'embedded' | 'rpc';
  readonly programId: PublicKey;
  readonly makerWallet: PublicKey;
  /**
   * Every commitment sees a transaction the moment it lands (the instant embedded chain): a lock seen at
   * confirmed is final. Absent or false: finalized lags (a cluster, or an embedded chain keeping real time).
   */
  readonly instantFinality?: boolean;

  /** Chain clock, unix seconds (Clock sysvar). */
  now(): Promise<bigint>;
  blockHeight(): Promise<number>;
  /**
   * The slots the cluster's confirmed and finalized commitments have reached: how far finality trails
   * (about 30 slots on a healthy cluster). Absent on a port that cannot tell.
   */
  commitmentSlots?(): Promise<{ confirmed: number; finalized: number }>;
  latestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }>;

  /**
   * Fee payer = taker; creates the taker's OUTPUT token account (ATA, idempotent); when the input is
   * wrapped SOL also creates the taker's WSOL ATA, transfers the lamports in and syncs it before the
   * lock; recipient = maker wallet.
   */
  buildTakerLock(a: {
    taker: PublicKey;
    inputMint: PublicKey;
    outputMint: PublicKey;
    amount: bigint;
    hashlock: Uint8Array;
    expiry: bigint;
    lockDeadline: bigint;
  }): Promise<UnsignedTransaction>;
  /** The taker redeems the MAKER escrow into its output ATA (created idempotently); unwraps SOL output. */
  buildTakerRedeem(a: {
    taker: PublicKey;
    takerEscrow: PublicKey;
    outputMint: PublicKey;
    preimage: Uint8Array;
  }): Promise<UnsignedTransaction>;
  /** Refund of the taker escrow to the taker's input ATA (created idempotently); unwraps SOL input. */
  buildTakerRefund(a: {
    taker: PublicKey;
    takerEscrow: PublicKey;
    inputMint: PublicKey;
  }): Promise<UnsignedTransaction>;

  /**
   * Sends a wallet-signed transaction. Throws ChainError: invalid_transaction / missing_signature /
   * invalid_signature / blockhash_expired before it reaches the chain, `rejected` (with htlcError) when
   * the chain refused it. Sending one that already landed answers its signature.
   */
  submitSigned(transactionBase64: string): Promise<{ signature: string }>;

  /**
   * The maker lock against the taker escrow, refused on chain unless it holds exactly `inputAmount` of
   * `inputMint` and expires exactly at `takerExpiry`.
   */
  signMakerLock(
    a: {
      takerEscrow: PublicKey;
      taker: PublicKey;
      inputMint: PublicKey;
      inputAmount: bigint;
      takerExpiry: bigint;
      outputMint: PublicKey;
      amount: bigint;
      hashlock: Uint8Array;
      expiry: bigint;
      lockDeadline: bigint;
    },
    options?: SignOptions,
  ): Promise<SignedMakerTransaction>;
  /** Redeems the TAKER escrow into the maker's input token account. */
  signMakerRedeem(
    a: {
      takerEscrow: PublicKey;
      inputMint: PublicKey;
      preimage: Uint8Array;
    },
    options?: SignOptions,
  ): Promise<SignedMakerTransaction>;
  signMakerRefund(
    a: { makerEscrow: PublicKey; outputMint: PublicKey },
    options?: SignOptions,
  ): Promise<SignedMakerTransaction>;
  /** The maker (recipient of the taker escrow) releases it at once back to the taker. */
  signMakerCancel(
    a: {
      takerEscrow: PublicKey;
      taker: PublicKey;
      inputMint: PublicKey;
    },
    options?: SignOptions,
  ): Promise<SignedMakerTransaction>;
  /** Maker pays the fee for the taker's redeem of the maker escrow; funds go to the taker only. */
  signRedeemFor(
    a: {
      takerEscrow: PublicKey;
      taker: PublicKey;
      outputMint: PublicKey;
      preimage: Uint8Array;
    },
    options?: SignOptions,
  ): Promise<SignedMakerTransaction>;
  /** Maker submits the taker escrow's expiry refund; funds go to the taker only. */
  signRefundFor(
    a: {
      takerEscrow: PublicKey;
      taker: PublicKey;
      inputMint: PublicKey;
    },
    options?: SignOptions,
  ): Promise<SignedMakerTransaction>;
  /**
   * Maker closes its own settled maker escrow (rent back to the maker); tokens donated to the vault are
   * swept to the maker's token account for `mint`, the escrow's mint.
   */
  signClose(
    a: { escrow: PublicKey; mint: PublicKey },
    options?: SignOptions,
  ): Promise<SignedMakerTransaction>;
  /**
   * A v0 transaction of the given instructions (an aggregator swap the caller has checked), the maker its
   * fee payer and only signer, with a fresh blockhash and the lookup tables read from the chain. Throws
   * ChainError invalid_transaction when another signer is needed, a table is missing or the message does
   * not fit a packet. Not sent: the caller records it, then send()/land() it like any maker transaction.
   */
  signMakerInstructions(a: MakerInstructions): Promise<SignedMakerTransaction>;

  /**
   * (Re)broadcasts signed bytes. Idempotent: a transaction that already landed is not an error.
   * Throws ChainError `blockhash_expired` when it can never land, `rejected` (with htlcError) when the
   * chain refused it, `unavailable` when the chain could not be reached (retry).
   */
  send(tx: SignedMakerTransaction | { transactionBase64: string }): Promise<void>;
  signatureState(signature: string): Promise<SignatureState>;
  /** Polls until the signature reaches the commitment (or failed there), or the timeout; answers the last state. */
  confirm(signature: string, commitment: Commitment, timeoutMs: number): Promise<SignatureState>;
  /**
   * send() + confirm loop: rebroadcasts the same bytes until they land at the commitment, the
   * blockhash expires with the signature still unknown ('expired'), or the timeout passes.
   */
  land(tx: SignedMakerTransaction, commitment: Commitment, timeoutMs: number): Promise<LandResult>;

  /** The escrow at the address, or null when absent (or not an escrow of our program). */
  readEscrow(address: PublicKey, commitment: Commitment): Promise<EscrowState | null>;
  /** Signatures that touched the address, newest first (a lock the taker sent itself shows up here). */
  signaturesForAddress(
    address: PublicKey,
    commitment: Commitment,
    limit?: number,
    /** Page back: only signatures older than this one. */
    before?: string,
  ): Promise<SignatureInfo[]>;
  getTransaction(signature: string, commitment: Commitment): Promise<ChainTransaction | null>;

  /** The mint's token program and decimals, or null when no account is there. */
  readMint(mint: PublicKey): Promise<MintInfo | null>;
  /** Amount in the owner's associated token account for the mint; 0 when absent. */
  tokenBalance(owner: PublicKey, mint: PublicKey): Promise<bigint>;
  solBalance(owner: PublicKey): Promise<bigint>;
  health(): Promise<{ ok: boolean; detail: string }>;
  close(): Promise<void>;

  /**
   * readEscrow of many addresses, answered in input order. The rpc chain asks in chunks of at most 100
   * keys (one getMultipleAccounts each), a few chunks at a time.
   */
  readEscrows(addresses: readonly PublicKey[], commitment: Commitment): Promise<(EscrowState | null)[]>;
  /**
   * readEscrows plus the chain clock in the same read: the Clock sysvar rides along in a chunk with room,
   * so n escrows and the time cost ceil((n + 1) / 100) calls, and the time is that of the snapshot.
   */
  readEscrowsAndClock(addresses: readonly PublicKey[], commitment: Commitment): Promise<EscrowsAndClock>;
  /**
   * Price update accounts, batched (getMultipleAccounts ≤ 100 per call) at the commitment, plus the chain
   * clock read in the same batch, as readEscrowsAndClock does. An entry is null when the account is
   * missing, not owned by the Pyth receiver program, or does not decode.
   */
  readPriceUpdates(accounts: readonly PublicKey[], commitment: Commitment): Promise<PriceUpdates>;
  /**
   * Pushes the addresses of accounts that changed as the commitment (default finalized) sees them. Embedded:
   * every writable account of each executed transaction once the commitment sees it (at once on the instant
   * chain), always live, called synchronously (keep onChange cheap: note, don't read). Rpc: programSubscribe
   * at the commitment on the HTLC program over the cluster's websocket — an escrow that a transaction
   * CLOSES is not pushed there (see rpc/feed.ts), so the watcher keeps a periodic batched sweep.
   */
  watchAccounts(onChange: (addresses: readonly string[]) => void, commitment?: Commitment): AccountFeed;
}

/** Dev-only controls, offered by the embedded chain (and the loopback server's dev_* methods). */
export interface DevChain {
  /** Funds the wallet with the asset (SOL: native lamports, which the lock wraps) plus SOL for fees and rent. */
  airdrop(a: { wallet: PublicKey; mint: PublicKey; amount: bigint }): Promise<{ signature: string }>;
  /** Moves the chain clock (and the slot with it) forward. */
  advanceClock(seconds: number): Promise<void>;
}

/** One token account's balance around a transaction (see ChainTransaction.tokenBalances). */
export interface TokenBalanceChange {
  account: string;
  mint: string;
  /** The token account's authority (after the transaction; before it when the account was closed). */
  owner: string;
  pre: bigint;
  post: bigint;
}

export interface EscrowsAndClock {
  escrows: (EscrowState | null)[];
  /** Chain clock, unix seconds, as the Clock sysvar read with the escrows shows it. */
  now: bigint;
  slot: number;
}

export interface PriceUpdates {
  /** In input order. */
  updates: (PriceUpdate | null)[];
  /** Chain clock, unix seconds, as the Clock sysvar read with the accounts shows it. */
  clockUnix: number;
  slot: number;
}

export interface AccountFeed {
  /** Pushes are flowing right now; while false the watcher polls with batched reads instead. */
  readonly live: boolean;
  /**
   * How many times the feed has gone live. Changes pushed while it was down are lost, so a watcher that
   * sees this move since its last look sweeps once before trusting pushes again.
   */
  readonly generation: number;
  close(): void;
}
