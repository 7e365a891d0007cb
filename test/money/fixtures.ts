// What money code threw, caught for a closer look: its reason and message are part of the contract.
import { AmountError, type AmountErrorReason } from '../../src/money/index.ts';

/** The AmountError `f` throws, or undefined when it returns; any other error is rethrown. */
export function amountErrorOf(f: () => unknown): AmountError | undefined {
  try {
    f();
  } catch (error) {
    if (error instanceof AmountError) return error;
    throw error;
  }
  return undefined;
}

export const reasonOf = (f: () => unknown): AmountErrorReason | undefined => amountErrorOf(f)?.reason;
