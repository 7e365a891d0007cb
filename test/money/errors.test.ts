// The one error money code throws: a vocabulary of reasons the HTTP layer maps without string matching,
// and messages that quote the client's text without echoing much of it.
import { describe, expect, test } from 'vitest';
import { AMOUNT_ERROR_REASONS, formatAmount, parseAmount, parsePrice } from '../../src/money/index.ts';
import { amountErrorOf, reasonOf } from './fixtures.ts';

describe('AmountError', () => {
  test('is an Error named AmountError, so logs and the HTTP layer can tell it apart', () => {
    const error = amountErrorOf(() => parseAmount('x', 6));
    expect(error).toBeInstanceOf(Error);
    expect(error?.name).toBe('AmountError');
    expect(String(error)).toMatch(/^AmountError: /);
  });

  test('AMOUNT_ERROR_REASONS is exactly the set of reasons money code throws', () => {
    const thrown = new Set([
      reasonOf(() => parseAmount('1e3', 6)),
      reasonOf(() => parseAmount('1.5', 0)),
      reasonOf(() => parseAmount('9'.repeat(30), 0)),
      reasonOf(() => parsePrice('0')),
      reasonOf(() => formatAmount(1n, 19)),
    ]);
    expect(new Set(AMOUNT_ERROR_REASONS)).toEqual(thrown);
    expect(AMOUNT_ERROR_REASONS).toHaveLength(thrown.size);
  });
});

describe('error messages quote client text, but never much of it', () => {
  test('text of up to 40 characters is quoted whole, as JSON', () => {
    const text = 'a'.repeat(40);
    expect(amountErrorOf(() => parseAmount(text, 6))?.message).toBe(
      `amount "${text}" is not a plain decimal number (digits, optionally a dot and more digits)`,
    );
  });

  test('longer text is cut to its first 40 characters and an ellipsis', () => {
    const message = amountErrorOf(() => parseAmount(`${'b'.repeat(40)}${'z'.repeat(10_000)}`, 6))?.message;
    expect(message).toContain(`"${'b'.repeat(40)}…"`);
    expect(message).not.toContain('z');
  });
});
