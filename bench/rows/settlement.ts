// Row 2: settlement start (POST /v1/quotes/{id}/wallet-settlement, a fresh secret_hash each) on quotes made
// beforehand, outside the window, against plain web3.js building and serializing an unsigned
// one-instruction transaction with 5 accounts, run as its own process on the server's core while the
// service is not running.
import { randomBytes } from 'node:crypto';
import { writeBenchConfig } from '../config.ts';
import { type BenchContext, CONNECTIONS, type Row } from '../context.ts';
import { closedLoop, HttpClient, repeat } from '../load.ts';
import { runPinned } from '../process.ts';
import { at, type Line, ms, num, ratio } from '../report.ts';
import { commitNote, startServiceProcess } from '../service.ts';
import { freshAddress, pendingTrade, quote } from '../taker.ts';

const TARGET_RATE = 2_000;
const TARGET_P99_MS = 20;
const TARGET_RATIO = 1;
/** Quotes made before the window: enough for 1.5× the target rate over the whole window. */
const poolSize = (seconds: number) => Math.ceil(TARGET_RATE * 1.5 * seconds);

async function run(ctx: BenchContext): Promise<Line[]> {
  // Alone on the server's core, half before the service starts and half after it stops (ABA), so that
  // what else the shared machine does meanwhile falls on both alike.
  const web3Half = () =>
    runPinned<{ count: number; seconds: number }>('bench/children/web3-build.ts', [String(ctx.seconds / 2)]);
  const before = await web3Half();

  const dataDir = ctx.dir('settlement');
  const service = await startServiceProcess({ dataDir, configPath: writeBenchConfig(dataDir) });
  const client = new HttpClient(service.url, CONNECTIONS);
  try {
    await repeat(300, CONNECTIONS, async () => {
      await pendingTrade(client);
    });
    const pool: { quoteId: string; wallet: string }[] = [];
    const size = poolSize(ctx.seconds);
    const madeIn = await repeat(size, CONNECTIONS, async () => {
      const wallet = freshAddress();
      pool.push({ quoteId: await quote(client, wallet), wallet });
    });
    ctx.note(`row 2: ${num(size)} quotes made before the window in ${num(madeIn, 1)} s (quotes live 300 s)`);
    const commits = await service.commits();
    const result = await closedLoop({
      workers: CONNECTIONS,
      seconds: ctx.seconds,
      step: async () => {
        const next = pool.pop();
        if (!next) return false;
        const answer = await client.post(`/v1/quotes/${next.quoteId}/wallet-settlement`, {
          taker_wallet: next.wallet,
          secret_hash: randomBytes(32).toString('hex'),
        });
        if (answer.status !== 201)
          throw new Error(`wallet-settlement: ${answer.status} ${answer.body.slice(0, 200)}`);
        return true;
      },
    });
    ctx.note(commitNote('row 2', commits, await service.commits(), result.seconds));
    await service.stop();
    const after = await web3Half();
    const web3 = { perSecond: (before.count + after.count) / (before.seconds + after.seconds) };
    const exhausted =
      result.seconds < ctx.seconds - 0.01 ? ` (quotes ran out after ${num(result.seconds, 1)} s)` : '';
    const errors = result.errors > 0 ? ` (${result.errors} errors: ${result.firstError})` : '';
    const r = result.perSecond / web3.perSecond;
    return [
      {
        row: '2',
        what: 'baseline: web3.js build + serialize, unsigned, 1 ix, 5 accounts',
        figure: `${num(web3.perSecond)}/s (${num(before.count / before.seconds)}/s before the service, ${num(after.count / after.seconds)}/s after)`,
      },
      {
        row: '2',
        what: 'settlement start: rate',
        figure: `${num(result.perSecond)}/s, ${num(result.count)} in ${num(result.seconds, 1)} s${exhausted}${errors}`,
        target: at('≥', TARGET_RATE, result.perSecond, `${num(TARGET_RATE)}/s`),
        ...(result.errors > 0 ? { failed: true } : {}),
      },
      {
        row: '2',
        what: 'settlement start: latency',
        figure: `p50 ${ms(result.p50)}, p99 ${ms(result.p99)}, max ${ms(result.max)}`,
        target: at('≤', TARGET_P99_MS, result.p99, `${TARGET_P99_MS} ms p99`),
      },
      {
        row: '2',
        what: 'settlement start / web3.js build',
        figure: ratio(r),
        target: at('≥', TARGET_RATIO, r, ratio(TARGET_RATIO)),
      },
    ];
  } finally {
    client.close();
    await service.stop();
  }
}

export const settlementRow: Row = { id: '2', title: 'settlement start vs web3.js unsigned build', run };
