// Every way a taker call can fail, as types a front end can switch on: the service's error envelope (its codes
// come from the service's own OpenAPI document, so a code the service adds shows up here as a type change), an
// answer that is not the envelope, an unreachable service, the taker's own RPC, and a maker lock that did not
// pass the checks before reveal.
import type { operations } from './generated/openapi.ts';
import type { TransactionCheck, TransactionCheckResult } from './lock-check.ts';
import type { SimulationCheck, SimulationCheckResult } from './simulation-check.ts';
import type { Verification } from './verification.ts';

/** The service's error body: `{error: {code, message, details}}`. */
export type ErrorEnvelope = operations['getTrade']['responses'][404]['content']['application/json'];

/** Every code the service's document lists for its error envelope. */
export type ErrorCode = ErrorEnvelope['error']['code'];

/** A 4xx/5xx answer with the service's envelope; `code` narrows with `isMakerError(error, 'code', …)`. */
export class MakerError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = 'MakerError';
  constructor(
    readonly status: number,
    readonly code: C,
    message: string,
    readonly details: readonly string[] = [],
    /** Seconds the service asked to wait (Retry-After), when it said. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

/** True when `error` is the service's answer with one of `codes` (any code when none are given). */
export function isMakerError<C extends ErrorCode>(error: unknown, ...codes: C[]): error is MakerError<C> {
  return error instanceof MakerError && (codes.length === 0 || codes.includes(error.code as C));
}

/** A non-2xx answer without the envelope (a proxy's page, say): the status and the start of the body. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`The service answered ${status} without its error envelope.`);
  }
}

/** The service could not be reached at all (network, DNS, CORS). */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(override readonly cause: unknown) {
    super(`The service could not be reached (${(cause as Error)?.message ?? String(cause)}).`);
  }
}

/** The taker's own Solana JSON-RPC refused or failed a call. */
export class RpcCallError extends Error {
  override readonly name = 'RpcCallError';
  constructor(
    readonly method: string,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(`${method}: ${message}`);
  }
}

/** A transaction the taker sent landed with an error, or did not land before its blockhash expired. */
export class TransactionFailedError extends Error {
  override readonly name = 'TransactionFailedError';
  constructor(
    readonly signature: string,
    readonly reason: string,
  ) {
    super(`transaction ${signature} ${reason}`);
  }
}

/** What the client refuses to do without (a lock to verify, a trade id, a wallet that can sign, …). */
export class TakerStateError extends Error {
  override readonly name = 'TakerStateError';
}

/** The maker's lock did not pass every check before reveal: the preimage was not handed out. */
export class LockNotVerifiedError extends Error {
  override readonly name = 'LockNotVerifiedError';
  constructor(readonly verification: Verification) {
    super(
      `The maker's lock did not pass the checks, so the secret stays here: ${verification.checks
        .filter((c) => !c.ok)
        .map((c) => `${c.name} (${c.detail})`)
        .join('; ')}`,
    );
  }
}

/** A refund asked for before the chain allows it (its time is before the escrow's expiry), or of no lock. */
export class NotRefundableError extends Error {
  override readonly name = 'NotRefundableError';
  constructor(
    message: string,
    /** The escrow's expiry and the chain's time, unix seconds, when there is an escrow. */
    readonly expiry: bigint | null = null,
    readonly chainTime: bigint | null = null,
  ) {
    super(message);
  }
}

/** A check of a transaction before its wallet sees it, or of the lock's simulated effects. */
export type ReviewCheck = TransactionCheckResult | SimulationCheckResult;

/**
 * A transaction the client was to have the wallet sign failed a check: nothing was signed, nothing sent.
 * `checks` are the failed ones; the message names each.
 */
export class TransactionRefusedError extends Error {
  override readonly name: string = 'TransactionRefusedError';
  constructor(
    readonly what: string,
    readonly checks: readonly ReviewCheck[],
    readonly check: TransactionCheck | null = null,
    readonly simulation: SimulationCheck | null = null,
  ) {
    super(
      `The ${what} was refused before the wallet saw it: ${checks.map((c) => `${c.name} (${c.detail})`).join('; ')}`,
    );
  }
}

/** The service's lock is not what the taker agreed to (its bytes, or what it does when simulated). */
export class LockRefusedError extends TransactionRefusedError {
  override readonly name = 'LockRefusedError';
  constructor(
    checks: readonly ReviewCheck[],
    check: TransactionCheck | null,
    simulation: SimulationCheck | null = null,
  ) {
    super('lock', checks, check, simulation);
  }
}

/**
 * On a cluster other than the service's own embedded chain, the client has no pinned program id, maker key
 * or mint for an asset of the quote, and will not take the service's word for them: no swap starts.
 */
export class TrustNotPinnedError extends Error {
  override readonly name = 'TrustNotPinnedError';
  constructor(
    /** What is missing: `programId`, `maker`, `mints.<symbol>`. */
    readonly missing: readonly string[],
    /** The cluster the taker's RPC serves ('mainnet', 'devnet', 'testnet', 'other'). */
    readonly cluster: string,
  ) {
    super(
      `This client is on ${cluster === 'other' ? 'a cluster other than the service’s embedded chain' : cluster} and does not take the service’s word for the swap’s terms; configure ${missing.join(', ')}.`,
    );
  }
}
