// The one error money parsing and formatting throws, with a machine-readable reason so the HTTP layer
// can turn a bad client amount into a 400 detail without string matching.

export const AMOUNT_ERROR_REASONS = [
  'format',
  'too_many_decimals',
  'out_of_range',
  'zero',
  'invalid_decimals',
] as const;
export type AmountErrorReason = (typeof AMOUNT_ERROR_REASONS)[number];

export class AmountError extends Error {
  override readonly name = 'AmountError';
  constructor(
    readonly reason: AmountErrorReason,
    message: string,
  ) {
    super(message);
  }
}

/** Quotes client text in messages without letting a megabyte of it through. */
export const quoteText = (text: string): string =>
  JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
