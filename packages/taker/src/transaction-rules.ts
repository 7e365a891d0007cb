// The rules every transaction the taker signs is held to, whatever step it is: it decodes; the wallet pays;
// no lookup table hides accounts; each instruction is one the step needs (compute budget within bounds, the
// wallet's own token accounts created idempotently, SOL wrapped or unwrapped in the wallet's own account, one
// instruction of the pinned HTLC program), and nothing moves, delegates, closes or re-assigns the wallet's
// funds. Each instruction is judged by its kind (instructions.ts), each refusal named by its check.
import { SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from './htlc.ts';
import {
  accountAt,
  type DecodedInstruction,
  describeInstruction,
  type InstructionKind,
  u32,
  u64,
} from './instructions.ts';
import { type DecodedMessage, decodeMessage, type MessageInstruction } from './message.ts';

/** The base fee per signature (lamports), the same on every Solana cluster. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
/**
 * The limit a compute-unit price is multiplied by when no SetComputeUnitLimit says otherwise: 200,000 units
 * an instruction, at most 1,400,000 (the runtime's; it grants builtins 3,000, so this bounds the fee above).
 */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const MAX_COMPUTE_UNITS = 1_400_000;

/** Every check a transaction can fail, in the order they are reported. */
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

/** Collects each check's problems; a check with none passes with its `ok` words. */
export class Findings {
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

export interface Rules {
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

export interface Common {
  message: DecodedMessage;
  instructions: DecodedInstruction[];
  /** The HTLC instruction the transaction is about: the pinned program's, else a look-alike's. */
  htlc: MessageInstruction | null;
  computeUnitLimit: number | null;
  priorityFeeLamports: bigint;
  baseFeeLamports: bigint;
}

/** What the instructions seen so far set or did, for the checks that look at more than one. */
interface JudgeState {
  unitLimit: number | null;
  unitPrice: bigint | null;
  wrapped: boolean;
  unwrapped: boolean;
  created: Set<string>;
}

interface Judged {
  ix: MessageInstruction;
  /** The instruction in words, for a failing check's detail. */
  at: string;
  /** Whether it is the HTLC instruction the transaction is about. */
  isHtlc: boolean;
  rules: Rules;
  state: JudgeState;
  findings: Findings;
}

const fail =
  (name: TransactionCheckName, why = '') =>
  ({ at, findings }: Judged) =>
    findings.fail(name, `${at}${why}`);

/** What the rules allow of each kind of instruction, and the check that refuses the rest. */
const JUDGES: Record<InstructionKind, (j: Judged) => void> = {
  compute_unit_limit: ({ ix, at, state, findings }) => {
    if (state.unitLimit !== null) findings.fail('compute_budget', `${at}, a second limit`);
    state.unitLimit = u32(ix.data, 1) ?? 0;
  },
  compute_unit_price: ({ ix, at, state, findings }) => {
    if (state.unitPrice !== null) findings.fail('compute_budget', `${at}, a second price`);
    state.unitPrice = u64(ix.data, 1) ?? 0n;
  },
  compute_budget_other: fail('compute_budget', ': only a compute-unit limit and price are accepted'),
  create_token_account: ({ ix, at, rules, state, findings }) => {
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
      !state.created.has(ata as string);
    if (ok) state.created.add(ata as string);
    findings.check(
      'token_accounts',
      ok,
      ok ? 'creates only the wallet’s own token accounts, idempotently' : `${at}: not one the wallet needs`,
    );
  },
  create_token_account_strict: fail('token_accounts', ': only the idempotent create is accepted'),
  associated_token_other: fail('token_accounts', ': only the idempotent create is accepted'),
  system_transfer: ({ ix, at, rules, state, findings }) => {
    const lamports = ix.data.length === 12 && u32(ix.data, 0) === 2 ? u64(ix.data, 4) : null;
    if (!rules.wrap || accountAt(ix, 1) !== rules.wrap.account || accountAt(ix, 0) !== rules.wallet)
      return findings.fail('no_transfer', at);
    const ok = !state.wrapped && lamports === rules.wrap.lamports;
    state.wrapped = true;
    findings.check(
      'wrap',
      ok,
      ok
        ? `wraps ${lamports} lamports into the wallet’s own wrapped-SOL account`
        : `${at}: the lock needs ${rules.wrap.lamports} wrapped, once`,
    );
  },
  system_create_account: fail('no_transfer', ': funds a new account'),
  system_assign: fail('no_set_authority'),
  system_other: fail('known_programs', ': not needed'),
  token_sync_native: ({ ix, at, rules, findings }) => {
    const ok = rules.wrap !== null && accountAt(ix, 0) === rules.wrap.account;
    findings.check('wrap', ok, ok ? 'syncs the wallet’s own wrapped-SOL account' : `${at}: not needed`);
  },
  token_transfer: fail('no_transfer'),
  token_burn: fail('no_transfer'),
  token_approve: fail('no_delegate'),
  token_revoke: fail('no_delegate'),
  token_set_authority: fail('no_set_authority'),
  token_close: ({ ix, at, rules, state, findings }) => {
    const [account, destination, owner] = ix.accounts.map((a) => a.address);
    const ok =
      ix.programId === TOKEN_PROGRAM_ID &&
      rules.unwrap !== null &&
      account === rules.unwrap &&
      destination === rules.wallet &&
      owner === rules.wallet &&
      !state.unwrapped;
    if (!ok) return findings.fail('no_close', at);
    state.unwrapped = true;
    findings.pass('wrap', 'unwraps the wallet’s own wrapped-SOL account into the wallet');
  },
  token_other: fail('known_programs', ': not needed'),
  htlc_lock: (j) => j.isHtlc || fail('htlc_program', ': one HTLC instruction is expected')(j),
  htlc_redeem: (j) => j.isHtlc || fail('htlc_program', ': one HTLC instruction is expected')(j),
  htlc_refund: (j) => j.isHtlc || fail('htlc_program', ': one HTLC instruction is expected')(j),
  htlc_cancel: (j) => j.isHtlc || fail('htlc_program', ': one HTLC instruction is expected')(j),
  htlc_close: (j) => j.isHtlc || fail('htlc_program', ': one HTLC instruction is expected')(j),
  htlc_other: (j) => j.isHtlc || fail('htlc_program', ': one HTLC instruction is expected')(j),
  unknown: (j) => j.isHtlc || fail('known_programs')(j),
};

/** The checks every transaction the taker signs goes through; answers what the kind-specific ones need. */
export function commonChecks(bytes: Uint8Array, rules: Rules, findings: Findings): Common | null {
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

  const state: JudgeState = {
    unitLimit: null,
    unitPrice: null,
    wrapped: false,
    unwrapped: false,
    created: new Set(),
  };
  for (const [i, ix] of message.instructions.entries()) {
    const seen = instructions[i] as DecodedInstruction;
    JUDGES[seen.kind]({
      ix,
      at: `instruction ${i}: ${seen.description}`,
      isHtlc: ix === htlc,
      rules,
      state,
      findings,
    });
  }
  const unitLimit = state.unitLimit;
  const unitPrice = state.unitPrice;
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
  // Without a limit the runtime grants each instruction 200,000 units (builtins, the compute-budget program's
  // own among them, 3,000): counting every one at 200,000 bounds the fee from above.
  const effectiveLimit =
    unitLimit ?? Math.min(MAX_COMPUTE_UNITS, DEFAULT_UNITS_PER_INSTRUCTION * instructions.length);
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

export function decodedTransaction(common: Common): DecodedTransaction {
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

/** Base64 of a transaction; refuses text that is not base64 (atob alone accepts some). */
export function fromBase64Strict(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw new Error('not base64');
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
