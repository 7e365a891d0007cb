// Test scope for mutation testing (`npm run test:mutation`): only the fast, pure unit and property
// suites that exercise the mutated modules, so Stryker's dry run and per-mutant reruns stay short.
// No chain, store or e2e suites, and of HTTP only the pure TradeResponse rendering: the rest is slow and
// covers none of the mutated pure code alone.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/machines/**/*.test.ts',
      'test/money/**/*.test.ts',
      'test/quotes/pricing.test.ts',
      'test/quotes/risk.test.ts',
      'test/quotes/volatility.test.ts',
      'test/properties/option.test.ts',
      'test/quotes/reprice.test.ts',
      'test/quotes/sourcing.test.ts',
      'test/aggregator/checks.test.ts',
      'test/hedging/plan.test.ts',
      'test/venue/math.test.ts',
      'test/ledger/**/*.test.ts',
      'test/http/trade-response.test.ts',
    ],
    // Imports the machine inside a test: per-test coverage would then tie every statechart-config mutant
    // to it. Those mutants are the statechart run's (stryker.statechart.config.mjs), where it belongs.
    exclude: ['test/machines/trade.wellformed.test.ts'],
    setupFiles: ['test/support/mutation-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
