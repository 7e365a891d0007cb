// Every way the aggregator port refuses or fails, named once: the hedger and the sourcing step match on
// these codes, and the refusals are the port's safety checks (checks.ts), each tested on its own.

export const AGGREGATOR_ERROR_CODES = {
  unavailable: 'the aggregator could not be reached, timed out, or answered something unreadable',
  no_route: 'the aggregator has no route for the pair and amount',
  rejected: 'the aggregator refused the request (an HTTP 4xx other than no route)',
  amount_too_large: 'the amount does not fit the API (a JavaScript number: at most 2^53 − 1 raw units)',
  slippage_too_high: 'the slippage asked exceeds aggregator.max_slippage_bps',
  quote_mismatch: 'the quote is not for the mints, amount, mode or slippage asked',
  price_out_of_bounds:
    "the quote's minimum out is worse than the reference mid less aggregator.max_slippage_bps",
  unexpected_instruction:
    'an instruction the port does not sign: only compute budget, the maker’s own token-account creation and sync, and the swap',
  unexpected_signer: 'an instruction needs a signature other than the maker’s',
  program_not_allowed: 'the swap instruction calls a program outside aggregator.allowed_programs',
  priority_fee_too_high:
    'the compute-budget instructions would cost more than aggregator.max_priority_fee_lamports',
  pool_not_trusted:
    'the route or the swap instruction names a pool outside the trusted ones (aggregator.trusted_pools, the embedded venue’s)',
  swap_mismatch:
    "the swap instruction does not swap the quote's amounts between the maker's own token accounts",
} as const;

export type AggregatorErrorCode = keyof typeof AGGREGATOR_ERROR_CODES;

export class AggregatorError extends Error {
  override readonly name = 'AggregatorError';
  constructor(
    readonly code: AggregatorErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const isAggregatorError = (e: unknown, code?: AggregatorErrorCode): e is AggregatorError =>
  e instanceof AggregatorError && (code === undefined || e.code === code);
