// The module-level code of the pure core under mutation (third of the runs of `npm run test:mutation`, see
// stryker.config.mjs): tables and exported arrow functions of src/, evaluated once at import, against the
// same fast suites as the main run.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  ignoreStatic: false,
  ignorers: ['src-module-level-only'],
  mutate: base.mutate.filter((glob) => glob.includes('src/')),
  coverageAnalysis: 'all',
  // Not incremental: without per-test coverage Stryker cannot tell which mutants a changed test reaches,
  // and would keep stale results.
  incremental: false,
  htmlReporter: { fileName: 'reports/mutation/src-static.html' },
  jsonReporter: { fileName: 'reports/mutation/src-static.json' },
  tempDirName: '.stryker-tmp-src-static',
};
