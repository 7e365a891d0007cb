// Every way the EVM domain refuses, one named code each: the GatewayWallet's and the USDC's reverts by their
// Solidity error names, and the client's own refusals.
import { BaseError, ContractFunctionRevertedError } from 'viem';

export const EVM_DOMAIN_ERRORS = {
  // GatewayWallet
  UnsupportedToken: 'unsupported_token',
  ZeroValue: 'zero_value',
  TokenTransferFailed: 'token_transfer_failed',
  NotBurnSigner: 'not_burn_signer',
  LengthMismatch: 'length_mismatch',
  UnsupportedVersion: 'unsupported_version',
  WrongSourceDomain: 'wrong_source_domain',
  WrongSourceContract: 'wrong_source_contract',
  WrongSourceToken: 'wrong_source_token',
  NotAnAddress: 'not_an_address',
  SignerNotDepositor: 'signer_not_depositor',
  BurnIntentExpired: 'burn_intent_expired',
  FeeAboveMaxFee: 'fee_above_max_fee',
  InvalidSignature: 'invalid_signature',
  TransferSpecHashUsed: 'transfer_spec_hash_used',
  // Both contracts: the wallet's is the depositor's Gateway balance, the token's an ERC-20 balance.
  InsufficientBalance: 'insufficient_balance',
  // DevUsdc
  NotMinter: 'not_minter',
  InsufficientAllowance: 'insufficient_allowance',
  ZeroAddress: 'zero_address',
} as const;

export type EvmDomainErrorCode =
  | (typeof EVM_DOMAIN_ERRORS)[keyof typeof EVM_DOMAIN_ERRORS]
  /** A transaction mined but reverted (a revert with no reason the client could read). */
  | 'reverted'
  /** A revert whose error is not one of the contracts' (another contract at that address?). */
  | 'unknown_revert';

export class EvmDomainError extends Error {
  override readonly name = 'EvmDomainError';
  constructor(
    readonly code: EvmDomainErrorCode,
    message: string,
    /** The contract's error arguments, as decoded. */
    readonly args: readonly unknown[] = [],
  ) {
    super(message);
  }
}

/**
 * The named refusal inside a viem error, if a contract reverted with one of the errors above; anything else
 * (the node down, a malformed call) is not a refusal and is rethrown as it came.
 */
export function refusalOf(error: unknown): EvmDomainError {
  if (!(error instanceof BaseError)) throw error;
  const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError)) throw error;
  const name = reverted.data?.errorName;
  const code = name !== undefined && Object.hasOwn(EVM_DOMAIN_ERRORS, name) ? name : undefined;
  if (code === undefined) {
    return new EvmDomainError('unknown_revert', reverted.shortMessage);
  }
  return new EvmDomainError(
    EVM_DOMAIN_ERRORS[code as keyof typeof EVM_DOMAIN_ERRORS],
    `${name}(${(reverted.data?.args ?? []).map(String).join(', ')})`,
    reverted.data?.args ?? [],
  );
}
