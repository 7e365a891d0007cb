// What an instruction is, read from its program and its bytes, in the vocabulary of the checks before
// signing: a compute-budget setting, a token account created, a System transfer, an SPL Token approve or
// close, an HTLC lock, or an instruction of a program the taker does not know — and what it does, in words.
import { ASSOCIATED_TOKEN_PROGRAM_ID, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from './htlc.ts';
import type { MessageInstruction } from './message.ts';

export const COMPUTE_BUDGET_PROGRAM_ID = 'ComputeBudget111111111111111111111111111111';
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

/** One instruction as the checks saw it: its program, what it is, and what it does in words. */
export interface DecodedInstruction {
  index: number;
  programId: string;
  kind: InstructionKind;
  description: string;
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

export const u32 = (data: Uint8Array, at: number) =>
  data.length >= at + 4 ? new DataView(data.buffer, data.byteOffset).getUint32(at, true) : null;
export const u64 = (data: Uint8Array, at: number) =>
  data.length >= at + 8 ? new DataView(data.buffer, data.byteOffset).getBigUint64(at, true) : null;
export const i64 = (data: Uint8Array, at: number) =>
  data.length >= at + 8 ? new DataView(data.buffer, data.byteOffset).getBigInt64(at, true) : null;
export const accountAt = (ix: MessageInstruction, i: number) => ix.accounts[i]?.address ?? '(missing)';

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
