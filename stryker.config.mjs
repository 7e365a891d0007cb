// Mutation testing of the trade statechart and the pure core (`npm run test:mutation`; not part of CI).
// Three runs share this file and together mutate the scope once:
//   - this config: every mutant that runs per test — guard, action and effect-input bodies, the rules,
//     snapshot and deadline readings, money, pricing (with the option term, volatility, last look and
//     sourcing arithmetic), risk, the aggregator's checks and slippage, the hedger's and the venue's
//     arithmetic, ledger, TradeResponse rendering — against the fast suites listed in
//     vitest.mutation.config.ts. Mutants evaluated at import ("static") are left to:
//   - stryker.statechart.config.mjs: the module-level code of machines/, above all the statechart's config
//     (states, targets, which guard and action each transition names), against the machine suites only;
//   - stryker.src-static.config.mjs: the module-level code of src/ (tables such as the ledger's flows and
//     the risk checks), against the same suites as this run.
// A static mutant cannot be traced to tests, so it reruns every suite in scope from a fresh import: the
// statechart's ~650 would take hours against all suites, ~20 min against the machine suites (~7 s each).
// Mutants are active only once tests run: a test must compute what it checks inside the test, never
// while its file is collected. Reports land in reports/mutation/ (gitignored). Only this run is
// incremental: its per-test coverage tells which mutants a changed test reaches.
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

/** The mutant's file, relative to the project: Stryker's Babel traversal carries it on the hub. */
const fileOf = (path) => {
  const filename = path.hub?.file?.opts?.filename;
  if (typeof filename !== 'string') throw new Error('stryker ignorer: the mutant has no file name');
  return filename.replaceAll('\\', '/');
};
/** Code not inside any function runs once, at import (a mutated arrow function itself is replaced then too). */
const atModuleLevel = (path) => path.getFunctionParent() === null;
/** A `description:` text of a state or transition: documentation for the visualiser, not behaviour. */
const inDescription = (path) =>
  path.findParent(
    (p) => p.isObjectProperty() && p.node.key.type === 'Identifier' && p.node.key.name === 'description',
  ) !== null;

/** Keeps only the module-level mutants of one folder (an ignored node takes its whole subtree with it). */
const moduleLevelOf = (folder) => {
  const inFolder = new RegExp(`(^|/)${folder}/`);
  return {
    shouldIgnore(path) {
      if (!inFolder.test(fileOf(path))) return `outside ${folder}/`;
      if (!atModuleLevel(path)) return 'runs per test: measured by stryker.config.mjs';
      if (inDescription(path))
        return 'state description: documentation, checked by the diagram staleness test';
      return undefined;
    },
  };
};

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'machines-module-level-only', moduleLevelOf('machines')),
  declareValuePlugin(PluginKind.Ignore, 'src-module-level-only', moduleLevelOf('src')),
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner', './stryker.config.mjs'],
  ignoreStatic: true,
  mutate: [
    'machines/**/*.ts',
    '!machines/trade.types.ts',
    'src/money/**/*.ts',
    'src/quotes/pricing.ts',
    'src/quotes/risk.ts',
    'src/quotes/option.ts',
    'src/quotes/volatility.ts',
    'src/quotes/reprice.ts',
    'src/quotes/sourcing.ts',
    'src/aggregator/checks.ts',
    'src/aggregator/slippage.ts',
    'src/hedging/plan.ts',
    'src/venue/math.ts',
    'src/ledger/**/*.ts',
    'src/http/trade-response.ts',
  ],
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  // Run by hand on an idle machine: both cores (`-- --concurrency 1` leaves one free).
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: 90 },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
export default config;

/**
 * A run of static mutants only (the second and third runs): `name` picks its ignorer
 * (`<name>-module-level-only`), reports and sandbox. Static mutants have no per-test coverage, so every one
 * runs the whole scope; and without that coverage Stryker cannot tell which mutants a changed test
 * reaches, so an incremental run would keep stale results: these runs always run whole.
 */
export const staticRun = (name, options) => ({
  ...config,
  ignoreStatic: false,
  ignorers: [`${name}-module-level-only`],
  coverageAnalysis: 'all',
  incremental: false,
  htmlReporter: { fileName: `reports/mutation/${name}-static.html` },
  jsonReporter: { fileName: `reports/mutation/${name}-static.json` },
  tempDirName: `.stryker-tmp-${name}-static`,
  ...options,
});
