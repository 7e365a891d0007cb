// `npm run test:browser`: the visualiser and the swap page in a real browser (Debian's Chromium driven by
// playwright-core).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
