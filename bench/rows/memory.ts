// Row 4: what a pending trade costs at rest, and a restart with N of them. RSS (VmRSS) of the service
// idle after a warm-up, then after N pending trades (an RFQ and a settlement start each, a fresh wallet
// each); then kill -9 and the time from spawn to /v1/health and to /v1/health/ready on the same
// DATA_DIR, against a start on an empty DATA_DIR measured in the same run.

import { writeBenchConfig } from '../config.ts';
import { type BenchContext, CONNECTIONS, type Row } from '../context.ts';
import { expectJson, HttpClient, percentile, repeat, sleep } from '../load.ts';
import { at, type Line, ms, num } from '../report.ts';
import { type ServiceProcess, startServiceProcess } from '../service.ts';
import { pendingTrade, type TradeView } from '../taker.ts';

const TARGET_KB = 6;
const TARGET_READY_MS = 2_000;
const WARM_UP_TRADES = 200;

/** Median of a few samples a short while apart, after letting the process settle. */
async function settledRss(service: ServiceProcess, settleMs: number): Promise<number> {
  await sleep(settleMs);
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

async function run(ctx: BenchContext): Promise<Line[]> {
  const n = ctx.trades;
  const dataDir = ctx.dir('memory');
  const configPath = writeBenchConfig(dataDir);
  const service = await startServiceProcess({ dataDir, configPath });
  const client = new HttpClient(service.url, CONNECTIONS);
  let idleKb: number;
  let halfKb: number;
  let loadedKb: number;
  let createdIn: number;
  const ids: string[] = [];
  try {
    await repeat(WARM_UP_TRADES, CONNECTIONS, async () => {
      await pendingTrade(client);
    });
    idleKb = await settledRss(service, 2_000);
    // Two halves: the second shows what one more pending trade costs, apart from the one-time growth of
    // the heap and the store's page cache that any load brings (which dominates a small N).
    const firstHalf = Math.floor(n / 2);
    createdIn = await repeat(firstHalf, CONNECTIONS, async () => {
      ids.push(await pendingTrade(client));
    });
    halfKb = await settledRss(service, 3_000);
    createdIn += await repeat(n - firstHalf, CONNECTIONS, async () => {
      ids.push(await pendingTrade(client));
    });
    loadedKb = await settledRss(service, 3_000);
  } finally {
    client.close();
    await service.kill9();
  }

  // The baseline: the same process starting on an empty DATA_DIR (module loading, store, chain genesis).
  const empty = await startServiceProcess({ dataDir: ctx.dir('memory-empty'), configPath });
  await empty.kill9();

  const restarted = await startServiceProcess({ dataDir, configPath, timeoutMs: 60_000 + n * 5 });
  let sample: TradeView;
  try {
    const probe = new HttpClient(restarted.url, 1);
    sample = expectJson<TradeView>(
      await probe.get(`/v1/trades/${ids[Math.floor(ids.length / 2)]}`),
      200,
      'trade',
    );
    probe.close();
  } finally {
    await restarted.kill9();
  }

  const perTradeKb = (loadedKb - halfKb) / (n - Math.floor(n / 2));
  const averageKb = (loadedKb - idleKb) / n;
  const share = empty.started.healthMs / restarted.started.healthMs;
  return [
    {
      row: '4',
      what: `RSS idle → ${num(Math.floor(n / 2))} → ${num(n)} pending trades`,
      figure: `${num(idleKb / 1024)} → ${num(halfKb / 1024)} → ${num(loadedKb / 1024)} MB (made at ${num(n / createdIn)}/s)`,
    },
    {
      row: '4',
      what: 'RSS per pending trade (second half)',
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
      figure: `${ms(empty.started.healthMs)} / ${ms(empty.started.readyMs)}`,
    },
  ];
}

export const memoryRow: Row = { id: '4', title: 'memory per pending trade and restart', run };
