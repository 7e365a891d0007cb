// The chain port's one error type and the table of its codes, plus the translation of Solana
// transaction errors (litesvm objects and JSON-RPC JSON alike) into one JSON form and a readable name.

import { htlcErrorName } from './htlc/index.ts';

/** Every way a chain call can fail, named once. */
export const CHAIN_ERROR_CODES = {
  invalid_transaction: 'the bytes are not a transaction this chain accepts',
  missing_signature: 'a required signature is absent (all-zero)',
  invalid_signature: 'a signature does not verify',
  blockhash_expired: "the transaction's blockhash is unknown or past its last valid block height",
  rejected: 'the chain refused or failed the transaction (see htlcError / txError)',
  insufficient_funds: 'the fee payer cannot pay the fee',
  unavailable: 'the chain could not be reached or answered garbage',
  timeout: 'the chain did not answer in time',
  not_supported: 'this chain does not offer the operation',
} as const;
export type ChainErrorCode = keyof typeof CHAIN_ERROR_CODES;

/**
 * A transaction error as JSON-RPC renders it: a fieldless name ("AccountNotFound"), or an object such
 * as `{ InstructionError: [2, { Custom: 6000 }] }`.
 */
export type TransactionErrorJson = string | Record<string, unknown>;

export interface ChainErrorDetails {
  signature?: string;
  /** The HTLC program's error name when our program refused the transaction. */
  htlcError?: string;
  txError?: TransactionErrorJson;
  logs?: string[];
  cause?: unknown;
}

export class ChainError extends Error {
  readonly code: ChainErrorCode;
  readonly signature: string | undefined;
  readonly htlcError: string | undefined;
  readonly txError: TransactionErrorJson | undefined;
  readonly logs: string[] | undefined;

  constructor(code: ChainErrorCode, message: string, details: ChainErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ChainError';
    this.code = code;
    this.signature = details.signature;
    this.htlcError = details.htlcError;
    this.txError = details.txError;
    this.logs = details.logs;
  }
}

export const isChainError = (e: unknown, code?: ChainErrorCode): e is ChainError =>
  e instanceof ChainError && (code === undefined || e.code === code);

// litesvm exposes these enums as const enums only; the names are copied from its typings, in order.
const TRANSACTION_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
] as const;

const INSTRUCTION_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
] as const;

// Shapes of litesvm's error objects (FailedTransactionMetadata.err()), structurally typed.
type LiteInstructionError = number | { code: number } | { msg: string };
type LiteTransactionError =
  | number
  | { index: number; err(): LiteInstructionError }
  | { index: number }
  | { accountIndex: number };

/** litesvm's error object → the JSON-RPC JSON form. */
export function liteErrorToJson(err: LiteTransactionError, ctorName?: string): TransactionErrorJson {
  if (typeof err === 'number') return TRANSACTION_ERRORS[err] ?? `TransactionError${err}`;
  const name = ctorName ?? (err as object).constructor?.name ?? '';
  if ('err' in err && typeof err.err === 'function') {
    const inner = err.err();
    let ix: unknown;
    if (typeof inner === 'number') ix = INSTRUCTION_ERRORS[inner] ?? `InstructionError${inner}`;
    else if ('code' in inner) ix = { Custom: inner.code };
    else ix = { BorshIoError: inner.msg };
    return { InstructionError: [err.index, ix] };
  }
  if ('accountIndex' in err) {
    const key = name.includes('Restricted')
      ? 'ProgramExecutionTemporarilyRestricted'
      : 'InsufficientFundsForRent';
    return { [key]: { account_index: err.accountIndex } };
  }
  if ('index' in err) return { DuplicateInstruction: err.index };
  return String(err);
}

/** The custom error code and failing instruction index of an InstructionError, if it is one. */
export function customErrorOf(err: TransactionErrorJson | null): { index: number; code: number } | null {
  if (!err || typeof err === 'string') return null;
  const ie = err.InstructionError;
  if (!Array.isArray(ie) || ie.length !== 2) return null;
  const [index, inner] = ie as [unknown, unknown];
  if (typeof index !== 'number' || !inner || typeof inner !== 'object') return null;
  const code = (inner as { Custom?: unknown }).Custom;
  return typeof code === 'number' ? { index, code } : null;
}

/**
 * One readable name for a failed transaction: the HTLC error name when the failing instruction is our
 * program's (`failingProgramIsHtlc` tells, since custom codes of other programs overlap), else a
 * compact rendering such as `InstructionError(1, Custom(1))` or `AccountNotFound`.
 */
export function describeTransactionError(
  err: TransactionErrorJson,
  failingProgramIsHtlc: (instructionIndex: number) => boolean,
): { name: string; htlcError?: string } {
  const custom = customErrorOf(err);
  if (custom && failingProgramIsHtlc(custom.index)) {
    const name = htlcErrorName(custom.code);
    if (name) return { name, htlcError: name };
  }
  if (typeof err === 'string') return { name: err };
  const ie = err.InstructionError;
  if (Array.isArray(ie)) {
    const [index, inner] = ie as [number, unknown];
    const innerText =
      typeof inner === 'string'
        ? inner
        : Object.entries(inner as Record<string, unknown>)
            .map(([k, v]) => `${k}(${String(v)})`)
            .join('');
    return { name: `InstructionError(${index}, ${innerText})` };
  }
  return { name: JSON.stringify(err) };
}
