// The maker's last look: the trade re-priced against its quote, judged against the tolerance, in exact
// arithmetic.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { type Price, parsePrice } from '../../src/money/index.ts';
import { repriceCheck } from '../../src/quotes/index.ts';

const usd = (text: string): Price => parsePrice(text);
const check = (input: string, output: string, toleranceBps = 50) =>
  repriceCheck({
    quotedUsd: { input: '187.42', output: '1' },
    currentUsd: { input: usd(input), output: usd(output) },
    toleranceBps,
  });

describe('repriceCheck', () => {
  it('measures how far the mid fell (output per input), rounded up, and holds within the tolerance', () => {
    expect(check('187.42', '1')).toMatchObject({ holds: true, reason: null, movedBps: 0 });
    // 187.42 → 186.4829: 0.5 % down, exactly 50 bps: still within.
    expect(check('186.4829', '1')).toMatchObject({ holds: true, movedBps: 50 });
    // A hair more rounds up past the tolerance.
    expect(check('186.48', '1')).toMatchObject({ holds: false, reason: 'price_moved', movedBps: 51 });
    // The output getting dearer moves the mid the same way.
    expect(check('187.42', '1.01')).toMatchObject({ holds: false, reason: 'price_moved', movedBps: 100 });
  });

  it('a move in the maker’s favour holds whatever its size, shown as negative', () => {
    expect(check('200', '1')).toMatchObject({ holds: true, reason: null, movedBps: -671 });
  });

  it('shows both mids and the tolerance for the trade’s events', () => {
    expect(check('180', '1', 75)).toEqual({
      holds: false,
      reason: 'price_moved',
      quotedMid: '187.420000000000',
      currentMid: '180.000000000000',
      movedBps: 396,
      toleranceBps: 75,
    });
  });

  it('is price_unavailable when either side has no usable price now', () => {
    for (const currentUsd of [
      { input: null, output: usd('1') },
      { input: usd('187.42'), output: null },
    ]) {
      expect(
        repriceCheck({ quotedUsd: { input: '9371/50', output: '1' }, currentUsd, toleranceBps: 50 }),
      ).toEqual({
        holds: false,
        reason: 'price_unavailable',
        quotedMid: '187.420000000000',
        currentMid: null,
        movedBps: null,
        toleranceBps: 50,
      });
    }
  });

  const prices = fc.bigInt({ min: 1n, max: 10n ** 18n });
  test.prop([prices, prices, prices, prices, fc.integer({ min: 0, max: 10_000 })])(
    'holds exactly when the mid fell by at most the tolerance (cross-multiplied, no rounding)',
    (qIn, qOut, nIn, nOut, tolerance) => {
      const result = repriceCheck({
        quotedUsd: { input: `${qIn}/1`, output: `${qOut}/1` },
        currentUsd: { input: { num: nIn, den: 1n }, output: { num: nOut, den: 1n } },
        toleranceBps: tolerance,
      });
      // mid_q = qIn/qOut, mid_n = nIn/nOut; fell by at most t bps ⇔ (mid_q − mid_n)·10⁴ ≤ t·mid_q.
      const within = (qIn * nOut - nIn * qOut) * 10_000n <= BigInt(tolerance) * qIn * nOut;
      expect(result.holds).toBe(within);
      expect(result.reason).toBe(within ? null : 'price_moved');
    },
  );
});
