// Every way the Gateway port refuses or fails, named once: the sourcing step and the rebalancer match on these
// codes. A hostile or malformed answer is one of them, never an attestation handed on to be minted.

export const GATEWAY_ERROR_CODES = {
  unavailable: 'the Gateway API could not be reached, timed out, or answered with a server error',
  refused: 'the Gateway API refused the request (an HTTP 4xx: balance, replay, expiry, signature…)',
  not_found: 'the Gateway API knows no transfer of that id',
  invalid_answer: 'the Gateway API answered something that is not its documented shape or bytes',
  attestation_mismatch:
    'the attestation does not mint exactly what the signed intents asked (recipient, token, value, destination, caller, transfer spec, expiry) or is not signed by a trusted attester',
  fee_above_cap: 'the fee charged or estimated exceeds the intents’ maxFee or the configured cap',
} as const;

export type GatewayErrorCode = keyof typeof GATEWAY_ERROR_CODES;

export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  constructor(
    readonly code: GatewayErrorCode,
    message: string,
    options?: {
      cause?: unknown;
      /** The HTTP status the API answered, when it answered one. */
      status?: number;
      /** For attestation_mismatch: which rule the attestation broke (wrong_recipient, wrong_mint…). */
      reason?: string;
    },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.status = options?.status;
    this.reason = options?.reason;
  }
  readonly status: number | undefined;
  readonly reason: string | undefined;
}

export const isGatewayError = (e: unknown, code?: GatewayErrorCode): e is GatewayError =>
  e instanceof GatewayError && (code === undefined || e.code === code);
