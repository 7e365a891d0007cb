// Mutation testing of the pure core (`npm run test:mutation`; not part of CI): the trade statechart and
// the functional core (money, pricing, risk, ledger, TradeResponse rendering), against the fast unit and
// property suites listed in vitest.mutation.config.ts. Reports land in reports/ (gitignored).
//
// Cost model: with perTest coverage a mutant inside a function reruns only the tests that reached it. A
// mutant evaluated while a module loads ("static") cannot be traced to tests, so it reruns every suite
// importing that module. The trade machine's config object (state names, targets, guard and action
// names, descriptions) is evaluated once, at import: ~650 static mutants, each rerunning all machine
// suites including the exhaustive graph test — hours on two cores. The `xstate-config` ignorer below
// leaves those out (reported as Ignored, not counted in the score); the guard and action bodies, the
// effect inputs and the rules/snapshot/deadline helpers are still mutated. For an occasional complete
// run of the statechart's shape as well: `STRYKER_MACHINE_CONFIG=1 npm run test:mutation`.
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

const withMachineConfig = process.env.STRYKER_MACHINE_CONFIG === '1';

/** `setup(...)` or `<x>.createMachine(...)`: the call whose argument is an XState machine config. */
const isMachineConfigCall = (path) => {
  if (!path.isCallExpression()) return false;
  const callee = path.node.callee;
  return (
    (callee.type === 'Identifier' && callee.name === 'setup') ||
    (callee.type === 'MemberExpression' &&
      callee.property.type === 'Identifier' &&
      callee.property.name === 'createMachine')
  );
};

const FUNCTION_TYPES = new Set(['ArrowFunctionExpression', 'FunctionExpression', 'ObjectMethod']);

/** Whether a subtree holds a function: ignoring it would ignore that function's body too. */
const containsFunction = (node) => {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(containsFunction);
  if (typeof node.type === 'string' && FUNCTION_TYPES.has(node.type)) return true;
  return Object.entries(node).some(
    ([key, value]) =>
      !['loc', 'start', 'end', 'leadingComments', 'trailingComments'].includes(key) &&
      containsFunction(value),
  );
};

/**
 * Ignores the parts of an XState machine config that are evaluated at import (data, not code), unless
 * they contain a function. Mutants inside guard, action and input functions stay in.
 */
const xstateConfigIgnorer = {
  shouldIgnore(path) {
    if (withMachineConfig) return undefined;
    const functionParent = path.getFunctionParent();
    const configCall = path.findParent(isMachineConfigCall);
    if (configCall === null) return undefined;
    // Inside a function that is itself inside the config: runs per test, keep it.
    if (functionParent?.isDescendant(configCall)) return undefined;
    if (containsFunction(path.node)) return undefined;
    return 'XState machine config evaluated at import (static mutant; run with STRYKER_MACHINE_CONFIG=1)';
  },
};

export const strykerPlugins = [declareValuePlugin(PluginKind.Ignore, 'xstate-config', xstateConfigIgnorer)];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner', './stryker.config.mjs'],
  ignorers: ['xstate-config'],
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
  // The machine is shared with other work (two cores): one test runner, run by hand.
  concurrency: 1,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
