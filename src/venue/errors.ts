// The AMM program's custom error codes, one table for the client, the venue API and the tests. Codes are
// AMM_ERROR_BASE + position in this list, the order of the enum in programs/amm/amm.c; the program also
// logs "amm: error <Name>" before failing.

export const AMM_ERROR_BASE = 0x1770;

export const AMM_ERROR_NAMES = [
  'InvalidInstruction', // 0x1770
  'NotEnoughAccounts', // 0x1771
  'MissingSignature', // 0x1772
  'AccountNotWritable', // 0x1773
  'InvalidTokenProgram', // 0x1774
  'InvalidSystemProgram', // 0x1775
  'InvalidMint', // 0x1776
  'MintsNotOrdered', // 0x1777
  'InvalidFee', // 0x1778
  'InvalidPoolAddress', // 0x1779
  'PoolAlreadyExists', // 0x177a
  'InvalidVaultAddress', // 0x177b
  'InvalidPoolAccount', // 0x177c
  'NotAdmin', // 0x177d
  'InvalidVault', // 0x177e
  'InvalidTokenAccount', // 0x177f
  'TokenAccountMintMismatch', // 0x1780
  'TokenAccountOwnerMismatch', // 0x1781
  'ZeroAmount', // 0x1782
  'InsufficientFunds', // 0x1783
  'InsufficientLiquidity', // 0x1784
  'ZeroOutput', // 0x1785
  'SlippageExceeded', // 0x1786
  'ArithmeticOverflow', // 0x1787
] as const;

export type AmmErrorName = (typeof AMM_ERROR_NAMES)[number];

export function ammErrorName(code: number): AmmErrorName | undefined {
  return AMM_ERROR_NAMES[code - AMM_ERROR_BASE];
}

export function ammErrorCode(name: AmmErrorName): number {
  return AMM_ERROR_BASE + AMM_ERROR_NAMES.indexOf(name);
}
