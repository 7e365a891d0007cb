// Row 3: full swaps on the embedded chain, 16 concurrent takers, against the ceiling: raw litesvm
// executing the same pre-signed transactions. The service is stopped after the airdrops and a warm-up
// and its chain folder copied (the state before the window), then restarted for the window; afterwards
// the transactions the chain recorded since the copy are replayed into a fresh VM from that state.
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

async function run(ctx: BenchContext): Promise<Line[]> {
  const dataDir = ctx.dir('swaps');
  const configPath = writeBenchConfig(dataDir);
  const wallets = Array.from({ length: TAKERS }, () => Keypair.generate());
  const everyTaker = (client: HttpClient, times: number) =>
    Promise.all(
      wallets.map(async (wallet) => {
        for (let i = 0; i < times; i++) await swap(client, wallet);
      }),
    );

  // Funding and a first warm-up, then the chain state before the window.
  let service = await startServiceProcess({ dataDir, configPath });
  let client = new HttpClient(service.url, TAKERS);
  try {
    for (const wallet of wallets) {
      const body = { wallet: wallet.publicKey.toBase58(), asset: 'SOL', amount: AIRDROP_SOL };
      expectJson(await client.post('/v1/dev/airdrop', body), 200, 'airdrop');
    }
    await everyTaker(client, 2);
  } finally {
    client.close();
    await service.stop();
  }
  const beforeDir = ctx.dir('swaps-chain-before');
  cpSync(join(dataDir, 'chain'), beforeDir, { recursive: true });

  // The window, after two more swaps per taker warm the restarted process (replayed, not timed).
  service = await startServiceProcess({ dataDir, configPath });
  client = new HttpClient(service.url, TAKERS);
  const counted: { doneAt: number; signatures: string[] }[] = [];
  let result: Awaited<ReturnType<typeof closedLoop>>;
  let streamed: Awaited<ReturnType<typeof closedLoop>>;
  try {
    await everyTaker(client, 2);
    const commits = await service.commits();
    result = await closedLoop({
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
    streamed = await closedLoop({
      workers: TAKERS,
      seconds: ctx.seconds,
      maxErrors: 20,
      step: (worker) => swap(client, wallets[worker] as Keypair, streaming(service.url)),
    });
  } finally {
    client.close();
    await service.stop();
  }
  const inWindow = counted.filter((c) => c.doneAt <= result.endedAt);
  const swapsPerSecond = inWindow.length / result.seconds;

  const inputFile = join(ctx.dir('swaps-replay'), 'input.json');
  const timed = inWindow.flatMap((c) => c.signatures);
  writeFileSync(inputFile, JSON.stringify({ beforeDir, afterDir: join(dataDir, 'chain'), timed }));
  const replay = await runPinned<ReplayResult>('bench/children/replay.ts', [inputFile]);
  const ceiling = inWindow.length / replay.timedSeconds;
  ctx.note(
    `row 3: the ceiling is the median of three replays; each taker polls GET /v1/trades/{id} every ${POLL_MS} ms until the maker's lock is there (next action: redeem), then until redeemed; airdrops (${AIRDROP_SOL} SOL each) and warm-up swaps happen before the window`,
  );

  const errors = result.errors > 0 ? ` (${result.errors} errors: ${result.firstError})` : '';
  const replayProblems = replay.mismatches + replay.missing;
  return [
    {
      row: '3',
      what: `swaps/s, ${TAKERS} takers, embedded chain`,
      figure: `${num(swapsPerSecond, 1)}/s, ${inWindow.length} swaps in ${num(result.seconds, 1)} s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}${errors}`,
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
      what: 'replay outcomes differing from the record',
      figure:
        `${replay.mismatches} of ${replay.replayed} replayed, ${replay.missing} timed txs missing` +
        (replay.mismatchExamples.length ? ` (${replay.mismatchExamples.join('; ')})` : ''),
      target: at('≤', 0, replayProblems, '0'),
    },
  ];
}

export const swapsRow: Row = { id: '3', title: 'full swaps vs raw litesvm', run };
