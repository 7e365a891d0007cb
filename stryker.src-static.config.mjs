// The module-level code of the pure core under mutation (third of the runs of `npm run test:mutation`, see
// stryker.config.mjs): tables and exported arrow functions of src/, evaluated once at import, against the
// same fast suites as the main run.
import config, { staticRun } from './stryker.config.mjs';

export default staticRun('src', { mutate: config.mutate.filter((glob) => glob.includes('src/')) });
