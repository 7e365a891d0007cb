// Every error code the API can answer, with its HTTP status, defined once. Handlers throw ApiError;
// the error handler turns it (and Fastify's own errors) into the envelope {error:{code,message,details}}
// (docs/interface.md#errors).
import Type from 'typebox';
import { RuntimeError, type RuntimeInput } from '../runtime/errors.ts';
import { STORAGE_HOLD_MS, STORAGE_PROBE_MS } from '../store/index.ts';

export const ERROR_CODES = {
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  validation_failed: { status: 400, message: 'The request does not match the schema.' },
  lock_mismatch: {
    status: 400,
    message: 'The transaction is not the lock this service built for the trade.',
  },
  unauthorized: { status: 401, message: 'This route needs the operator token.' },
  secret_hash_mismatch: { status: 403, message: 'secret_hash does not match the settlement.' },
  preimage_mismatch: {
    status: 403,
    message: 'sha256(preimage) does not match the settlement’s secret_hash.',
  },
  route_not_found: { status: 404, message: 'No such route.' },
  asset_not_found: { status: 404, message: 'No configured asset has this id or symbol.' },
  quote_not_found: { status: 404, message: 'No quote has this id.' },
  trade_not_found: { status: 404, message: 'No trade has this id.' },
  quote_expired: { status: 409, message: 'The quote has expired.' },
  quote_already_used: { status: 409, message: 'The quote is already used by another settlement.' },
  taker_wallet_mismatch: {
    status: 409,
    message: 'taker_wallet differs from the wallet the quote was issued to.',
  },
  secret_hash_reused: { status: 409, message: 'This secret_hash is already used by another trade.' },
  lock_window_closed: { status: 409, message: 'The trade’s lock window is closed.' },
  lock_signature_exists: { status: 409, message: 'A lock signature exists for this trade.' },
  not_abandonable: { status: 409, message: 'The trade can no longer be abandoned.' },
  not_redeemable: { status: 409, message: 'The trade cannot be redeemed now.' },
  not_refundable: { status: 409, message: 'The trade cannot be refunded now.' },
  lock_not_found: { status: 409, message: 'The lock has not appeared on chain yet; retry.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'Send JSON with Content-Type: application/json.' },
  rate_limited: { status: 429, message: 'Too many requests; slow down.' },
  internal_error: { status: 500, message: 'Internal error.' },
  not_ready: { status: 503, message: 'The service is not ready.' },
  runtime_unavailable: { status: 503, message: 'The runtime is not available for this action.' },
  chain_unavailable: { status: 503, message: 'The chain is not reachable.' },
  storage_full: {
    status: 503,
    message: 'The maker cannot store anything right now (its disk is full); nothing changed. Retry later.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ApiError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string = ERROR_CODES[code].message,
    readonly details: readonly string[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = ERROR_CODES[code].status;
  }
}

/** Where each runtime input comes from in a request. */
const RUNTIME_INPUT_FIELDS: Record<RuntimeInput, string> = {
  transaction: 'body.transaction_base64',
  signature: 'body.signature',
  cursor: 'querystring.cursor',
};

/**
 * The runtime's domain error as the API answers it: its code, or a validation error naming the field (a
 * lock_mismatch names it too, with what differs from the lock the service built).
 */
export function fromRuntimeError(error: RuntimeError): ApiError {
  if (error.code === 'invalid_input' || error.code === 'lock_mismatch') {
    const invalid = error.invalid ?? { input: 'transaction' as const, problem: error.message };
    const field = RUNTIME_INPUT_FIELDS[invalid.input];
    const code = error.code === 'invalid_input' ? 'validation_failed' : error.code;
    return new ApiError(code, error.detail, [`${field}: ${invalid.problem}`]);
  }
  return new ApiError(error.code, error.detail);
}

export { RuntimeError };

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details: string[] };
}

export function envelope(code: ErrorCode, message?: string, details: readonly string[] = []): ErrorEnvelope {
  return { error: { code, message: message ?? ERROR_CODES[code].message, details: [...details] } };
}

export const ErrorEnvelopeSchema = Type.Object(
  {
    error: Type.Object({
      // Every code, listed in the document, so a client typed from it gets the union to switch on.
      code: Type.Enum(Object.keys(ERROR_CODES) as ErrorCode[], {
        description: 'machine-readable error code',
        examples: ['validation_failed'],
      }),
      message: Type.String(),
      details: Type.Array(Type.String(), {
        description: 'one line per offending field, when there are several',
      }),
    }),
  },
  { title: 'ErrorEnvelope', description: 'Every error body: the interface’s error envelope.' },
);

/** The error responses a route can give, by status, for its schema (and so the OpenAPI document). */
export function errorResponses(...codes: ErrorCode[]): Record<number, typeof ErrorEnvelopeSchema> {
  const statuses = new Set<number>([400, 429, ...codes.map((code) => ERROR_CODES[code].status)]);
  return Object.fromEntries([...statuses].sort().map((status) => [status, ErrorEnvelopeSchema]));
}

/**
 * Retry-After of a 503 storage_full: until the store may count as writable again (its watch's hold, and a
 * probe after it).
 */
export const STORAGE_FULL_RETRY_SECONDS = Math.ceil((STORAGE_HOLD_MS + STORAGE_PROBE_MS) / 1000);
