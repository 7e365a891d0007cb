// Check before signing. Every transaction the taker's wallet is asked to sign — the service's lock, the
// client's own redeem and refund, anything a front end is handed — is decoded from its bytes and held to
// what the taker agreed to: only the instructions that step needs, each with the agreed values; nothing that
// moves, delegates, closes or re-assigns the taker's funds; no lookup table hiding accounts. Pure functions
// of the bytes and the expectation: the addresses they compare with are derived beforehand
// (`lockAgreement`, `redeemExpectation`, `refundExpectation`), so a check needs no I/O and no await.
import { getAddressDecoder } from '@solana/kit';
import { sameBytes, toHex } from './bytes.ts';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  NATIVE_MINT,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  takerEscrowAddress,
  vaultAddress,
} from './htlc.ts';
import { type DecodedMessage, decodeMessage, type MessageInstruction } from './message.ts';

export const COMPUTE_BUDGET_PROGRAM_ID = 'ComputeBudget111111111111111111111111111111';
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

/** The base fee per signature (lamports), the same on every Solana cluster. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
/**
 * The rent a lock takes out of the taker's hands: the escrow (264 bytes) and its vault (165), each at the
 * rent-exempt minimum, (128 + size) × 3,480 lamports per byte-year × 2 years, as on every cluster today.
 * It comes back when the taker closes its settled escrow. (The taker's own token accounts' rent stays the
 * taker's: it sits in those accounts.)
 */
export const ESCROW_RENT_LAMPORTS = (128n + 264n + (128n + 165n)) * 3_480n * 2n;
/** The limit a compute-unit price is multiplied by when no SetComputeUnitLimit says otherwise. */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const MAX_COMPUTE_UNITS = 1_400_000;

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

export const TRANSACTION_CHECK_NAMES = [
  'decodes',
  'fee_payer',
  'lookup_tables',
  'known_programs',
  'compute_budget',
  'priority_fee',
  'token_accounts',
  'wrap',
  'no_transfer',
  'no_delegate',
  'no_set_authority',
  'no_close',
  'htlc_program',
  'instruction_layout',
  'escrow_accounts',
  'amount',
  'mint',
  'hashlock',
  'counterparty',
  'taker',
  'refund_destination',
  'expiry',
  'payout_account',
  'preimage',
] as const;

export type TransactionCheckName = (typeof TRANSACTION_CHECK_NAMES)[number];

export interface TransactionCheckResult {
  name: TransactionCheckName;
  ok: boolean;
  /** What was found, in words. */
  detail: string;
}

/** One instruction as the checks saw it: its program, what it is, and what it does in words. */
export interface DecodedInstruction {
  index: number;
  programId: string;
  kind: InstructionKind;
  description: string;
}

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

/** The transaction as a whole, whatever it is: what the front end can show of any transaction. */
export interface DecodedTransaction {
  version: 'legacy' | 0;
  feePayer: string;
  signers: string[];
  recentBlockhash: string;
  /** Every account the transaction may write (static keys only; lookup tables are refused). */
  writableAccounts: string[];
  computeUnitLimit: number | null;
  priorityFeeLamports: bigint;
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

export type InstructionKind =
  | 'compute_unit_limit'
  | 'compute_unit_price'
  | 'compute_budget_other'
  | 'create_token_account'
  | 'create_token_account_strict'
  | 'associated_token_other'
  | 'system_transfer'
  | 'system_create_account'
  | 'system_assign'
  | 'system_other'
  | 'token_transfer'
  | 'token_burn'
  | 'token_approve'
  | 'token_revoke'
  | 'token_set_authority'
  | 'token_close'
  | 'token_sync_native'
  | 'token_other'
  | 'htlc_lock'
  | 'htlc_redeem'
  | 'htlc_refund'
  | 'htlc_cancel'
  | 'htlc_close'
  | 'htlc_other'
  | 'unknown';

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

// ── Reading instructions ──────────────────────────────────────────────────────────────────────────

const u32 = (data: Uint8Array, at: number) =>
  data.length >= at + 4 ? new DataView(data.buffer, data.byteOffset).getUint32(at, true) : null;
const u64 = (data: Uint8Array, at: number) =>
  data.length >= at + 8 ? new DataView(data.buffer, data.byteOffset).getBigUint64(at, true) : null;
const i64 = (data: Uint8Array, at: number) =>
  data.length >= at + 8 ? new DataView(data.buffer, data.byteOffset).getBigInt64(at, true) : null;
const accountAt = (ix: MessageInstruction, i: number) => ix.accounts[i]?.address ?? '(missing)';

const TOKEN_NAMES: Record<number, [InstructionKind, string]> = {
  3: ['token_transfer', 'transfer'],
  4: ['token_approve', 'approve'],
  5: ['token_revoke', 'revoke'],
  6: ['token_set_authority', 'setAuthority'],
  8: ['token_burn', 'burn'],
  9: ['token_close', 'closeAccount'],
  12: ['token_transfer', 'transferChecked'],
  13: ['token_approve', 'approveChecked'],
  15: ['token_burn', 'burnChecked'],
  17: ['token_sync_native', 'syncNative'],
};

const SYSTEM_NAMES: Record<number, [InstructionKind, string]> = {
  0: ['system_create_account', 'createAccount'],
  1: ['system_assign', 'assign'],
  2: ['system_transfer', 'transfer'],
  3: ['system_create_account', 'createAccountWithSeed'],
  5: ['system_transfer', 'withdrawNonceAccount'],
  7: ['system_assign', 'authorizeNonceAccount'],
  8: ['system_assign', 'allocate'],
  9: ['system_assign', 'allocateWithSeed'],
  10: ['system_assign', 'assignWithSeed'],
  11: ['system_transfer', 'transferWithSeed'],
};

const HTLC_KINDS: Record<number, InstructionKind> = {
  0: 'htlc_lock',
  1: 'htlc_redeem',
  2: 'htlc_refund',
  3: 'htlc_cancel',
  4: 'htlc_close',
};

/** What an instruction is, in the vocabulary of the checks, and what it does in words. */
export function describeInstruction(ix: MessageInstruction, htlcProgramId: string): DecodedInstruction {
  const { data, programId } = ix;
  const tag = data[0];
  const base = { index: ix.index, programId };
  if (programId === COMPUTE_BUDGET_PROGRAM_ID) {
    if (tag === 2 && data.length === 5)
      return { ...base, kind: 'compute_unit_limit', description: `compute-unit limit ${u32(data, 1)}` };
    if (tag === 3 && data.length === 9)
      return {
        ...base,
        kind: 'compute_unit_price',
        description: `compute-unit price ${u64(data, 1)} micro-lamports`,
      };
    return {
      ...base,
      kind: 'compute_budget_other',
      description: `a compute-budget instruction (tag ${tag})`,
    };
  }
  if (programId === ASSOCIATED_TOKEN_PROGRAM_ID) {
    const what = `the token account ${accountAt(ix, 1)} of ${accountAt(ix, 2)} for mint ${accountAt(ix, 3)}, paid by ${accountAt(ix, 0)}`;
    if (tag === 1 && data.length === 1)
      return { ...base, kind: 'create_token_account', description: `create (if missing) ${what}` };
    if (data.length === 0 || (tag === 0 && data.length === 1))
      return { ...base, kind: 'create_token_account_strict', description: `create ${what}` };
    return {
      ...base,
      kind: 'associated_token_other',
      description: `an associated-token instruction (tag ${tag})`,
    };
  }
  if (programId === SYSTEM_PROGRAM_ID) {
    const code = u32(data, 0);
    const named = code === null ? undefined : SYSTEM_NAMES[code];
    if (!named) return { ...base, kind: 'system_other', description: `a System instruction (${code})` };
    const [kind, name] = named;
    const lamports = kind === 'system_transfer' && code === 2 ? u64(data, 4) : null;
    return {
      ...base,
      kind,
      description:
        code === 2
          ? `System transfer of ${lamports} lamports from ${accountAt(ix, 0)} to ${accountAt(ix, 1)}`
          : `System ${name} (accounts ${ix.accounts.map((a) => a.address).join(', ')})`,
    };
  }
  if (programId === TOKEN_PROGRAM_ID || programId === TOKEN_2022_PROGRAM_ID) {
    const program = programId === TOKEN_PROGRAM_ID ? 'SPL Token' : 'Token-2022';
    const named = tag === undefined ? undefined : TOKEN_NAMES[tag];
    if (!named) return { ...base, kind: 'token_other', description: `${program} instruction ${tag}` };
    const [kind, name] = named;
    const amount = [3, 4, 8, 12, 13, 15].includes(tag as number) ? u64(data, 1) : null;
    const details: Record<string, string> = {
      token_transfer: `${amount} from ${accountAt(ix, 0)} to ${accountAt(ix, tag === 12 ? 2 : 1)}`,
      token_approve: `delegate ${accountAt(ix, tag === 13 ? 2 : 1)} over ${accountAt(ix, 0)} for ${amount}`,
      token_revoke: `of ${accountAt(ix, 0)}`,
      token_set_authority: `of ${accountAt(ix, 0)}`,
      token_burn: `${amount} from ${accountAt(ix, 0)}`,
      token_close: `${accountAt(ix, 0)} into ${accountAt(ix, 1)}`,
      token_sync_native: `of ${accountAt(ix, 0)}`,
    };
    return { ...base, kind, description: `${program} ${name} ${details[kind] ?? ''}`.trim() };
  }
  if (programId === htlcProgramId) {
    const kind = (tag === undefined ? undefined : HTLC_KINDS[tag]) ?? 'htlc_other';
    return {
      ...base,
      kind,
      description: `HTLC ${kind.slice(5)} of escrow ${accountAt(ix, kind === 'htlc_lock' ? 1 : 0)}`,
    };
  }
  return { ...base, kind: 'unknown', description: `an instruction of program ${programId}` };
}

// ── The checks ────────────────────────────────────────────────────────────────────────────────────

/** Collects each check's problems; a check with none passes with its `ok` words. */
class Findings {
  private readonly problems = new Map<TransactionCheckName, string[]>();
  private readonly passes = new Map<TransactionCheckName, string>();
  private readonly order: TransactionCheckName[] = [];

  private touch(name: TransactionCheckName) {
    if (!this.order.includes(name)) this.order.push(name);
  }
  fail(name: TransactionCheckName, problem: string) {
    this.touch(name);
    this.problems.set(name, [...(this.problems.get(name) ?? []), problem]);
  }
  pass(name: TransactionCheckName, words: string) {
    this.touch(name);
    if (!this.passes.has(name)) this.passes.set(name, words);
  }
  check(name: TransactionCheckName, ok: boolean, words: string) {
    if (ok) this.pass(name, words);
    else this.fail(name, words);
  }
  results(): TransactionCheckResult[] {
    return TRANSACTION_CHECK_NAMES.filter((name) => this.order.includes(name)).map((name) => {
      const problems = this.problems.get(name);
      return problems
        ? { name, ok: false, detail: problems.join('; ') }
        : { name, ok: true, detail: this.passes.get(name) ?? '' };
    });
  }
}

interface Rules {
  wallet: string;
  programId: string;
  htlcKind: 'htlc_lock' | 'htlc_redeem' | 'htlc_refund';
  maxPriorityFeeLamports: bigint;
  maxComputeUnitLimit: number;
  /** The taker's own token accounts the transaction may create (idempotently): ATA → mint. */
  tokenAccounts: Map<string, string>;
  /** SOL wrapped into the wallet's own wrapped-SOL account for the lock: where, how much. */
  wrap: { account: string; lamports: bigint } | null;
  /** The wallet's own wrapped-SOL account, closed into the wallet after a redeem or refund. */
  unwrap: string | null;
}

interface Common {
  message: DecodedMessage;
  instructions: DecodedInstruction[];
  /** The HTLC instruction the transaction is about: the pinned program's, else a look-alike's. */
  htlc: MessageInstruction | null;
  computeUnitLimit: number | null;
  priorityFeeLamports: bigint;
  baseFeeLamports: bigint;
}

/** The checks every transaction the taker signs goes through; answers what the kind-specific ones need. */
function commonChecks(bytes: Uint8Array, rules: Rules, findings: Findings): Common | null {
  let message: DecodedMessage;
  try {
    message = decodeMessage(bytes);
  } catch (error) {
    findings.fail('decodes', (error as Error).message);
    return null;
  }
  findings.pass('decodes', `a ${message.version === 'legacy' ? 'legacy' : 'v0'} transaction`);
  findings.check(
    'fee_payer',
    message.feePayer === rules.wallet,
    `fee payer ${message.feePayer}, the wallet is ${rules.wallet}`,
  );
  findings.check(
    'lookup_tables',
    message.lookups.length === 0,
    message.lookups.length === 0
      ? 'no address lookup table'
      : `loads accounts through lookup table${message.lookups.length > 1 ? 's' : ''} ${message.lookups
          .map(
            (l) => `${l.table} (writable ${l.writableIndexes.length}, read-only ${l.readonlyIndexes.length})`,
          )
          .join(', ')}: accounts the bytes do not name`,
  );

  const instructions = message.instructions.map((ix) => describeInstruction(ix, rules.programId));
  // The HTLC instruction: the pinned program's of the expected kind; failing that, any of the pinned
  // program's; failing that, an unknown program's that is shaped like it (a look-alike program).
  const pinned = message.instructions.filter((ix) => ix.programId === rules.programId);
  const expectedTag = { htlc_lock: 0, htlc_redeem: 1, htlc_refund: 2 }[rules.htlcKind];
  const lookAlike = message.instructions.find(
    (ix, i) => instructions[i]?.kind === 'unknown' && ix.data[0] === expectedTag,
  );
  const htlc = pinned.find((ix) => ix.data[0] === expectedTag) ?? pinned[0] ?? lookAlike ?? null;

  let unitLimit: number | null = null;
  let unitPrice: bigint | null = null;
  let wrapped = false;
  let unwrapped = false;
  const createdAccounts = new Set<string>();
  for (const [i, ix] of message.instructions.entries()) {
    const seen = instructions[i] as DecodedInstruction;
    const at = `instruction ${i}: ${seen.description}`;
    switch (seen.kind) {
      case 'compute_unit_limit':
        if (unitLimit !== null) findings.fail('compute_budget', `${at}, a second limit`);
        unitLimit = u32(ix.data, 1) ?? 0;
        break;
      case 'compute_unit_price':
        if (unitPrice !== null) findings.fail('compute_budget', `${at}, a second price`);
        unitPrice = u64(ix.data, 1) ?? 0n;
        break;
      case 'compute_budget_other':
        findings.fail('compute_budget', `${at}: only a compute-unit limit and price are accepted`);
        break;
      case 'create_token_account': {
        const [payer, ata, owner, mint, system, token] = ix.accounts.map((a) => a.address);
        const allowed = ata !== undefined ? rules.tokenAccounts.get(ata) : undefined;
        const ok =
          ix.accounts.length === 6 &&
          payer === rules.wallet &&
          owner === rules.wallet &&
          allowed !== undefined &&
          allowed === mint &&
          system === SYSTEM_PROGRAM_ID &&
          token === TOKEN_PROGRAM_ID &&
          !createdAccounts.has(ata as string);
        if (ok) createdAccounts.add(ata as string);
        findings.check(
          'token_accounts',
          ok,
          ok
            ? 'creates only the wallet’s own token accounts, idempotently'
            : `${at}: not one the wallet needs`,
        );
        break;
      }
      case 'create_token_account_strict':
      case 'associated_token_other':
        findings.fail('token_accounts', `${at}: only the idempotent create is accepted`);
        break;
      case 'system_transfer': {
        const from = accountAt(ix, 0);
        const to = accountAt(ix, 1);
        const lamports = ix.data.length === 12 && u32(ix.data, 0) === 2 ? u64(ix.data, 4) : null;
        if (rules.wrap && to === rules.wrap.account && from === rules.wallet) {
          const ok = !wrapped && lamports === rules.wrap.lamports;
          wrapped = true;
          findings.check(
            'wrap',
            ok,
            ok
              ? `wraps ${lamports} lamports into the wallet’s own wrapped-SOL account`
              : `${at}: the lock needs ${rules.wrap.lamports} wrapped, once`,
          );
        } else findings.fail('no_transfer', at);
        break;
      }
      case 'system_create_account':
        findings.fail('no_transfer', `${at}: funds a new account`);
        break;
      case 'system_assign':
        findings.fail('no_set_authority', at);
        break;
      case 'system_other':
        findings.fail('known_programs', `${at}: not needed`);
        break;
      case 'token_sync_native': {
        const ok = rules.wrap !== null && accountAt(ix, 0) === rules.wrap.account;
        findings.check('wrap', ok, ok ? 'syncs the wallet’s own wrapped-SOL account' : `${at}: not needed`);
        break;
      }
      case 'token_transfer':
      case 'token_burn':
        findings.fail('no_transfer', at);
        break;
      case 'token_approve':
      case 'token_revoke':
        findings.fail('no_delegate', at);
        break;
      case 'token_set_authority':
        findings.fail('no_set_authority', at);
        break;
      case 'token_close': {
        const [account, destination, owner] = ix.accounts.map((a) => a.address);
        const ok =
          ix.programId === TOKEN_PROGRAM_ID &&
          rules.unwrap !== null &&
          account === rules.unwrap &&
          destination === rules.wallet &&
          owner === rules.wallet &&
          !unwrapped;
        if (ok) {
          unwrapped = true;
          findings.pass('wrap', 'unwraps the wallet’s own wrapped-SOL account into the wallet');
        } else findings.fail('no_close', at);
        break;
      }
      case 'token_other':
        findings.fail('known_programs', `${at}: not needed`);
        break;
      case 'htlc_lock':
      case 'htlc_redeem':
      case 'htlc_refund':
      case 'htlc_cancel':
      case 'htlc_close':
      case 'htlc_other':
        if (ix !== htlc) findings.fail('htlc_program', `${at}: one HTLC instruction is expected`);
        break;
      case 'unknown':
        if (ix !== htlc) findings.fail('known_programs', at);
        break;
    }
  }
  findings.pass(
    'known_programs',
    'only the compute-budget, associated-token, System, SPL Token and HTLC programs',
  );
  for (const name of [
    'token_accounts',
    'no_transfer',
    'no_delegate',
    'no_set_authority',
    'no_close',
  ] as const)
    findings.pass(
      name,
      {
        token_accounts: 'creates no account but the wallet’s own',
        no_transfer: 'moves no funds of the wallet’s',
        no_delegate: 'approves no delegate',
        no_set_authority: 'changes no authority or owner',
        no_close: 'closes no account of the wallet’s',
      }[name],
    );
  if (rules.wrap || rules.unwrap) findings.pass('wrap', 'wraps or unwraps no SOL');

  if (unitLimit !== null)
    findings.check(
      'compute_budget',
      unitLimit <= rules.maxComputeUnitLimit,
      `compute-unit limit ${unitLimit}, at most ${rules.maxComputeUnitLimit} accepted`,
    );
  else findings.pass('compute_budget', 'no compute-unit limit set');
  const others = instructions.filter((i) => !i.kind.startsWith('compute_')).length;
  const effectiveLimit = unitLimit ?? Math.min(MAX_COMPUTE_UNITS, DEFAULT_UNITS_PER_INSTRUCTION * others);
  // Solana's priority fee: ⌈price (micro-lamports per unit) × limit / 10⁶⌉.
  const priorityFeeLamports = ((unitPrice ?? 0n) * BigInt(effectiveLimit) + 999_999n) / 1_000_000n;
  findings.check(
    'priority_fee',
    priorityFeeLamports <= rules.maxPriorityFeeLamports,
    `priority fee ${priorityFeeLamports} lamports (${unitPrice ?? 0n} micro-lamports × ${effectiveLimit} units), at most ${rules.maxPriorityFeeLamports} accepted`,
  );

  if (!htlc) findings.fail('htlc_program', `no ${rules.htlcKind.replace('_', ' ')} instruction`);
  else
    findings.check(
      'htlc_program',
      htlc.programId === rules.programId && htlc.data[0] === expectedTag,
      `instruction ${htlc.index}: ${htlc.programId === rules.programId ? 'the pinned HTLC program' : `program ${htlc.programId}, not the pinned HTLC program ${rules.programId}`}, tag ${htlc.data[0]} (${rules.htlcKind.slice(5)} is ${expectedTag})`,
    );
  return {
    message,
    instructions,
    htlc,
    computeUnitLimit: unitLimit,
    priorityFeeLamports,
    baseFeeLamports: LAMPORTS_PER_SIGNATURE * BigInt(message.signatureCount),
  };
}

function decodedTransaction(common: Common): DecodedTransaction {
  const { message } = common;
  return {
    version: message.version,
    feePayer: message.feePayer,
    signers: message.signers,
    recentBlockhash: message.recentBlockhash,
    writableAccounts: message.accounts.filter((a) => a.writable && !a.fromLookupTable).map((a) => a.address),
    computeUnitLimit: common.computeUnitLimit,
    priorityFeeLamports: common.priorityFeeLamports,
    baseFeeLamports: common.baseFeeLamports,
    instructions: common.instructions,
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

/** Base64 of a transaction; refuses text that is not base64 (atob alone accepts some). */
function fromBase64Strict(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw new Error('not base64');
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
