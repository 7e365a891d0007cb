// Every way a Gateway message can be refused, one named code each: a decoder never returns a half-read
// message, it throws a GatewayFormatError saying which rule the bytes broke.

export type GatewayFormatErrorCode =
  /** The first four bytes are not the message's magic. */
  | 'wrong_magic'
  /** Shorter than the fixed part, or longer/shorter than its length fields add up to. */
  | 'wrong_length'
  /** A hook data length that does not match the bytes that follow it. */
  | 'hook_length'
  /** A set that holds no message at all. */
  | 'empty_set'
  /** A field given to an encoder that its encoding cannot hold (a u64 above 2^64 − 1, a 31-byte bytes32…). */
  | 'out_of_range'
  /** A signature of the wrong length, a recovery id other than 27/28, or a high s. */
  | 'bad_signature';

export class GatewayFormatError extends Error {
  override readonly name = 'GatewayFormatError';
  constructor(
    readonly code: GatewayFormatErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const formatFail = (code: GatewayFormatErrorCode, message: string): never => {
  throw new GatewayFormatError(code, message);
};
