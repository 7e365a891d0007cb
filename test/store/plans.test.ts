// The PostgreSQL store's plans at 100,000 trades, most of them closed history: what an instance asks about
// its own trades reads its share through an index that leads with the owner, the orphans of dead runs are
// found by owner, and a reservation sums one mint's buckets and one second of its quotes and holds —
// never a scan of every trade or every quote. Checked for the plan PostgreSQL makes for given values and for
// the generic plan a long-lived connection ends up reusing.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { POSTGRES_STATEMENTS } from '../../src/store/postgres/index.ts';
import { POSTGRES_TESTS, testDatabaseUrl } from '../support/postgres.ts';

const TRADES = 100_000;
const LIVE_RUNS = 10;
const DEAD_RUNS = 20;

/**
 * Runs 1..10 are live, 11..30 stopped. Nine trades in ten are closed; the unclosed ones belong to the live
 * runs (about 1,000 each) but for one in ten, an orphan of a dead run. Every trade's quote is used; beside
 * them, 50,000 quotes were never taken (expired) and 1,000 are open.
 */
const SEED = `
  INSERT INTO runs (run_id, version, started_at, stopped_at, url, lease_expires_at_ms)
  SELECT 'run-' || i, 'test', '2030-01-01T00:00:00.000Z',
         CASE WHEN i > ${LIVE_RUNS} THEN '2030-01-02T00:00:00.000Z' END, 'http://run-' || i || '.test',
         CASE WHEN i > ${LIVE_RUNS} THEN 0 ELSE 9000000000000000 END
  FROM generate_series(1, ${LIVE_RUNS + DEAD_RUNS}) i;

  INSERT INTO quotes (quote_id, run_id, taker_wallet, input_mint, output_mint, input_raw, output_raw, spread_bps,
                      input_usd, output_usd, created_at, expires_at_ms, htlc_expires_at_ms, risk_checks,
                      used_by_trade_id)
  SELECT 'q-' || i, 'run-1', 'w-' || (i % 5000), 'SOL', CASE WHEN i % 2 = 0 THEN 'USDC' ELSE 'USDT' END, 1, 1, 10,
         '1', '1', '2030-01-01T00:00:00.000Z',
         CASE WHEN i > ${TRADES + 50_000} THEN 9000000000000000 ELSE i END, 0, '[]',
         CASE WHEN i <= ${TRADES} THEN 't-' || i END
  FROM generate_series(1, ${TRADES + 51_000}) i;

  INSERT INTO trades (trade_id, quote_id, run_id, owner_run_id, taker_wallet, secret_hash, created_at, updated_at,
                      status, substate, closed, next_deadline, adoption_error, taker_escrow, maker_escrow, watch,
                      seen, hold_mint, hold_raw, hold_until_ms, running, effect_attempts)
  SELECT 't-' || i, 'q-' || i, owner, owner, 'w-' || (i % 5000), 'h-' || i,
         to_char(i, 'FM0000000'), to_char(i, 'FM0000000'),
         CASE WHEN closed THEN 'redeemed' WHEN i % 4 = 0 THEN 'initiated' ELSE 'pending' END,
         CASE WHEN closed THEN 'redeemed' WHEN i % 4 = 0 THEN 'initiated.redeeming.makerLocked' ELSE 'pending.awaitingLock' END,
         closed, CASE WHEN NOT closed THEN i END, NULL, 'te-' || i, 'me-' || i, 3, '-',
         CASE WHEN NOT closed THEN CASE WHEN i % 2 = 0 THEN 'USDC' ELSE 'USDT' END END,
         CASE WHEN NOT closed THEN 1 END, CASE WHEN NOT closed THEN 9000000000000000 END,
         NOT closed AND i % 30 = 0, CASE WHEN NOT closed AND i % 50 = 0 THEN 2 ELSE 0 END
  FROM (
    SELECT i, i % 10 <> 0 AS closed,
           CASE WHEN i % 100 = 0 THEN 'run-' || (${LIVE_RUNS + 1} + (i / 100) % ${DEAD_RUNS})
                ELSE 'run-' || (1 + (i / 10) % ${LIVE_RUNS}) END AS owner
    FROM generate_series(1, ${TRADES}) i
  ) t;

  -- Snapshots of a real one's size (1.2 kB), stored as they are (no compression below 2 kB).
  INSERT INTO trade_snapshots (trade_id, machine_version, snapshot)
  SELECT trade_id, 3, repeat(md5(trade_id), 37) FROM trades;

  -- Reservations of two mints ending in each of 20,000 seconds (five and a half hours of them).
  INSERT INTO reservation_buckets (mint, until_s, raw)
  SELECT m, 1000000 + s, 1 FROM unnest(ARRAY['USDC', 'USDT']) m, generate_series(1, 20000) s;

  ANALYZE;
`;

type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
};

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

describe.skipIf(!POSTGRES_TESTS)('the postgres store at 100,000 trades', () => {
  let client: pg.Client;

  beforeAll(async () => {
    const databaseUrl = await testDatabaseUrl();
    // The store's migrations make the schema.
    await (await openStore({ databaseUrl })).close();
    client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(SEED);
  }, 120_000);

  afterAll(async () => {
    await client?.end();
  });

  /** Every node of the statement's plan for these values, as a custom or as the generic plan. */
  async function plan(
    name: keyof typeof POSTGRES_STATEMENTS,
    values: unknown[],
    mode: 'custom' | 'generic',
  ): Promise<PlanNode[]> {
    await client.query(`SET plan_cache_mode = force_${mode}_plan`);
    await client.query('DEALLOCATE ALL');
    await client.query(`PREPARE statement AS ${POSTGRES_STATEMENTS[name]}`);
    const params = values
      .map((value) => (value === null ? 'NULL' : client.escapeLiteral(String(value))))
      .join(', ');
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (FORMAT JSON) EXECUTE statement(${params})`,
    );
    return nodesOf((rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan);
  }

  const OWNER = 'run-3';
  const FAR = 9_000_000_000_000;
  /** Statements that read one trade, or a few of the owner's: each through the index named. */
  const selective: [name: keyof typeof POSTGRES_STATEMENTS, values: unknown[], indexes: string[]][] = [
    ['runningTrades', [OWNER], ['trades_running']],
    ['dueTrades', [OWNER, FAR, 100], ['trades_wake']],
    ['earliestWake', [OWNER], ['trades_wake']],
    ['failingTrades', [OWNER, 1, 10], ['trades_failing']],
    ['failingEffectCounts', [OWNER, 1], ['trades_failing']],
    ['claimOrphans', [OWNER, 100], ['trades_owned']],
    ['claimUnclosed', [OWNER], ['trades_owned', 'trades_pkey']],
    ['acquireTrade', ['t-100', OWNER], ['trades_pkey']],
    [
      'saveTransition',
      [
        ...['t-10', OWNER, 'x', 'pending', 'pending.x', false, 1, 3, null, null, null, false, 0, 3, '{}'],
        // The events' and ledger entries' columns (arrays; none here).
        ...Array.from({ length: 11 }, () => '{}'),
      ],
      ['trades_pkey'],
    ],
    ['insertEventFenced', ['t-10', OWNER, 'x', 'NOTE', 'pending', 'pending.x', '{}'], ['trades_pkey']],
    ['setWake', ['t-10', OWNER, 1], ['trades_pkey']],
    ['claimTrade', ['t-100', OWNER], ['trades_pkey']],
    // The buckets (a few thousand in all: the planner may read them whole), and one second of quotes and holds.
    ['reservedSum', ['USDC', 1_000_000_000, 1_000_000], ['quotes_open', 'trades_holding']],
  ];
  /**
   * Statements that read the owner's whole share (about 1% of the trades here): the planner may judge a scan
   * of the trades (one read in order) cheaper than as many random reads, but never scans the snapshots.
   */
  const shares: [name: keyof typeof POSTGRES_STATEMENTS, values: unknown[]][] = [
    ['restIndex', [OWNER]],
    ['ownedTradeCounts', [OWNER]],
    ['settlingSnapshots', [OWNER]],
  ];

  const scansOf = (nodes: PlanNode[], tables: string[]) =>
    nodes.filter((node) => node['Node Type'] === 'Seq Scan' && tables.includes(node['Relation Name'] ?? ''));

  describe.each(['custom', 'generic'] as const)('the %s plans', (mode) => {
    test.each(selective)(
      '%s reads through its index, scanning no table whole',
      async (name, values, indexes) => {
        const nodes = await plan(name, values, mode);
        const used = nodes.map((node) => node['Index Name']).filter(Boolean);
        for (const index of indexes) expect(used, JSON.stringify(nodes)).toContain(index);
        expect(scansOf(nodes, ['trades', 'quotes', 'trade_snapshots']), JSON.stringify(nodes)).toEqual([]);
      },
    );

    test.each(shares)("%s reads the owner's share, and no snapshot beyond it", async (name, values) => {
      const nodes = await plan(name, values, mode);
      expect(scansOf(nodes, ['trade_snapshots', 'quotes']), JSON.stringify(nodes)).toEqual([]);
    });
  });
});
