// One store's campaign, phase by phase: active (takers start, outages and kills on the timeline, faults on,
// no warps), drain (no more damage, faults still on, the clock moves as the timekeeper allows, takers
// finish), settle (faults off, the clock moves past every expiry, the service settles what is left), then
// the audit from the chain's own ledger.
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import { type FaultStats, seededRandom } from '../../src/dev-chain/faults/index.ts';
import { type AuditResult, audit } from './audit.ts';
import { type ChaosRecord, runChaos } from './chaos.ts';
import { type ClientStats, ServiceClient } from './client.ts';
import type { Plan, StorePlan } from './plan.ts';
import { runTaker, type TakerResult, type TradeRecord } from './takers.ts';
import { escrowAt, Timekeeper, type TimekeeperStats } from './timekeeper.ts';
import { ChainAccess } from './wallet.ts';
import { startWorld, type WorldEvent } from './world.ts';

export interface StoreReport {
  store: StorePlan['store'];
  instances: number;
  takers: TakerResult[];
  records: TradeRecord[];
  chaos: ChaosRecord;
  faults: FaultStats;
  clock: TimekeeperStats;
  http: ClientStats;
  events: WorldEvent[];
  audit: AuditResult;
  phases: { activeMs: number; drainMs: number; settleMs: number; auditMs: number };
  /** Wall ms the active phase began: the timeline counts from it. */
  startedAt: number;
  /** The store's temp folder (logs, chain, config), when kept. */
  kept: string | null;
}

export interface RunOptions {
  postgresAdminUrl?: string;
  logLevel: string;
  keep: boolean;
  log: (line: string) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The settle phase ends early once neither a transaction nor a warp happened for this long. */
const QUIET_MS = 20_000;
/** A blockhash lives 150 blocks, a minute of chain time: a warp past it, at most twice, once all is quiet. */
const LAPSE_WARP_SECONDS = 70;
const LAPSE_WARPS = 2;
/** Between two such warps: time for the service to see the first and act on it. */
const LAPSE_PAUSE_MS = 6_000;

export async function runStore(plan: Plan, storePlan: StorePlan, options: RunOptions): Promise<StoreReport> {
  const { log } = options;
  const world = await startWorld({
    store: storePlan.store,
    instances: storePlan.instances,
    seed: plan.seed,
    ...(options.postgresAdminUrl ? { postgresAdminUrl: options.postgresAdminUrl } : {}),
    logLevel: options.logLevel,
  });
  let keep = options.keep;
  try {
    await Promise.all(world.instances.map((instance) => world.start(instance)));
    await untilReady(world.instances.map((i) => i.url));
    world.proxy.control.setProfile(plan.faultProfile, plan.faults);
    log(
      `${storePlan.store}: ${world.instances.length} instance(s) ready behind the fault proxy (${world.root})`,
    );

    const records: TradeRecord[] = [];
    const http: ClientStats = { requests: 0, unanswered: 0, unavailable: 0, rateLimited: 0 };
    const direct = new ChainAccess(world.chain.url, world.chain.wsUrl, DEFAULT_HTLC_PROGRAM_ID, 'direct');
    const faulty = new ChainAccess(world.proxy.url, world.proxy.wsUrl, DEFAULT_HTLC_PROGRAM_ID, 'faulty');
    const keeper = new Timekeeper(world, plan, records);
    let stopped = false;
    let ticking = true;
    const ticks = (async () => {
      while (ticking) {
        await keeper
          .tick()
          .catch((error: unknown) => log(`${storePlan.store}: timekeeper: ${(error as Error).message}`));
        await sleep(250);
      }
    })();

    // Active: takers on their schedule, outages and kills on theirs.
    const startedAt = Date.now();
    const activeEndsAt = startedAt + plan.activeMs;
    const chaos = runChaos(world, storePlan, startedAt);
    const takers = storePlan.takers.map(async ({ kind, startAtMs }, index) => {
      await sleep(startAtMs);
      const random = seededRandom(plan.seed, `taker:${storePlan.store}:${index}`);
      return runTaker(
        {
          world,
          client: new ServiceClient(world, random, http, 90_000),
          direct,
          faulty,
          random,
          records,
          startedAt,
          activeEndsAt,
          stopped: () => stopped,
        },
        index,
        kind,
      );
    });
    const finished: TakerResult[] = [];
    for (const t of takers) void t.then((r) => finished.push(r));
    await sleep(activeEndsAt - Date.now());
    const chaosRecord = await chaos;
    if (world.proxy.control.outageStatus().active) world.proxy.control.outage('off');
    const activeMs = Date.now() - startedAt;
    log(
      `${storePlan.store}: active phase over (${chaosRecord.kills.length} kills, ${chaosRecord.outages.length} outages, ${records.length} trades); draining`,
    );

    // Drain: faults on, no more damage, time moves.
    keeper.warpsOn = true;
    const drainStarted = Date.now();
    await Promise.race([Promise.all(takers), sleep(plan.drainMs)]);
    const drainMs = Date.now() - drainStarted;
    log(
      `${storePlan.store}: drain over (${finished.length}/${takers.length} takers done); settling without faults`,
    );

    // Settle: faults off, time moves past every expiry, the service settles.
    world.proxy.control.setProfile('none');
    keeper.settling = true;
    const settleStarted = Date.now();
    const settleClient = new ServiceClient(world, seededRandom(plan.seed, 'settle'), http, 10_000);
    // Until everything is settled, or nothing has moved on chain (no transaction, no warp) for 20 s while
    // nothing held the clock either.
    let quiet = { txs: world.chain.ledger.transactionCount(), warps: keeper.stats.warps, since: Date.now() };
    let lapseWarps = 0;
    let lapseWarpAt = 0;
    while (Date.now() - settleStarted < plan.settleMs) {
      const state = await settling(world, records, settleClient);
      if (state === 'settled') break;
      const txs = world.chain.ledger.transactionCount();
      const quietFor = Date.now() - quiet.since;
      if (
        lapseWarps < LAPSE_WARPS &&
        Date.now() - lapseWarpAt >= LAPSE_PAUSE_MS &&
        (state === 'books' || quietFor >= QUIET_MS)
      ) {
        // Every escrow settled and the books still open, or nothing moved with work left: a maker
        // transaction dropped during the faults (a refund that lost the race to the taker's own, a close) is
        // known unlanded only once its blockhash is past, which the chain's block height reaches in a minute
        // of chain time. No escrow expiry is left to move the clock to.
        lapseWarps++;
        lapseWarpAt = Date.now();
        await world.proxy.control.warp(LAPSE_WARP_SECONDS);
        world.note('warp', `${LAPSE_WARP_SECONDS} s (blockhashes lapse)`);
        log(`${storePlan.store}: work left with the escrows settled; ${LAPSE_WARP_SECONDS} s warp`);
        quiet = { txs, warps: keeper.stats.warps, since: Date.now() };
      } else if (txs !== quiet.txs || keeper.stats.warps !== quiet.warps || keeper.stats.heldBy.length > 0) {
        quiet = { txs, warps: keeper.stats.warps, since: Date.now() };
      } else if (quietFor >= QUIET_MS) {
        log(`${storePlan.store}: nothing moved for ${QUIET_MS / 1000} s; settling stops`);
        break;
      }
      await sleep(2_000);
    }
    const settleMs = Date.now() - settleStarted;
    stopped = true;
    const results = await Promise.race([Promise.all(takers), sleep(20_000).then(() => null)]);
    ticking = false;
    await ticks;

    log(`${storePlan.store}: auditing ${records.length} trades from the chain's ledger`);
    const auditStarted = Date.now();
    const verdict = await audit({
      world,
      records,
      takers: results ?? finished,
      client: new ServiceClient(world, seededRandom(plan.seed, 'audit'), http, 20_000),
      overdue: keeper.stats.overdue,
      startedAt,
    });
    if (verdict.problems.length > 0) keep = true;
    return {
      store: storePlan.store,
      instances: storePlan.instances,
      takers: results ?? finished,
      records,
      chaos: chaosRecord,
      faults: world.proxy.control.stats(),
      clock: keeper.stats,
      http,
      events: world.events,
      audit: verdict,
      phases: { activeMs, drainMs, settleMs, auditMs: Date.now() - auditStarted },
      startedAt,
      kept: keep ? world.root : null,
    };
  } catch (error) {
    keep = true;
    throw error;
  } finally {
    await world.close(keep);
  }
}

/**
 * How far settling got: `settled` — every registered escrow settled and every trade the service lists
 * terminal with nothing left to do; `books` — the escrows are all settled on chain but the service still has
 * work (closing a trade waits for its books: the fee of every maker transaction that may have landed);
 * `escrows` — an escrow is still locked (or the service did not answer).
 */
async function settling(
  world: Parameters<typeof escrowAt>[0],
  records: readonly TradeRecord[],
  client: ServiceClient,
): Promise<'settled' | 'books' | 'escrows'> {
  for (const record of records) {
    if (escrowAt(world, record.takerEscrow)?.status === 'locked') return 'escrows';
    if (escrowAt(world, record.makerEscrow)?.status === 'locked') return 'escrows';
  }
  try {
    let cursor: string | null = null;
    do {
      const answer = await client.call(
        'GET',
        `/v1/trades?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      if (answer.status !== 200) return 'escrows';
      for (const trade of answer.json.trades) if (trade.next_action) return 'books';
      cursor = answer.json.next_cursor;
    } while (cursor);
    return 'settled';
  } catch {
    return 'escrows';
  }
}

/** Polls each instance's readiness until 200 (the chain reachable at start), for up to 60 s. */
async function untilReady(urls: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (const url of urls) {
    for (;;) {
      try {
        const res = await fetch(`${url}/v1/health/ready`, { signal: AbortSignal.timeout(5_000) });
        const text = await res.text();
        if (res.status === 200) break;
        if (Date.now() > deadline) throw new Error(`${url} not ready: ${text.slice(0, 300)}`);
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
      await sleep(500);
    }
  }
}
