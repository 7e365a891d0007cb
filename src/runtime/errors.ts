// The runtime's own errors: a command refused, a trade or quote not found, the runtime or the chain not
// available, or an input (a transaction, a signature, a cursor) that is not what the command needs. The
// HTTP layer maps each code to its status and envelope, and an input to the field it came from.
import type { CommandRefusal } from '../../machines/index.ts';

export type RuntimeErrorCode =
  | CommandRefusal
  | 'trade_not_found'
  | 'quote_not_found'
  | 'quote_expired'
  | 'quote_already_used'
  | 'taker_wallet_mismatch'
  | 'secret_hash_reused'
  | 'lock_not_found'
  | 'lock_mismatch'
  | 'trading_paused'
  | 'runtime_unavailable'
  | 'chain_unavailable'
  | 'invalid_input';

/** Which part of a command an `invalid_input` (or a `lock_mismatch`) is about. */
export type RuntimeInput = 'transaction' | 'signature' | 'cursor';

export class RuntimeError extends Error {
  /** A message for the client, when the code's own is not enough. */
  readonly detail: string | undefined;
  constructor(
    readonly code: RuntimeErrorCode,
    detail?: string,
    /** For `invalid_input` and `lock_mismatch`: the input and what is wrong with it. */
    readonly invalid?: { input: RuntimeInput; problem: string },
  ) {
    super(detail ?? code);
    this.name = 'RuntimeError';
    this.detail = detail;
  }
}

export const invalidInput = (input: RuntimeInput, problem: string, message?: string) =>
  new RuntimeError('invalid_input', message ?? problem, { input, problem });

export const isRuntimeError = (error: unknown, code?: RuntimeErrorCode): error is RuntimeError =>
  error instanceof RuntimeError && (code === undefined || error.code === code);
