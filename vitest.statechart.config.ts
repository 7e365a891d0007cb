// Test scope for the statechart's mutation run (stryker.statechart.config.mjs): the suites that judge the
// trade machine directly — the xstate/graph state × event walk against the lifecycle oracle
// (docs/lifecycle.md), paths, safety, effects, restore, snapshot readings, deadlines, rules, closing and
// the definition reader — with a fixed seed. Not the
// diagram test: it compares docs/trade-machine.md with the machine, so it would kill nearly any change to
// the config as a snapshot does, hiding whether the behavioural suites notice it.
import { defineConfig } from 'vitest/config';
import base from './vitest.mutation.config.ts';

export default defineConfig({
  test: {
    ...base.test,
    exclude: ['test/machines/diagram.test.ts'],
    include: ['test/machines/**/*.test.ts'],
  },
});
