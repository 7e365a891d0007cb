// `npm run bench`: the service measured from outside, in its own process on one core, with the load
// generator (this process) on the other, each figure against a baseline measured in the same run on this
// machine. Prints a table and exits non-zero when a figure misses its target: targets are never lowered to pass.
// Env: BENCH_SECONDS (each timed window, default 5), BENCH_TRADES (pending trades of rows 4 and 5,
// default 2,000; 100,000 on demand), BENCH_ROWS (a comma list of rows to run, default all),
// BENCH_KEEP=1 (keep the scratch folder); row 8's BENCH_SLOT_MS and BENCH_SWAPS (bench/rows/time-to-swap.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildService } from '../scripts/build-service.ts';
import { benchContext, type Row } from './context.ts';
import { prepareMachine } from './machine.ts';
import { failedLines, type Line, num, renderTable } from './report.ts';
import { chainCallsRow } from './rows/chain-calls.ts';
import { memoryRow } from './rows/memory.ts';
import { optionTermRow } from './rows/option-term.ts';
import { rfqRow } from './rows/rfq.ts';
import { settlementRow } from './rows/settlement.ts';
import { swapsRow } from './rows/swaps.ts';
import { takerReviewRow } from './rows/taker-review.ts';
import { timeToSwapRow } from './rows/time-to-swap.ts';

const ROWS: Row[] = [
  rfqRow,
  settlementRow,
  swapsRow,
  memoryRow,
  chainCallsRow,
  optionTermRow,
  takerReviewRow,
  timeToSwapRow,
];

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

const seconds = positive('BENCH_SECONDS', 5);
const trades = Math.round(positive('BENCH_TRADES', 2_000));
const wanted = (process.env.BENCH_ROWS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = wanted.filter((id) => !ROWS.some((r) => r.id === id));
if (unknown.length > 0)
  throw new Error(`BENCH_ROWS: no row ${unknown.join(', ')} (rows are ${ROWS.map((r) => r.id).join(', ')})`);
const rows = wanted.length > 0 ? ROWS.filter((r) => wanted.includes(r.id)) : ROWS;

// The service runs as `npm start` runs it: from the bundle, built now from the sources.
await buildService();
const machine = prepareMachine();
const work = mkdtempSync(join(tmpdir(), 'rfq-bench-'));
const notes: string[] = [];
const ctx = benchContext({ seconds, trades, work, notes });
const say = (text: string) => process.stdout.write(`${text}\n`);

say(
  `machine: ${machine.cpu}, ${machine.cores} cores, node ${machine.node}, load average ${num(machine.load, 2)}`,
);
say(
  `pinning: ${machine.pinning ?? 'NONE (taskset missing or fewer than 2 cores): service and load share the cores'}`,
);
say(
  `settings: BENCH_SECONDS=${seconds}, BENCH_TRADES=${num(trades)}, rows ${rows.map((r) => r.id).join(',')}`,
);

const lines: Line[] = [];
for (const row of rows) {
  const started = performance.now();
  say(`\nrow ${row.id}: ${row.title} …`);
  try {
    const got = await row.run(ctx);
    lines.push(...got);
    for (const line of got) say(`  ${line.what}: ${line.figure}`);
  } catch (error) {
    const message = (error as Error).stack ?? String(error);
    lines.push({
      row: row.id,
      what: row.title,
      figure: `could not be measured: ${(error as Error).message.split('\n')[0]}`,
      failed: true,
    });
    say(`  failed: ${message}`);
  }
  say(`  (${num((performance.now() - started) / 1000, 1)} s)`);
}

say(`\n${renderTable(lines)}\n`);
say(
  'The service runs as `npm start` does (`node dist/main.mjs`, bundled from src/ first) with LOG_LEVEL=warn and a bench config (rate and per-wallet',
);
say(
  'limits raised, quotes up to 300 s, lock window 3,600 s); 10 keep-alive connections unless a row says otherwise.',
);
for (const note of notes) say(`- ${note}`);
if (process.env.BENCH_KEEP === '1') say(`scratch folder kept: ${work}`);
else rmSync(work, { recursive: true, force: true });

const failed = failedLines(lines);
say(failed.length === 0 ? '\nevery target met' : `\n${failed.length} figure(s) below target or not measured`);
process.exit(failed.length === 0 ? 0 : 1);
