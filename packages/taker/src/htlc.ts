// The HTLC program as a taker needs it, from its documented ABI (programs/htlc/README.md): the escrow
// addresses (PDAs), the escrow account's layout, the SPL token account's and the Clock sysvar's, and the
// redeem and refund instructions with the token-account housekeeping around them. Built on @solana/kit's
// addresses and codecs, so it runs in a browser as it does on Node.
import {
  AccountRole,
  type Address,
  address,
  getAddressDecoder,
  getAddressEncoder,
  getProgramDerivedAddress,
  type Instruction,
  type ReadonlyUint8Array,
} from '@solana/kit';

/** Where the repository's program is deployed on the embedded chain (and the default of a fresh service). */
export const DEFAULT_HTLC_PROGRAM_ID = 'FkwXEvVTwK8CjPKJHF5j91PWFsq2nNp4ecXHvu9qWRfh';
export const TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const ASSOCIATED_TOKEN_PROGRAM_ID = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const SYSTEM_PROGRAM_ID = '11111111111111111111111111111111';
export const NATIVE_MINT = 'So11111111111111111111111111111111111111112';
export const CLOCK_SYSVAR = 'SysvarC1ock11111111111111111111111111111111';

export const ESCROW_SIZE = 264;
export const ESCROW_VERSION = 1;
const ESCROW_KINDS = { 1: 'taker', 2: 'maker' } as const;
const ESCROW_STATUSES = { 1: 'locked', 2: 'redeemed', 3: 'refunded', 4: 'cancelled' } as const;

export type EscrowKind = (typeof ESCROW_KINDS)[keyof typeof ESCROW_KINDS];
export type EscrowStatus = (typeof ESCROW_STATUSES)[keyof typeof ESCROW_STATUSES];

const addressBytes = (a: string) => getAddressEncoder().encode(address(a));
const addressAt = (data: Uint8Array, offset: number): Address =>
  getAddressDecoder().decode(data.subarray(offset, offset + 32));

async function pda(programId: string, seeds: (string | ReadonlyUint8Array)[]): Promise<Address> {
  const [found] = await getProgramDerivedAddress({ programAddress: address(programId), seeds });
  return found;
}

/** The taker escrow: PDA ["taker", taker, hashlock]. */
export function takerEscrowAddress(
  programId: string,
  taker: string,
  hashlock: ReadonlyUint8Array,
): Promise<Address> {
  if (hashlock.length !== 32) throw new Error('htlc: a hashlock has 32 bytes');
  return pda(programId, ['taker', addressBytes(taker), hashlock]);
}

/** The maker escrow locked against a taker escrow: PDA ["maker", taker_escrow]. */
export function makerEscrowAddress(programId: string, takerEscrow: string): Promise<Address> {
  return pda(programId, ['maker', addressBytes(takerEscrow)]);
}

/** An escrow's vault: PDA ["vault", escrow], an SPL token account whose authority is the escrow. */
export function vaultAddress(programId: string, escrow: string): Promise<Address> {
  return pda(programId, ['vault', addressBytes(escrow)]);
}

/** The owner's associated token account of a mint (classic SPL Token). */
export function associatedTokenAddress(owner: string, mint: string): Promise<Address> {
  return pda(ASSOCIATED_TOKEN_PROGRAM_ID, [
    addressBytes(owner),
    addressBytes(TOKEN_PROGRAM_ID),
    addressBytes(mint),
  ]);
}

export interface Escrow {
  version: number;
  kind: EscrowKind;
  status: EscrowStatus;
  initializer: Address;
  recipient: Address;
  mint: Address;
  vault: Address;
  hashlock: Uint8Array;
  amount: bigint;
  expiry: bigint;
  lockDeadline: bigint;
  lockedAt: bigint;
  /** Written by a redeem; null before. */
  preimage: Uint8Array | null;
  /** A maker escrow's taker escrow; null for a taker escrow. */
  takerEscrow: Address | null;
}

/** An escrow account's data (version 1, 264 bytes); throws on anything else. */
export function decodeEscrow(data: Uint8Array): Escrow {
  if (data.length !== ESCROW_SIZE) throw new Error(`htlc escrow: ${data.length} bytes, not ${ESCROW_SIZE}`);
  if (data[0] !== ESCROW_VERSION) throw new Error(`htlc escrow: version ${data[0]}, not ${ESCROW_VERSION}`);
  const kind = ESCROW_KINDS[data[1] as keyof typeof ESCROW_KINDS];
  const status = ESCROW_STATUSES[data[2] as keyof typeof ESCROW_STATUSES];
  if (!kind) throw new Error(`htlc escrow: unknown kind ${data[1]}`);
  if (!status) throw new Error(`htlc escrow: unknown status ${data[2]}`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    version: ESCROW_VERSION,
    kind,
    status,
    initializer: addressAt(data, 8),
    recipient: addressAt(data, 40),
    mint: addressAt(data, 72),
    vault: addressAt(data, 104),
    hashlock: data.slice(136, 168),
    amount: view.getBigUint64(168, true),
    expiry: view.getBigInt64(176, true),
    lockDeadline: view.getBigInt64(184, true),
    lockedAt: view.getBigInt64(192, true),
    preimage: status === 'redeemed' ? data.slice(200, 232) : null,
    takerEscrow: kind === 'maker' ? addressAt(data, 232) : null,
  };
}

export interface TokenAccount {
  mint: Address;
  /** The account's authority. */
  owner: Address;
  amount: bigint;
  state: 'uninitialized' | 'initialized' | 'frozen';
}

/** A classic SPL token account's data (165 bytes; the first 109 are read). */
export function decodeTokenAccount(data: Uint8Array): TokenAccount {
  if (data.length !== 165) throw new Error(`token account: ${data.length} bytes, not 165`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const states = ['uninitialized', 'initialized', 'frozen'] as const;
  const state = states[data[108] ?? 99];
  if (!state) throw new Error(`token account: unknown state ${data[108]}`);
  return { mint: addressAt(data, 0), owner: addressAt(data, 32), amount: view.getBigUint64(64, true), state };
}

/** The Clock sysvar's unix_timestamp: the chain's time, which every expiry is judged by. */
export function decodeClock(data: Uint8Array): { slot: bigint; unixTimestamp: bigint } {
  if (data.length < 40) throw new Error(`clock sysvar: ${data.length} bytes`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return { slot: view.getBigUint64(0, true), unixTimestamp: view.getBigInt64(32, true) };
}

const meta = (a: string, role: AccountRole) => ({ address: address(a), role });

/** HTLC redeem (tag 1): pays the escrow to its recipient's token account against the preimage. */
export async function redeemInstruction(a: {
  programId: string;
  escrow: string;
  recipientTokenAccount: string;
  preimage: Uint8Array;
}): Promise<Instruction> {
  if (a.preimage.length !== 32) throw new Error('htlc: a preimage has 32 bytes');
  const data = new Uint8Array(33);
  data[0] = 1;
  data.set(a.preimage, 1);
  return {
    programAddress: address(a.programId),
    accounts: [
      meta(a.escrow, AccountRole.WRITABLE),
      meta(await vaultAddress(a.programId, a.escrow), AccountRole.WRITABLE),
      meta(a.recipientTokenAccount, AccountRole.WRITABLE),
      meta(TOKEN_PROGRAM_ID, AccountRole.READONLY),
    ],
    data,
  };
}

/** HTLC refund (tag 2): the escrow back to its initializer's token account, once chain time ≥ expiry. */
export async function refundInstruction(a: {
  programId: string;
  escrow: string;
  initializerTokenAccount: string;
}): Promise<Instruction> {
  return {
    programAddress: address(a.programId),
    accounts: [
      meta(a.escrow, AccountRole.WRITABLE),
      meta(await vaultAddress(a.programId, a.escrow), AccountRole.WRITABLE),
      meta(a.initializerTokenAccount, AccountRole.WRITABLE),
      meta(TOKEN_PROGRAM_ID, AccountRole.READONLY),
    ],
    data: new Uint8Array([2]),
  };
}

/** The associated token program's CreateIdempotent: the account exists afterwards, whoever made it. */
export function createAtaIdempotentInstruction(a: {
  payer: string;
  ata: string;
  owner: string;
  mint: string;
}): Instruction {
  return {
    programAddress: address(ASSOCIATED_TOKEN_PROGRAM_ID),
    accounts: [
      meta(a.payer, AccountRole.WRITABLE_SIGNER),
      meta(a.ata, AccountRole.WRITABLE),
      meta(a.owner, AccountRole.READONLY),
      meta(a.mint, AccountRole.READONLY),
      meta(SYSTEM_PROGRAM_ID, AccountRole.READONLY),
      meta(TOKEN_PROGRAM_ID, AccountRole.READONLY),
    ],
    data: new Uint8Array([1]),
  };
}

/** SPL Token CloseAccount (tag 9): a wrapped-SOL account closed into its owner, which unwraps it. */
export function closeAccountInstruction(a: { account: string; owner: string }): Instruction {
  return {
    programAddress: address(TOKEN_PROGRAM_ID),
    accounts: [
      meta(a.account, AccountRole.WRITABLE),
      meta(a.owner, AccountRole.WRITABLE),
      meta(a.owner, AccountRole.READONLY_SIGNER),
    ],
    data: new Uint8Array([9]),
  };
}
