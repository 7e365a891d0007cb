// Row 4: what a pending trade costs at rest, and a restart with N of them. RSS (VmRSS) of the service
// idle after a warm-up, then after N/2 and N pending trades (an RFQ and a settlement start each, a fresh
// wallet each), each sample taken as the OS sees it and again after a full collection forced through the
// inspector (what the service retains: at a few thousand trades V8's uncollected garbage outweighs the
// trades); then kill -9 and the time from spawn to /v1/health and to /v1/health/ready on the same
// DATA_DIR, against a start on an empty DATA_DIR measured in the same run.

import { writeBenchConfig } from '../config.ts';
import { type BenchContext, CONNECTIONS, type Row } from '../context.ts';
import { Inspector } from '../inspector.ts';
import { expectJson, HttpClient, percentile, repeat, sleep } from '../load.ts';
import { at, type Line, ms, num, ratio } from '../report.ts';
import { type ServiceProcess, type StartTimes, startServiceProcess } from '../service.ts';
import { pendingTrade, type TradeView } from '../taker.ts';

const TARGET_KB = 6;
const TARGET_READY_MS = 2_000;
const WARM_UP_TRADES = 200;

/** RSS in kB as the OS sees it, and after a full collection. */
interface RssSample {
  asIs: number;
  retained: number;
}

/** Median of a few samples a short while apart. */
async function medianRss(service: ServiceProcess): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(service.rssKb());
    await sleep(200);
  }
  return percentile(
    samples.sort((a, b) => a - b),
    0.5,
  );
}

/** After letting the process settle: RSS as it is, then after a forced full collection. */
async function settledRss(
  service: ServiceProcess,
  inspector: Inspector,
  settleMs: number,
): Promise<RssSample> {
  await sleep(settleMs);
  const asIs = await medianRss(service);
  await inspector.collectGarbage();
  return { asIs, retained: await medianRss(service) };
}

async function run(ctx: BenchContext): Promise<Line[]> {
  const dataDir = ctx.dir('memory');
  const configPath = writeBenchConfig(dataDir);
  const load = await loadPendingTrades(ctx.trades, dataDir, configPath);
  // The baseline: the same process starting on an empty DATA_DIR (module loading, store, chain genesis).
  const empty = await startServiceProcess({ dataDir: ctx.dir('memory-empty'), configPath });
  await empty.kill9();
  const restart = await restartWithPending(ctx.trades, dataDir, configPath, load.ids);
  return memoryLines(ctx.trades, load, empty.started, restart);
}

/** RSS idle, at N/2 and at N pending trades, and when each trade was made. */
interface PendingLoad {
  idle: RssSample;
  half: RssSample;
  loaded: RssSample;
  /** Seconds spent making the N. */
  createdIn: number;
  ids: string[];
  /** When each of the N was made (performance.now()), to compare the rate at the start and at the end. */
  madeAt: number[];
}

/** Makes N pending trades after a warm-up, sampling RSS idle and after each half; then kill -9. */
async function loadPendingTrades(n: number, dataDir: string, configPath: string): Promise<PendingLoad> {
  const service = await startServiceProcess({ dataDir, configPath, inspect: true });
  const client = new HttpClient(service.url, CONNECTIONS);
  let inspector: Inspector | null = null;
  const ids: string[] = [];
  const madeAt: number[] = [];
  const makeOne = async () => {
    ids.push(await pendingTrade(client));
    madeAt.push(performance.now());
  };
  try {
    await repeat(WARM_UP_TRADES, CONNECTIONS, async () => {
      await pendingTrade(client);
    });
    inspector = await Inspector.connect(service.inspectPort as number);
    const idle = await settledRss(service, inspector, 2_000);
    // Two halves: the second shows what one more pending trade costs, apart from the one-time growth of
    // the heap and the store's page cache that any load brings (which dominates a small N).
    const firstHalf = Math.floor(n / 2);
    let createdIn = await repeat(firstHalf, CONNECTIONS, makeOne);
    const half = await settledRss(service, inspector, 3_000);
    createdIn += await repeat(n - firstHalf, CONNECTIONS, makeOne);
    const loaded = await settledRss(service, inspector, 3_000);
    return { idle, half, loaded, createdIn, ids, madeAt };
  } finally {
    inspector?.close();
    client.close();
    await service.kill9();
  }
}

/** Restarts on the DATA_DIR the N were left in and reads one of them back. */
async function restartWithPending(
  n: number,
  dataDir: string,
  configPath: string,
  ids: string[],
): Promise<{ started: StartTimes; sample: TradeView }> {
  const restarted = await startServiceProcess({ dataDir, configPath, timeoutMs: 60_000 + n * 5 });
  try {
    const probe = new HttpClient(restarted.url, 1);
    const sample = expectJson<TradeView>(
      await probe.get(`/v1/trades/${ids[Math.floor(ids.length / 2)]}`),
      200,
      'trade',
    );
    probe.close();
    return { started: restarted.started, sample };
  } finally {
    await restarted.kill9();
  }
}

function memoryLines(
  n: number,
  { idle, half, loaded, createdIn, madeAt }: PendingLoad,
  empty: StartTimes,
  restarted: { started: StartTimes; sample: TradeView },
): Line[] {
  const { sample } = restarted;
  const secondHalf = n - Math.floor(n / 2);
  const perTradeKb = (loaded.retained - half.retained) / secondHalf;
  const averageKb = (loaded.retained - idle.retained) / n;
  const asIsKb = (loaded.asIs - half.asIs) / secondHalf;
  const mb = (sample: RssSample, key: keyof RssSample) => num(sample[key] / 1024);
  const share = empty.healthMs / restarted.started.healthMs;
  // Made at the start (the first tenth of the first half) and at the end (the last tenth of the second):
  // whether what is already pending makes a new trade dearer.
  const tenth = Math.max(2, Math.floor(n / 20));
  const rateOf = (times: number[]) =>
    (times.length - 1) / (((times.at(-1) as number) - (times[0] as number)) / 1000);
  const early = rateOf(madeAt.slice(0, tenth));
  const late = rateOf(madeAt.slice(-tenth));
  return [
    {
      row: '4',
      what: `RSS idle → ${num(Math.floor(n / 2))} → ${num(n)} pending trades, after a full GC`,
      figure: `${mb(idle, 'retained')} → ${mb(half, 'retained')} → ${mb(loaded, 'retained')} MB (made at ${num(n / createdIn)}/s)`,
    },
    {
      row: '4',
      what: `pending trades made (RFQ + settlement start), ${num(WARM_UP_TRADES)} vs ${num(n + WARM_UP_TRADES - tenth)} already pending`,
      figure: `${num(early)}/s vs ${num(late)}/s (${ratio(late / early)}, over ${num(tenth)} trades each)`,
    },
    {
      row: '4',
      what: 'the same before the GC, as the OS saw it',
      figure: `${mb(idle, 'asIs')} → ${mb(half, 'asIs')} → ${mb(loaded, 'asIs')} MB (second half: ${num(asIsKb, 1)} KB per trade)`,
    },
    {
      row: '4',
      what: 'RSS per pending trade (second half, after a full GC)',
      figure: `${num(perTradeKb, 1)} KB (over all ${num(n)}, with the one-time growth: ${num(averageKb, 1)} KB)`,
      target: at('≤', TARGET_KB, perTradeKb, `${TARGET_KB} KB`),
    },
    {
      row: '4',
      what: `restart after kill -9, ${num(n)} pending: spawn → ready`,
      figure: `${ms(restarted.started.readyMs)} (a sampled trade then: ${sample.settlement_status})`,
      target: at('≤', TARGET_READY_MS, restarted.started.readyMs, `${num(TARGET_READY_MS)} ms (at 100,000)`),
      // Ready must mean the trades are back: one of them is read after the restart.
      ...(sample.settlement_status === 'pending' ? {} : { failed: true }),
    },
    {
      row: '4',
      what: 'restart: spawn → first /v1/health 200',
      figure: `${ms(restarted.started.healthMs)}, of which process/module start ≈ ${Math.round(share * 100)} %`,
    },
    {
      row: '4',
      what: 'baseline: empty DATA_DIR, spawn → health / ready',
      figure: `${ms(empty.healthMs)} / ${ms(empty.readyMs)}`,
    },
  ];
}

export const memoryRow: Row = { id: '4', title: 'memory per pending trade and restart', run };
