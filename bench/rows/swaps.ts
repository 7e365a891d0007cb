// Row 3: full swaps on the embedded chain, 16 concurrent takers, against the ceiling: raw litesvm
// executing the same pre-signed transactions. The service is stopped after the airdrops and a warm-up
// and its chain folder copied (the state before the window), then restarted for the window; afterwards
// the transactions the chain recorded since the copy are replayed into a fresh VM from that state.
// The judged window runs with hedging off; a last window, same takers and same chain, runs with hedging on
// and a band narrow enough that the one-sided flow (every taker sells SOL) crosses it over and over, so
// the hedger swaps through the venue while the swaps are timed: what hedging costs the swaps.
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { writeBenchConfig } from '../config.ts';
import type { BenchContext, Row } from '../context.ts';
import { closedLoop, expectJson, HttpClient } from '../load.ts';
import { runPinned } from '../process.ts';
import type { ReplayResult } from '../replay.ts';
import { at, type Line, ms, num, ratio } from '../report.ts';
import { commitNote, startServiceProcess } from '../service.ts';
import { POLL_MS, streaming, swap } from '../taker.ts';

const TAKERS = 16;
const TARGET = 100;
/** Per taker: enough for thousands of 0.05 SOL swaps plus fees and rent. */
const AIRDROP_SOL = '1000';
/** The hedging window's SOL band and clips: crossed every 20 swaps of 0.05 SOL (the target: the balance then). */
const HEDGE_BAND = { band: '1', max_clip: '1', min_clip: '0.1' };

/** The landed hedges a service's /metrics counts so far. */
async function hedgesLanded(client: HttpClient): Promise<number> {
  const text = (await client.get('/metrics')).body;
  return [...text.matchAll(/^rfq_maker_hedges_landed_total\{[^}]*\} (\d+)/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
}

type LoopResult = Awaited<ReturnType<typeof closedLoop>>;

/** Each taker swaps `times` times, the takers at once. */
const everyTaker = (client: HttpClient, wallets: Keypair[], times: number) =>
  Promise.all(
    wallets.map(async (wallet) => {
      for (let i = 0; i < times; i++) await swap(client, wallet);
    }),
  );

async function run(ctx: BenchContext): Promise<Line[]> {
  const dataDir = ctx.dir('swaps');
  // The judged windows swap with hedging off (the hedging window turns it on).
  const configPath = writeBenchConfig(dataDir, 'bench-config.json', (doc) => {
    (doc.hedging as Record<string, unknown>).enabled = false;
  });
  const wallets = Array.from({ length: TAKERS }, () => Keypair.generate());
  const beforeDir = await fundAndWarm(ctx, dataDir, configPath, wallets);
  const windows = await judgedWindows(ctx, dataDir, configPath, wallets);
  const inWindow = windows.counted.filter((c) => c.doneAt <= windows.result.endedAt);
  const replay = await replayWindow(ctx, dataDir, beforeDir, inWindow);
  // After the replay, which reads the chain as the judged windows left it.
  const hedging = await hedgingWindow(ctx, dataDir, wallets, windows.solNow);
  ctx.note(
    `row 3: the ceiling is the median of three replays; each taker polls GET /v1/trades/{id} every ${POLL_MS} ms until the maker's lock is there (next action: redeem), then until redeemed; airdrops (${AIRDROP_SOL} SOL each) and warm-up swaps happen before the window`,
  );
  return swapsLines(windows, inWindow.length, replay, hedging);
}

/** Airdrops to every taker and a first warm-up; answers a copy of the chain as it stands before the window. */
async function fundAndWarm(
  ctx: BenchContext,
  dataDir: string,
  configPath: string,
  wallets: Keypair[],
): Promise<string> {
  const service = await startServiceProcess({ dataDir, configPath });
  const client = new HttpClient(service.url, TAKERS);
  try {
    for (const wallet of wallets) {
      const body = { wallet: wallet.publicKey.toBase58(), asset: 'SOL', amount: AIRDROP_SOL };
      expectJson(await client.post('/v1/dev/airdrop', body), 200, 'airdrop');
    }
    await everyTaker(client, wallets, 2);
  } finally {
    client.close();
    await service.stop();
  }
  const beforeDir = ctx.dir('swaps-chain-before');
  cpSync(join(dataDir, 'chain'), beforeDir, { recursive: true });
  return beforeDir;
}

interface JudgedWindows {
  /** The judged window: every swap it finished, with when and the transactions it landed. */
  result: LoopResult;
  counted: { doneAt: number; signatures: string[] }[];
  /** The informative window following each trade over its stream. */
  streamed: LoopResult;
  /** The maker's SOL after both: the hedging window's target. */
  solNow: string | null;
}

/** The window, after two more swaps per taker warm the restarted process (replayed, not timed). */
async function judgedWindows(
  ctx: BenchContext,
  dataDir: string,
  configPath: string,
  wallets: Keypair[],
): Promise<JudgedWindows> {
  const service = await startServiceProcess({ dataDir, configPath });
  const client = new HttpClient(service.url, TAKERS);
  const counted: { doneAt: number; signatures: string[] }[] = [];
  try {
    await everyTaker(client, wallets, 2);
    const commits = await service.commits();
    const result = await closedLoop({
      workers: TAKERS,
      seconds: ctx.seconds,
      maxErrors: 20,
      step: async (worker) => {
        const { signatures } = await swap(client, wallets[worker] as Keypair);
        counted.push({ doneAt: performance.now(), signatures });
      },
    });
    ctx.note(commitNote('row 3', commits, await service.commits(), result.seconds));
    // Informative, after the judged window: the same takers following each trade over its stream, as the
    // swap page does, instead of polling it (not replayed: the ceiling is the judged window's).
    const streamed = await closedLoop({
      workers: TAKERS,
      seconds: ctx.seconds,
      maxErrors: 20,
      step: (worker) => swap(client, wallets[worker] as Keypair, streaming(service.url)),
    });
    const runtime = expectJson<{ balances: { asset: string; amount: string | null }[] }>(
      await client.get('/v1/runtime'),
      200,
      'runtime',
    );
    const solNow = runtime.balances.find((b) => b.asset === 'SOL')?.amount ?? null;
    return { result, counted, streamed, solNow };
  } finally {
    client.close();
    await service.stop();
  }
}

/** The ceiling: the judged window's transactions replayed into a fresh VM from the chain before it. */
async function replayWindow(
  ctx: BenchContext,
  dataDir: string,
  beforeDir: string,
  inWindow: { signatures: string[] }[],
): Promise<ReplayResult> {
  const inputFile = join(ctx.dir('swaps-replay'), 'input.json');
  const timed = inWindow.flatMap((c) => c.signatures);
  writeFileSync(inputFile, JSON.stringify({ beforeDir, afterDir: join(dataDir, 'chain'), timed }));
  return runPinned<ReplayResult>('bench/children/replay.ts', [inputFile]);
}

function swapsLines(
  { result, streamed }: JudgedWindows,
  swaps: number,
  replay: ReplayResult,
  hedging: { result: LoopResult; hedges: number },
): Line[] {
  const swapsPerSecond = swaps / result.seconds;
  const ceiling = swaps / replay.timedSeconds;
  const errors = result.errors > 0 ? ` (${result.errors} errors: ${result.firstError})` : '';
  const replayProblems = replay.mismatches + replay.missing;
  return [
    {
      row: '3',
      what: `swaps/s, ${TAKERS} takers, embedded chain`,
      figure: `${num(swapsPerSecond, 1)}/s, ${swaps} swaps in ${num(result.seconds, 1)} s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}${errors}`,
      target: at('≥', TARGET, swapsPerSecond, `${TARGET}/s`),
      ...(result.errors > 0 ? { failed: true } : {}),
    },
    {
      row: '3',
      what: 'ceiling: raw litesvm, same pre-signed txs',
      figure: `${num(ceiling, 0)} swaps/s (${replay.timedTransactions} txs in ${ms(replay.timedSeconds * 1000)})`,
      ...(replay.timedTransactions === 0 ? { failed: true } : {}),
    },
    { row: '3', what: 'service / ceiling', figure: ratio(swapsPerSecond / ceiling) },
    {
      row: '3',
      what: `swaps/s, ${TAKERS} takers following the trade stream (not judged)`,
      figure:
        `${num(streamed.perSecond, 1)}/s, p50 ${ms(streamed.p50)}, p99 ${ms(streamed.p99)}` +
        (streamed.errors > 0 ? ` (${streamed.errors} errors: ${streamed.firstError})` : ''),
    },
    {
      row: '3',
      what: `swaps/s with hedging on vs off, ${TAKERS} takers, same run`,
      figure:
        `on ${num(hedging.result.perSecond, 1)}/s (p50 ${ms(hedging.result.p50)}, p99 ${ms(hedging.result.p99)}, ` +
        `${hedging.hedges} hedges landed in ${num(hedging.result.seconds, 1)} s) vs off ${num(swapsPerSecond, 1)}/s: ` +
        ratio(hedging.result.perSecond / swapsPerSecond) +
        (hedging.result.errors > 0 ? ` (${hedging.result.errors} errors: ${hedging.result.firstError})` : ''),
      ...(hedging.hedges === 0 || hedging.result.errors > 0 ? { failed: true } : {}),
    },
    {
      row: '3',
      what: 'replay outcomes differing from the record',
      figure:
        `${replay.mismatches} of ${replay.replayed} replayed, ${replay.missing} timed txs missing` +
        (replay.mismatchExamples.length ? ` (${replay.mismatchExamples.join('; ')})` : ''),
      target: at('≤', 0, replayProblems, '0'),
    },
  ];
}

/**
 * The same takers on the same chain with hedging on: SOL's target is its balance now and its band 1 SOL, so
 * the one-sided flow leaves the band every 20 swaps and the hedger sells SOL back through the venue while
 * the window is timed. Answers the window and the hedges that landed in it.
 */
async function hedgingWindow(
  ctx: BenchContext,
  dataDir: string,
  wallets: Keypair[],
  solNow: string | null,
): Promise<{ result: LoopResult; hedges: number }> {
  if (solNow === null) throw new Error('the maker’s SOL balance could not be read');
  const configPath = writeBenchConfig(dataDir, 'bench-config-hedging.json', (doc) => {
    const hedging = doc.hedging as { assets: Record<string, unknown>; retry_seconds?: number };
    hedging.assets.SOL = { target: solNow, ...HEDGE_BAND };
    hedging.retry_seconds = 1;
  });
  const service = await startServiceProcess({ dataDir, configPath });
  const client = new HttpClient(service.url, TAKERS);
  try {
    // Warm the restarted process as the judged window's was.
    await Promise.all(wallets.map(async (wallet) => swap(client, wallet)));
    const before = await hedgesLanded(client);
    const result = await closedLoop({
      workers: TAKERS,
      seconds: ctx.seconds,
      maxErrors: 20,
      step: (worker) => swap(client, wallets[worker] as Keypair),
    });
    const hedges = (await hedgesLanded(client)) - before;
    ctx.note(
      `row 3, hedging on: SOL target = its balance after the judged windows, band ${HEDGE_BAND.band} SOL, clips ${HEDGE_BAND.min_clip}–${HEDGE_BAND.max_clip} SOL, through the embedded venue (its keeper at work); hedges counted by rfq_maker_hedges_landed_total over the window`,
    );
    return { result, hedges };
  } finally {
    client.close();
    await service.stop();
  }
}

export const swapsRow: Row = { id: '3', title: 'full swaps vs raw litesvm', run };
