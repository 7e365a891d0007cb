// The statechart's shape under mutation (second of the runs of `npm run test:mutation`, see
// stryker.config.mjs): every module-level mutant of machines/ — a transition's target, the guard or action
// it names, a state's tags, deadlines, invoked effects — against the machine suites only
// (vitest.statechart.config.ts), since each of these mutants reruns every suite it is loaded by.
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';
import config, { strykerPlugins as shared, staticRun } from './stryker.config.mjs';

/**
 * Functions of machines/ that build part of the statechart's config (every effect state's tags, exit, error
 * and retry; a taker escrow release's endings). Their bodies run once, at import, as the config does, so
 * their mutants are static: the first run leaves them out, and this run counts them as module level.
 */
const CONFIG_BUILDERS = new Set(['effectState', 'takerEscrowEnded']);

const nameOf = (fn) =>
  fn.node.id?.name ?? (fn.parentPath.isVariableDeclarator() ? fn.parentPath.node.id.name : undefined);
/** Directly in a builder's body (not in a function nested in it, which runs when the machine does). */
const inConfigBuilder = (path) => {
  const fn = path.getFunctionParent();
  return fn !== null && fn.getFunctionParent() === null && CONFIG_BUILDERS.has(nameOf(fn));
};

const moduleLevel = shared.find((plugin) => plugin.name === 'machines-module-level-only').value;

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'machines-statechart', {
    shouldIgnore: (path) => (inConfigBuilder(path) ? undefined : moduleLevel.shouldIgnore(path)),
  }),
];

export default staticRun('machines', {
  vitest: { configFile: 'vitest.statechart.config.ts' },
  mutate: ['machines/**/*.ts', '!machines/trade.types.ts'],
  plugins: [...config.plugins, './stryker.statechart.config.mjs'],
  ignorers: ['machines-statechart'],
});
