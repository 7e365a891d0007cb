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

/**
 * One server under load: every answer must be a 200 whose body passes `accepted`. With `cpu` (the server's CPU
 * seconds so far), the CPU it spent within the measured slices is summed too.
 */
export function target(
  url: string,
  path: string,
  accepted: (body: string) => boolean,
  cpu: () => number | null = () => null,
) {
  const client = new HttpClient(url, CONNECTIONS);
  const wallets = Array.from({ length: 1_000 }, freshAddress);
  let n = 0;
  let bytes = 0;
  const slices: LoadResult[] = [];
  let cpuSeconds: number | null = 0;
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
      const before = cpu();
      slices.push(await closedLoop({ workers: CONNECTIONS, seconds, step }));
      const after = cpu();
      cpuSeconds =
        cpuSeconds === null || before === null || after === null ? null : cpuSeconds + after - before;
    },
    result: () => ({ result: combine(slices), bytes, cpuSeconds }),
    close: () => client.close(),
  };
}

/**
 * The service's CPU per request in its slices: what the code costs, apart from the commits' fsync waits (off
 * the CPU) that make up much of a window on a slow disk and move its req/s with the disk's latency.
 */
export function cpuNote(what: string, cpuSeconds: number | null, r: LoadResult): string {
  if (cpuSeconds === null || r.count === 0) return `${what}: the service's CPU time is not readable here`;
  const share = Math.round((cpuSeconds / r.seconds) * 100);
  return `${what}: the service used ${((cpuSeconds / r.count) * 1e6).toFixed(0)} µs of CPU per request (${share} % of a core over its slices)`;
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
    const b = target(
      service.url,
      '/v1/rfq',
      (body) => body.includes('"status":"accepted"'),
      service.cpuSeconds,
    );
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
      ctx.note(cpuNote('row 1', rfq.cpuSeconds, rfq.result));
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
