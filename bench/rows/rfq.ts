// Row 1: POST /v1/rfq against a bare validated Fastify POST of the same body shape and a ~1 KB answer,
// each served by its own process on the server's core, 10 keep-alive connections, closed loop. Both
// stay up and are measured in alternating one-second slices (ABBA), so that whatever else the shared
// machine does meanwhile falls on both alike.
import { writeBenchConfig } from '../config.ts';
import { type BenchContext, CONNECTIONS, type Row } from '../context.ts';
import { closedLoop, combine, HttpClient, type LoadResult } from '../load.ts';
import { spawnPinned, waitForLine } from '../process.ts';
import { at, type Line, ms, num, ratio } from '../report.ts';
import { commitNote, startServiceProcess } from '../service.ts';
import { freshAddress, rfqBody } from '../taker.ts';

const TARGET = 0.5;

/** One server under load: every answer must be a 200 whose body passes `accepted`. */
export function target(url: string, path: string, accepted: (body: string) => boolean) {
  const client = new HttpClient(url, CONNECTIONS);
  const wallets = Array.from({ length: 1_000 }, freshAddress);
  let n = 0;
  let bytes = 0;
  const slices: LoadResult[] = [];
  const step = async () => {
    // Quotes asked for 5 s: what piles up during the window stays bounded whatever the rate.
    const answer = await client.post(path, rfqBody(wallets[n++ % wallets.length] as string, 5));
    if (answer.status !== 200 || !accepted(answer.body)) {
      throw new Error(`${path}: ${answer.status} ${answer.body.slice(0, 200)}`);
    }
    bytes = answer.body.length;
  };
  return {
    warm: (seconds: number) => closedLoop({ workers: CONNECTIONS, seconds, step }),
    slice: async (seconds: number) => {
      slices.push(await closedLoop({ workers: CONNECTIONS, seconds, step }));
    },
    result: () => ({ result: combine(slices), bytes }),
    close: () => client.close(),
  };
}

export const figure = (r: LoadResult) => `${num(r.perSecond)} req/s, p50 ${ms(r.p50)}, p99 ${ms(r.p99)}`;
export const errorsOf = (r: LoadResult) => (r.errors > 0 ? ` (${r.errors} errors: ${r.firstError})` : '');

async function run(ctx: BenchContext): Promise<Line[]> {
  const dataDir = ctx.dir('rfq');
  const bare = spawnPinned('bench/children/bare-post.ts');
  const service = await startServiceProcess({ dataDir, configPath: writeBenchConfig(dataDir) }).catch(
    async (error: unknown) => {
      await bare.stop();
      throw error;
    },
  );
  ctx.note(`the service process may run on CPU ${service.cpus} (its Cpus_allowed_list)`);
  let base: ReturnType<ReturnType<typeof target>['result']>;
  let rfq: typeof base;
  try {
    const [, url] = await waitForLine(bare, /listening (\S+)/);
    const a = target(url as string, '/baseline', () => true);
    const b = target(service.url, '/v1/rfq', (body) => body.includes('"status":"accepted"'));
    try {
      await a.warm(Math.min(2, ctx.seconds));
      await b.warm(Math.min(2, ctx.seconds));
      const rounds = Math.max(2, Math.round(ctx.seconds));
      const commits = await service.commits();
      for (let i = 0; i < rounds; i++) {
        const order = i % 2 === 0 ? [a, b] : [b, a];
        for (const side of order) await side.slice(ctx.seconds / rounds);
      }
      ctx.note(commitNote('row 1', commits, await service.commits(), ctx.seconds));
      base = a.result();
      rfq = b.result();
    } finally {
      a.close();
      b.close();
    }
  } finally {
    await bare.stop();
    await service.stop();
  }

  const r = rfq.result.perSecond / base.result.perSecond;
  return [
    {
      row: '1',
      what: `baseline: bare validated POST (${base.bytes} B answer)`,
      figure: figure(base.result) + errorsOf(base.result),
      ...(base.result.errors > 0 ? { failed: true } : {}),
    },
    {
      row: '1',
      what: `POST /v1/rfq (${rfq.bytes} B answer)`,
      figure: figure(rfq.result) + errorsOf(rfq.result),
      ...(rfq.result.errors > 0 ? { failed: true } : {}),
    },
    { row: '1', what: 'RFQ / bare POST', figure: ratio(r), target: at('≥', TARGET, r, ratio(TARGET)) },
  ];
}

export const rfqRow: Row = { id: '1', title: 'POST /v1/rfq vs a bare validated POST', run };
