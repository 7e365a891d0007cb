// The HTLC program's custom error codes, one table shared by the client, the chain port and the tests.
// Codes are HTLC_ERROR_BASE + position in this list, the same order as the enum in
// programs/htlc/htlc.c; the program also logs "htlc: error <Name>" before failing.

export const HTLC_ERROR_BASE = 0x1770;

export const HTLC_ERROR_NAMES = [
  'PreimageMismatch', // 0x1770
  'InvalidInstruction', // 0x1771
  'NotEnoughAccounts', // 0x1772
  'MissingSignature', // 0x1773
  'AccountNotWritable', // 0x1774
  'InvalidEscrowAddress', // 0x1775
  'InvalidVaultAddress', // 0x1776
  'InvalidTokenProgram', // 0x1777
  'InvalidSystemProgram', // 0x1778
  'InvalidMint', // 0x1779
  'InvalidTokenAccount', // 0x177a
  'TokenAccountMintMismatch', // 0x177b
  'TokenAccountOwnerMismatch', // 0x177c
  'ZeroAmount', // 0x177d
  'ExpiryNotInFuture', // 0x177e
  'ExpiryNotAfterDeadline', // 0x177f
  'LockDeadlinePassed', // 0x1780
  'EscrowAlreadyExists', // 0x1781
  'InvalidEscrowAccount', // 0x1782
  'EscrowNotLocked', // 0x1783
  'EscrowExpired', // 0x1784
  'EscrowNotExpired', // 0x1785
  'EscrowNotSettled', // 0x1786
  'NotRecipient', // 0x1787
  'NotInitializer', // 0x1788
  'InvalidTakerEscrow', // 0x1789
  'TakerEscrowNotLocked', // 0x178a
  'HashlockMismatch', // 0x178b
  'CounterpartyMismatch', // 0x178c
  'ExpiryNotBeforeTaker', // 0x178d
  'InsufficientFunds', // 0x178e
  'ArithmeticOverflow', // 0x178f
  'VaultNotEmpty', // 0x1790
  'TakerEscrowMintMismatch', // 0x1791
  'TakerEscrowAmountMismatch', // 0x1792
  'TakerEscrowExpiryMismatch', // 0x1793
] as const;

export type HtlcErrorName = (typeof HTLC_ERROR_NAMES)[number];

export const HTLC_ERRORS: Readonly<Record<number, string>> = Object.freeze(
  Object.fromEntries(HTLC_ERROR_NAMES.map((name, i) => [HTLC_ERROR_BASE + i, name])),
);

export function htlcErrorName(code: number): string | undefined {
  return HTLC_ERRORS[code];
}

/** The custom code of a name, for callers matching failures by name. */
export function htlcErrorCode(name: HtlcErrorName): number {
  return HTLC_ERROR_BASE + HTLC_ERROR_NAMES.indexOf(name);
}
