// The vocabulary of verify-before-reveal: the checks of the maker's lock by name and the verdict they
// make. A leaf module, so that the errors that carry a verdict (LockNotVerifiedError) and the check that
// makes it (verify.ts) both import it without importing each other.
import type { Escrow } from './htlc.ts';

export const CHECK_NAMES = [
  'service_program_id',
  'service_addresses',
  'maker_escrow_exists',
  'maker_escrow_owner',
  'maker_escrow_layout',
  'maker_escrow_kind',
  'maker_escrow_taker_escrow',
  'maker_escrow_status',
  'recipient',
  'initializer',
  'mint',
  'amount',
  'hashlock',
  'expiry_margin',
  'vault_address',
  'vault_exists',
  'vault_token_account',
  'vault_mint',
  'vault_authority',
  'vault_not_frozen',
  'vault_balance',
] as const;

export type CheckName = (typeof CHECK_NAMES)[number];

export interface Check {
  name: CheckName;
  ok: boolean;
  /** What was found, in words. */
  detail: string;
}

export interface Verification {
  ok: boolean;
  checks: Check[];
  /** The chain's time the lock was judged at (unix seconds). */
  chainTime: bigint;
  escrow: Escrow | null;
}
