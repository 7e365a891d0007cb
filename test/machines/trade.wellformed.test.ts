// Whether xstate accepts the statechart at all, checked inside a test: a machine that cannot be built then
// fails a test, not only the loading of every suite that imports it (which mutation testing, for one,
// does not count as a failure).
import { expect, test } from 'vitest';
import { SETTLEMENT_STATUSES } from '../../src/vocabulary/index.ts';

test('xstate builds the trade machine: every target and initial state it names exists', async () => {
  const { tradeMachine } = await import('../../machines/trade.machine.ts');
  expect(Object.keys(tradeMachine.root.states)).toEqual([...SETTLEMENT_STATUSES]);
});
