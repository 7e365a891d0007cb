// Check before signing. Every transaction the taker's wallet is asked to sign — the service's lock, the
// client's own redeem and refund, anything a front end is handed — is decoded from its bytes and held to
// what the taker agreed to: only the instructions that step needs, each with the agreed values; nothing that
// moves, delegates, closes or re-assigns the taker's funds; no lookup table hiding accounts. Pure functions
// of the bytes and the expectation: the addresses they compare with are derived beforehand
// (`lockAgreement`, `redeemExpectation`, `refundExpectation`), so a check needs no I/O and no await.
import { getAddressDecoder } from '@solana/kit';
import { sameBytes, toHex } from './bytes.ts';
import {
  associatedTokenAddress,
  NATIVE_MINT,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  takerEscrowAddress,
  vaultAddress,
} from './htlc.ts';
import { accountAt, type DecodedInstruction, i64, u64 } from './instructions.ts';
import {
  type Common,
  commonChecks,
  type DecodedTransaction,
  decodedTransaction,
  Findings,
  fromBase64Strict,
  type TransactionCheckResult,
} from './transaction-rules.ts';

export {
  COMPUTE_BUDGET_PROGRAM_ID,
  type DecodedInstruction,
  describeInstruction,
  type InstructionKind,
  TOKEN_2022_PROGRAM_ID,
} from './instructions.ts';
export {
  type DecodedTransaction,
  LAMPORTS_PER_SIGNATURE,
  TRANSACTION_CHECK_NAMES,
  type TransactionCheckName,
  type TransactionCheckResult,
} from './transaction-rules.ts';

/**
 * The rent a lock takes out of the taker's hands: the escrow (264 bytes) and its vault (165), each at the
 * rent-exempt minimum, (128 + size) × 3,480 lamports per byte-year × 2 years, as on every cluster today.
 * It comes back when the taker closes its settled escrow. (The taker's own token accounts' rent stays the
 * taker's: it sits in those accounts.)
 */
export const ESCROW_RENT_LAMPORTS = (128n + 264n + (128n + 165n)) * 3_480n * 2n;

/** What the taker agreed to lock: from its own record of the quote and its own configuration. */
export interface LockAgreement {
  /** The HTLC program the client pins. */
  programId: string;
  /** The wallet: fee payer, initializer of the lock, owner of the input. */
  taker: string;
  /** The maker's pinned key: the lock's counterparty. Null only when the client trusts an embedded service. */
  maker: string | null;
  inputMint: string;
  outputMint: string;
  /** The quoted input, raw units: exactly what the lock holds. */
  amountRaw: bigint;
  /** sha256 of the client's own preimage. */
  hashlock: Uint8Array;
  /** Bounds on the lock's expiry (unix seconds, chain time), both inclusive. */
  minExpiry: bigint;
  maxExpiry: bigint;
  /** The most the transaction may bid above the base fee (compute-unit price × limit), lamports. */
  maxPriorityFeeLamports: bigint;
  /** The highest SetComputeUnitLimit accepted. */
  maxComputeUnitLimit: number;
  /** Derived by `lockAgreement`: the taker escrow PDA, its vault, the taker's input and output ATAs. */
  takerEscrow: string;
  vault: string;
  inputTokenAccount: string;
  outputTokenAccount: string;
}

/** What the client expects of a redeem it signs: the maker escrow paid into the taker's own account. */
export interface RedeemExpectation {
  programId: string;
  taker: string;
  makerEscrow: string;
  vault: string;
  outputMint: string;
  outputTokenAccount: string;
  /** The client's own preimage: the one the redeem must carry. */
  preimage: Uint8Array;
  maxPriorityFeeLamports: bigint;
  maxComputeUnitLimit: number;
}

/** What the client expects of a refund it signs: the taker escrow back into the taker's own account. */
export interface RefundExpectation {
  programId: string;
  taker: string;
  takerEscrow: string;
  vault: string;
  inputMint: string;
  inputTokenAccount: string;
  maxPriorityFeeLamports: bigint;
  maxComputeUnitLimit: number;
}

export type TransactionExpectation =
  | { kind: 'lock'; agreement: LockAgreement }
  | { kind: 'redeem'; expectation: RedeemExpectation }
  | { kind: 'refund'; expectation: RefundExpectation };

/** Everything a lock says, decoded from the transaction itself (never from the service's JSON). */
export interface DecodedLock {
  feePayer: string;
  programId: string;
  /** The lock's initializer (its first account): signs it; its token account funds it. */
  taker: string;
  /** The token account the input leaves (the lock's fifth account). */
  sourceTokenAccount: string;
  /** Who a refund pays: the program refunds only to the initializer's token account of the mint. */
  refundTo: string;
  /** The recipient the lock names: who may redeem it with the preimage, the maker. */
  counterparty: string;
  mint: string;
  amountRaw: bigint;
  hashlock: Uint8Array;
  /** Unix seconds, chain time: redeemable before, refundable from. */
  expiry: bigint;
  lockDeadline: bigint;
  escrow: string;
  vault: string;
  /** SetComputeUnitLimit when present; null: the runtime's default. */
  computeUnitLimit: number | null;
  /** Compute-unit price × limit, lamports (0 without a price). */
  priorityFeeLamports: bigint;
  /** The base fee: 5,000 lamports per signature. */
  baseFeeLamports: bigint;
  instructions: DecodedInstruction[];
}

export interface TransactionCheck {
  ok: boolean;
  checks: TransactionCheckResult[];
  /** The lock, for a lock whose HTLC instruction could be decoded; null otherwise. */
  lock: DecodedLock | null;
  /** Null when the bytes are not a transaction. */
  transaction: DecodedTransaction | null;
}

// ── Deriving what to compare with ─────────────────────────────────────────────────────────────────

/** A LockAgreement with its derived addresses (escrow, vault, the taker's token accounts). */
export async function lockAgreement(
  terms: Omit<LockAgreement, 'takerEscrow' | 'vault' | 'inputTokenAccount' | 'outputTokenAccount'>,
): Promise<LockAgreement> {
  const takerEscrow = await takerEscrowAddress(terms.programId, terms.taker, terms.hashlock);
  return {
    ...terms,
    takerEscrow,
    vault: await vaultAddress(terms.programId, takerEscrow),
    inputTokenAccount: await associatedTokenAddress(terms.taker, terms.inputMint),
    outputTokenAccount: await associatedTokenAddress(terms.taker, terms.outputMint),
  };
}

export async function redeemExpectation(
  terms: Omit<RedeemExpectation, 'vault' | 'outputTokenAccount'>,
): Promise<RedeemExpectation> {
  return {
    ...terms,
    vault: await vaultAddress(terms.programId, terms.makerEscrow),
    outputTokenAccount: await associatedTokenAddress(terms.taker, terms.outputMint),
  };
}

export async function refundExpectation(
  terms: Omit<RefundExpectation, 'vault' | 'inputTokenAccount'>,
): Promise<RefundExpectation> {
  return {
    ...terms,
    vault: await vaultAddress(terms.programId, terms.takerEscrow),
    inputTokenAccount: await associatedTokenAddress(terms.taker, terms.inputMint),
  };
}

const answer = (findings: Findings, lock: DecodedLock | null, common: Common | null): TransactionCheck => {
  const checks = findings.results();
  return {
    ok: checks.every((c) => c.ok),
    checks,
    lock,
    transaction: common ? decodedTransaction(common) : null,
  };
};

const LOCK_DATA_SIZE = 90;

/**
 * The service's lock, held to the agreement: compute budget within the bounds, the wallet's own token
 * accounts created idempotently, SOL wrapped into the wallet's own account when SOL is the input, and one
 * taker lock of the pinned program with exactly the agreed terms; nothing else.
 */
export function checkLockTransaction(transactionBase64: string, agreement: LockAgreement): TransactionCheck {
  const findings = new Findings();
  let bytes: Uint8Array;
  try {
    bytes = fromBase64Strict(transactionBase64);
  } catch (error) {
    findings.fail('decodes', (error as Error).message);
    return answer(findings, null, null);
  }
  const native = agreement.inputMint === NATIVE_MINT;
  const tokenAccounts = new Map([
    [agreement.inputTokenAccount, agreement.inputMint],
    [agreement.outputTokenAccount, agreement.outputMint],
  ]);
  const common = commonChecks(
    bytes,
    {
      wallet: agreement.taker,
      programId: agreement.programId,
      htlcKind: 'htlc_lock',
      maxPriorityFeeLamports: agreement.maxPriorityFeeLamports,
      maxComputeUnitLimit: agreement.maxComputeUnitLimit,
      tokenAccounts,
      wrap: native ? { account: agreement.inputTokenAccount, lamports: agreement.amountRaw } : null,
      unwrap: null,
    },
    findings,
  );
  if (!common?.htlc) return answer(findings, null, common);
  const ix = common.htlc;
  const { data } = ix;
  const layoutOk = data.length === LOCK_DATA_SIZE && data[1] === 1 && ix.accounts.length === 7;
  findings.check(
    'instruction_layout',
    layoutOk,
    `${data.length} data bytes (${LOCK_DATA_SIZE}), kind ${data[1]} (1: a taker lock), ${ix.accounts.length} accounts (7)`,
  );
  if (data.length < LOCK_DATA_SIZE || ix.accounts.length < 7) return answer(findings, null, common);

  const lock: DecodedLock = {
    feePayer: common.message.feePayer,
    programId: ix.programId,
    taker: accountAt(ix, 0),
    sourceTokenAccount: accountAt(ix, 4),
    refundTo: accountAt(ix, 0),
    counterparty: addressFromBytes(data.slice(34, 66)),
    mint: accountAt(ix, 3),
    amountRaw: u64(data, 66) ?? 0n,
    hashlock: data.slice(2, 34),
    expiry: i64(data, 74) ?? 0n,
    lockDeadline: i64(data, 82) ?? 0n,
    escrow: accountAt(ix, 1),
    vault: accountAt(ix, 2),
    computeUnitLimit: common.computeUnitLimit,
    priorityFeeLamports: common.priorityFeeLamports,
    baseFeeLamports: common.baseFeeLamports,
    instructions: common.instructions,
  };
  const flags = ix.accounts;
  const flagsOk =
    !!flags[0]?.signer &&
    !!flags[0]?.writable &&
    !!flags[1]?.writable &&
    !!flags[2]?.writable &&
    !!flags[4]?.writable;
  findings.check(
    'escrow_accounts',
    lock.escrow === agreement.takerEscrow &&
      lock.vault === agreement.vault &&
      accountAt(ix, 5) === TOKEN_PROGRAM_ID &&
      accountAt(ix, 6) === SYSTEM_PROGRAM_ID &&
      flagsOk,
    `escrow ${lock.escrow} (derived ${agreement.takerEscrow}), vault ${lock.vault} (derived ${agreement.vault}), ` +
      `token program ${accountAt(ix, 5)}, system program ${accountAt(ix, 6)}${flagsOk ? '' : ', signer/writable flags not the lock’s'}`,
  );
  findings.check(
    'amount',
    lock.amountRaw === agreement.amountRaw,
    `locks ${lock.amountRaw} raw, the quote's input is ${agreement.amountRaw}`,
  );
  findings.check(
    'mint',
    lock.mint === agreement.inputMint,
    `mint ${lock.mint}, agreed ${agreement.inputMint}`,
  );
  findings.check(
    'hashlock',
    sameBytes(lock.hashlock, agreement.hashlock),
    `hashlock ${toHex(lock.hashlock)}, the client's own commitment is ${toHex(agreement.hashlock)}`,
  );
  findings.check(
    'counterparty',
    agreement.maker === null || lock.counterparty === agreement.maker,
    agreement.maker === null
      ? `redeemable by ${lock.counterparty} (no maker key pinned: the embedded service's word)`
      : `redeemable by ${lock.counterparty}, the pinned maker is ${agreement.maker}`,
  );
  findings.check(
    'taker',
    lock.sourceTokenAccount === agreement.inputTokenAccount,
    `takes the input from ${lock.sourceTokenAccount}, the wallet's own token account is ${agreement.inputTokenAccount}`,
  );
  findings.check(
    'refund_destination',
    lock.refundTo === agreement.taker,
    `a refund pays the lock's initializer ${lock.refundTo}, the wallet is ${agreement.taker}`,
  );
  findings.check(
    'expiry',
    lock.expiry >= agreement.minExpiry && lock.expiry <= agreement.maxExpiry,
    `expires at ${lock.expiry}, accepted from ${agreement.minExpiry} to ${agreement.maxExpiry}`,
  );
  return answer(findings, lock, common);
}

/** A redeem the client built: the maker escrow paid into the wallet's own account, with its own preimage. */
export function checkRedeemTransaction(
  transactionBase64: string,
  expectation: RedeemExpectation,
): TransactionCheck {
  return checkPayout(transactionBase64, 'htlc_redeem', {
    ...expectation,
    escrow: expectation.makerEscrow,
    mint: expectation.outputMint,
    tokenAccount: expectation.outputTokenAccount,
  });
}

/** A refund the client built: the taker escrow back into the wallet's own account. */
export function checkRefundTransaction(
  transactionBase64: string,
  expectation: RefundExpectation,
): TransactionCheck {
  return checkPayout(transactionBase64, 'htlc_refund', {
    ...expectation,
    escrow: expectation.takerEscrow,
    mint: expectation.inputMint,
    tokenAccount: expectation.inputTokenAccount,
    preimage: null,
  });
}

/** Any transaction a front end is asked to sign, held to what that step must be. */
export function checkTransaction(
  transactionBase64: string,
  expectation: TransactionExpectation,
): TransactionCheck {
  switch (expectation.kind) {
    case 'lock':
      return checkLockTransaction(transactionBase64, expectation.agreement);
    case 'redeem':
      return checkRedeemTransaction(transactionBase64, expectation.expectation);
    case 'refund':
      return checkRefundTransaction(transactionBase64, expectation.expectation);
  }
}

function checkPayout(
  transactionBase64: string,
  kind: 'htlc_redeem' | 'htlc_refund',
  e: {
    programId: string;
    taker: string;
    escrow: string;
    vault: string;
    mint: string;
    tokenAccount: string;
    preimage: Uint8Array | null;
    maxPriorityFeeLamports: bigint;
    maxComputeUnitLimit: number;
  },
): TransactionCheck {
  const findings = new Findings();
  let bytes: Uint8Array;
  try {
    bytes = fromBase64Strict(transactionBase64);
  } catch (error) {
    findings.fail('decodes', (error as Error).message);
    return answer(findings, null, null);
  }
  const common = commonChecks(
    bytes,
    {
      wallet: e.taker,
      programId: e.programId,
      htlcKind: kind,
      maxPriorityFeeLamports: e.maxPriorityFeeLamports,
      maxComputeUnitLimit: e.maxComputeUnitLimit,
      tokenAccounts: new Map([[e.tokenAccount, e.mint]]),
      wrap: null,
      unwrap: e.mint === NATIVE_MINT ? e.tokenAccount : null,
    },
    findings,
  );
  if (!common?.htlc) return answer(findings, null, common);
  const ix = common.htlc;
  const size = kind === 'htlc_redeem' ? 33 : 1;
  findings.check(
    'instruction_layout',
    ix.data.length === size && ix.accounts.length === 4,
    `${ix.data.length} data bytes (${size}), ${ix.accounts.length} accounts (4)`,
  );
  const writable = ix.accounts.slice(0, 3).every((a) => a.writable);
  findings.check(
    'escrow_accounts',
    accountAt(ix, 0) === e.escrow &&
      accountAt(ix, 1) === e.vault &&
      accountAt(ix, 3) === TOKEN_PROGRAM_ID &&
      writable,
    `escrow ${accountAt(ix, 0)} (expected ${e.escrow}), vault ${accountAt(ix, 1)} (derived ${e.vault}), token program ${accountAt(ix, 3)}`,
  );
  findings.check(
    'payout_account',
    accountAt(ix, 2) === e.tokenAccount,
    `pays into ${accountAt(ix, 2)}, the wallet's own token account is ${e.tokenAccount}`,
  );
  if (e.preimage)
    findings.check(
      'preimage',
      ix.data.length === 33 && sameBytes(ix.data.slice(1), e.preimage),
      'the redeem carries the client’s own preimage',
    );
  return answer(findings, null, common);
}

const addressFromBytes = (bytes: Uint8Array): string => getAddressDecoder().decode(bytes);
