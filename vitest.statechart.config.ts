// Test scope for the statechart's mutation run (stryker.statechart.config.mjs): the suites that judge the
// trade machine directly — the xstate/graph state × event walk against the SPEC §3 oracle, paths, safety,
// effects, restore, snapshot readings, deadlines and the definition reader — with a fixed seed.
import { defineConfig } from 'vitest/config';
import base from './vitest.mutation.config.ts';

export default defineConfig({
  test: {
    ...base.test,
    include: [
      'test/machines/**/*.test.ts',
      'test/mutation/trade-escrows.test.ts',
      'test/mutation/trade-rules.test.ts',
    ],
  },
});
