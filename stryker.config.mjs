// Mutation testing of the trade statechart and the pure core (`npm run test:mutation`; not part of CI).
// Two runs share this file and together mutate every line of the scope exactly once:
//   - this config: code that runs per test (guard, action and effect-input bodies, the rules, snapshot and
//     deadline readings, money, pricing, risk, ledger, TradeResponse rendering) and the module-level code
//     of src/, against the fast suites listed in vitest.mutation.config.ts;
//   - stryker.statechart.config.mjs: the module-level code of machines/ — above all the statechart's
//     config (states, targets, which guard and action each transition names), evaluated once at import.
// A mutant evaluated at import ("static") cannot be traced to tests, so it reruns every suite: against
// the machine suites alone (~7 s) the statechart run stays within the hour; here it would take ~20 s each.
// Reports land in reports/ (gitignored); both runs are incremental.
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

/** The mutant's file, relative to the project: Stryker's Babel traversal carries it on the hub. */
const fileOf = (path) => {
  const filename = path.hub?.file?.opts?.filename;
  if (typeof filename !== 'string') throw new Error('stryker ignorer: the mutant has no file name');
  return filename.replaceAll('\\', '/');
};
const inMachines = (path) => /(^|\/)machines\//.test(fileOf(path));
/** Code not inside any function runs once, at import (a mutated arrow function itself is replaced then too). */
const atModuleLevel = (path) => path.getFunctionParent() === null;

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'machine-module-level', {
    shouldIgnore: (path) =>
      inMachines(path) && atModuleLevel(path)
        ? 'machines/ module-level code (statechart config): measured by stryker.statechart.config.mjs'
        : undefined,
  }),
  declareValuePlugin(PluginKind.Ignore, 'all-but-machine-module-level', {
    shouldIgnore: (path) =>
      inMachines(path) && atModuleLevel(path)
        ? undefined
        : 'runs per test or lives in src/: measured by stryker.config.mjs',
  }),
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner', './stryker.config.mjs'],
  ignorers: ['machine-module-level'],
  mutate: [
    'machines/**/*.ts',
    '!machines/trade.types.ts',
    'src/money/**/*.ts',
    'src/quotes/pricing.ts',
    'src/quotes/risk.ts',
    'src/ledger/**/*.ts',
    'src/runtime/trade-view.ts',
  ],
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  // Two cores: one test runner leaves the other for vitest's own worker. On an idle machine
  // `-- --concurrency 2` is faster.
  concurrency: 1,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: 90 },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
