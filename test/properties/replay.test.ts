// A failing property is replayable from what it prints: FC_SEED and FC_PATH lead straight back to the same
// shrunk counterexample, in one run.
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { configureReplay } from '../support/fast-check-replay.ts';

const before = fc.readConfigureGlobal();
afterEach(() => fc.configureGlobal(before));

/** Fails for any pair summing past 1000: rare enough to need shrinking, common enough to be found. */
const property = () =>
  fc.property(fc.nat(2_000), fc.nat(2_000), (a, b) => {
    if (a + b > 1_000) throw new Error(`${a} + ${b} is over the limit`);
  });

describe('replaying a failing property', () => {
  test('FC_SEED and FC_PATH from a failure reproduce its counterexample in one run', () => {
    const first = fc.check(property());
    expect(first.failed).toBe(true);
    expect(first.counterexamplePath).not.toBeNull();

    configureReplay({ FC_SEED: String(first.seed), FC_PATH: first.counterexamplePath ?? '' });
    const replay = fc.check(property());
    expect(replay.failed).toBe(true);
    expect(replay.counterexample).toEqual(first.counterexample);
    expect(replay.numRuns).toBe(1);
  });

  test('FC_SEED alone replays the whole run from its start', () => {
    const first = fc.check(property());
    configureReplay({ FC_SEED: String(first.seed) });
    expect(fc.check(property()).counterexample).toEqual(first.counterexample);
  });

  test('a fixed seed applies only when FC_SEED is unset', () => {
    configureReplay({}, 42);
    expect(fc.readConfigureGlobal().seed).toBe(42);
    configureReplay({ FC_SEED: '7' }, 42);
    expect(fc.readConfigureGlobal().seed).toBe(7);
  });

  test('a malformed FC_SEED or a path without a seed is refused, not silently ignored', () => {
    expect(() => configureReplay({ FC_SEED: 'abc' })).toThrow(/FC_SEED/);
    expect(() => configureReplay({ FC_PATH: '3:1:0' })).toThrow(/FC_PATH/);
  });
});
