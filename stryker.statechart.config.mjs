// The statechart's shape under mutation (second of the runs of `npm run test:mutation`, see
// stryker.config.mjs): every module-level mutant of machines/ — a transition's target, the guard or action
// it names, a state's tags, deadlines, invoked effects — against the machine suites only
// (vitest.statechart.config.ts), since each of these mutants reruns every suite it is loaded by.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: 'vitest.statechart.config.ts' },
  ignoreStatic: false,
  ignorers: ['machines-module-level-only'],
  mutate: ['machines/**/*.ts', '!machines/trade.types.ts'],
  // Static mutants have no per-test coverage: every one runs the whole (small) machine scope.
  coverageAnalysis: 'all',
  // Not incremental: without per-test coverage Stryker cannot tell which mutants a changed test reaches,
  // and would keep stale results.
  incremental: false,
  htmlReporter: { fileName: 'reports/mutation/statechart.html' },
  jsonReporter: { fileName: 'reports/mutation/statechart.json' },
  tempDirName: '.stryker-tmp-statechart',
};
