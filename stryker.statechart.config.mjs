// The statechart's shape under mutation (second of the runs of `npm run test:mutation`, see
// stryker.config.mjs): every module-level mutant of machines/ — a transition's target, the guard or action
// it names, a state's tags, deadlines, invoked effects — against the machine suites only
// (vitest.statechart.config.ts), since each of these mutants reruns every suite it is loaded by.
import { staticRun } from './stryker.config.mjs';

export default staticRun('machines', {
  vitest: { configFile: 'vitest.statechart.config.ts' },
  mutate: ['machines/**/*.ts', '!machines/trade.types.ts'],
});
