import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { ramTmpDir } from './test/support/ram-tmpdir.ts';

/**
 * Pure suites: no service, chain, store, process or socket, and no test that changes module state (mocks,
 * globals, environment). They share one module graph per worker (`isolate: false`): each file importing
 * xstate, web3.js and the vocabulary anew is most of their time.
 */
const PURE = [
  'test/machines/**/*.test.ts',
  'test/money/**/*.test.ts',
  'test/ledger/**/*.test.ts',
  'test/vocabulary/**/*.test.ts',
  'test/quotes/**/*.test.ts',
  'test/hedging/**/*.test.ts',
  'test/visualiser/**/*.test.ts',
  'test/aggregator/checks.test.ts',
  'test/aggregator/config.test.ts',
  'test/gateway/evm-contracts.test.ts',
  'test/gateway/formats.test.ts',
  'test/http/json.test.ts',
  'test/http/logging.test.ts',
  'test/cluster/peer.test.ts',
  'test/http/trade-response.test.ts',
  'test/chain/pda.test.ts',
  'test/chain/priority.test.ts',
  'test/chain/pyth-feeds.test.ts',
  'test/chain/pyth-layout.test.ts',
  'test/chain/v0.test.ts',
  'test/metrics/exposure.test.ts',
  'test/metrics/recording.test.ts',
  'test/properties/option.test.ts',
  'test/runtime/hold.test.ts',
  'test/runtime/lock-check.test.ts',
  'test/store/ids.test.ts',
  'test/venue/math.test.ts',
];

/**
 * End-to-end suites: the built service as a process, several instances over one PostgreSQL, the fault
 * proxy, the model run against the whole service. Slow, and mostly waiting on processes and the chain.
 */
const E2E = [
  'test/e2e/**/*.test.ts',
  'test/properties/model.test.ts',
  'test/dev-chain/faults.test.ts',
  'test/runtime/instances.test.ts',
  'test/store/instances.test.ts',
  'packages/taker/test/install.test.ts',
];

/**
 * Workers: at least three, whatever the core count (Vitest's default is one fewer than the cores: one on a
 * two-core machine). Most files spend their time waiting on a service process, the chain, PostgreSQL or a
 * lease, so another file runs in that time (on two cores: 130 s with three workers, 168 s with two);
 * every suite holds on a loaded machine anyway.
 */
const WORKERS = Math.max(3, availableParallelism() - 1);

/** The workers' temp folders on a RAM filesystem where there is one (test/support/ram-tmpdir.ts). */
const TMPDIR = ramTmpDir();

export default defineConfig({
  test: {
    setupFiles: ['test/support/setup.ts'],
    globalSetup: [
      'test/support/build-service.ts',
      'test/support/postgres-global-setup.ts',
      'test/support/ram-tmpdir.ts',
    ],
    env: TMPDIR === null ? {} : { TMPDIR },
    // Ceilings, not expectations: a test waits on its condition, and what takes 10 s on two quiet cores (the
    // programs' adversarial sequences, the idle tick over 299 escrows) took past 30 s at load 18, every core
    // shared with other runs. A hung test still fails, only later.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: WORKERS,
    // Inline projects extend this config (setup, timeouts, pool); the root globalSetup runs once per run
    // and what it provides reaches every project.
    projects: [
      // Vitest queues the projects by name: the long isolated e2e files first, then the pure ones (the
      // statechart's walk is one of the longest files, and last in the queue it ran alone at the end), then
      // the many short service files that fill the workers to the end.
      { test: { name: 'pure', include: PURE, isolate: false } },
      // Suites that build a service, a chain or a store in the test process and close them again: each
      // builds its own from the modules, changing none of them (no module mocks, globals or environment),
      // so they share the module graph too — web3.js, Fastify and the service's own import are most of a
      // short file's time. They pass in any order of files (--sequence.shuffle.files).
      {
        test: {
          name: 'service',
          include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: [...PURE, ...E2E, 'test/browser/**', 'node_modules/**'],
          isolate: false,
        },
      },
      // Each in a fresh worker: they kill processes, spy on the PostgreSQL driver's prototype and run long.
      // A test may start a service process two or three times (up to 45 s each before it gives up, a few
      // seconds quiet and 20 s at load 19) and wait on it: 30 s timed out there before any wait of its own.
      { test: { name: 'e2e', include: E2E, testTimeout: 180_000 } },
    ],
  },
});
