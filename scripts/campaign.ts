// `npm run campaign`: settlement on a cluster that misbehaves. For each store (SQLite with one instance,
// PostgreSQL with two) the loopback chain, the fault proxy in front of it (the harsh mix), the built service
// on `chain.kind = "rpc"` behind the proxy, takers of every kind, outages and kill -9 at planned moments,
// the clock moved past the expiries, then an audit from the chain's own ledger. Prints a report and exits
// 1 on any problem (2 if the campaign itself could not run).
//
//   --profile short|full   short: ≤ 3 min, 18 takers and 2 kills per store (CI); full: 230 takers, 6 kills
//   --seed <text>          the timeline, the takers and the faults (default 1)
//   --stores sqlite,postgres
//   --kills N, --takers N  per store
//   --faults <profile>     the proxy's mix between outages: harsh (default), mild or none (a control run)
//   --sequential           one store after the other (default: side by side)
//   --keep                 keep each store's folder (logs, chain) even without problems
//   --log-level <level>    the instances' LOG_LEVEL (default warn)
//   --report <file.json>   also write the full report as JSON
//   --no-build             use dist/main.mjs as it is
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PROFILE_NAMES, type ProfileName } from '../src/dev-chain/faults/index.ts';
import { buildService } from './build-service.ts';
import { type CampaignProfile, makePlan, STORE_MODES, type StoreMode } from './campaign/plan.ts';
import { formatReport } from './campaign/report.ts';
import { runStore, type StoreReport } from './campaign/run.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from './postgres/throwaway.ts';

const { values: flags } = parseArgs({
  options: {
    profile: { type: 'string', default: 'short' },
    seed: { type: 'string', default: '1' },
    stores: { type: 'string', default: STORE_MODES.join(',') },
    kills: { type: 'string' },
    takers: { type: 'string' },
    faults: { type: 'string', default: 'harsh' },
    sequential: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'log-level': { type: 'string', default: 'warn' },
    report: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
  },
});

const count = (name: string, text: string | undefined) => {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name}: a whole number`);
  return n;
};

async function main(): Promise<number> {
  if (flags.profile !== 'short' && flags.profile !== 'full') throw new Error('--profile: short or full');
  const stores = (flags.stores ?? '').split(',').filter(Boolean) as StoreMode[];
  for (const store of stores) {
    if (!STORE_MODES.includes(store))
      throw new Error(`--stores: ${store} is not one of ${STORE_MODES.join(', ')}`);
  }
  if (!PROFILE_NAMES.includes(flags.faults as ProfileName)) {
    throw new Error(`--faults: one of ${PROFILE_NAMES.join(', ')}`);
  }
  const kills = count('kills', flags.kills);
  const takers = count('takers', flags.takers);
  const plan = makePlan({
    profile: flags.profile as CampaignProfile,
    seed: flags.seed ?? '1',
    stores,
    faultProfile: flags.faults as ProfileName,
    ...(kills === undefined ? {} : { kills }),
    ...(takers === undefined ? {} : { takers }),
  });
  const began = Date.now();
  const log = (line: string) =>
    console.log(`[campaign +${Math.round((Date.now() - began) / 1000)}s] ${line}`);
  if (!flags['no-build']) {
    await buildService();
    log('service bundle built');
  }
  let postgres: ThrowawayPostgres | null = null;
  const reports: StoreReport[] = [];
  const failures: { store: string; error: string }[] = [];
  try {
    if (stores.includes('postgres')) {
      postgres = await startThrowawayPostgres({ fsync: false });
      log(`throwaway PostgreSQL on port ${postgres.port}`);
    }
    const run = async (storePlan: (typeof plan.stores)[number]) => {
      try {
        reports.push(
          await runStore(plan, storePlan, {
            ...(postgres ? { postgresAdminUrl: postgres.url } : {}),
            logLevel: flags['log-level'] ?? 'warn',
            keep: flags.keep ?? false,
            log,
          }),
        );
      } catch (error) {
        failures.push({ store: storePlan.store, error: (error as Error).stack ?? String(error) });
      }
    };
    if (flags.sequential) for (const s of plan.stores) await run(s);
    else await Promise.all(plan.stores.map(run));
  } finally {
    await postgres?.stop();
  }
  reports.sort((a, b) => stores.indexOf(a.store) - stores.indexOf(b.store));
  console.log(formatReport(plan, reports, failures, Date.now() - began));
  if (flags.report) {
    writeFileSync(
      flags.report,
      JSON.stringify(
        {
          plan,
          stores: reports.map(({ records, ...rest }) => ({
            ...rest,
            records: records.map(({ wallet, ...r }) => ({ ...r, wallet: wallet.publicKey.toBase58() })),
          })),
          failures,
        },
        (_key, value) => (typeof value === 'bigint' ? value.toString() : value),
        2,
      ),
    );
  }
  if (failures.length > 0) return 2;
  return reports.some((r) => r.audit.problems.length > 0) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`campaign: ${(error as Error).stack ?? String(error)}`);
    process.exit(2);
  },
);
