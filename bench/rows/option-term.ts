// Row 6: what the spread's option term costs an RFQ. Two services from the same bundle and the same bench
// config, priced from the embedded Pyth feeds (so every feed has a volatility to price), one with the term
// (pricing.option.k = 0.4, the default) and one without (k = 0: nothing of it is computed), both pinned to
// the server's core and measured in alternating slices (ABBA, as row 1), so that whatever else the shared
// machine does meanwhile falls on both alike.
import { writeBenchConfig } from '../config.ts';
import type { BenchContext, Row } from '../context.ts';
import { at, type Line, num, ratio } from '../report.ts';
import { startServiceProcess } from '../service.ts';
import { errorsOf, figure, target } from './rfq.ts';

/** The term may cost at most 10 % of the RFQ rate. */
const TARGET = 0.9;

async function run(ctx: BenchContext): Promise<Line[]> {
  const start = async (name: string, k: number) => {
    const dataDir = ctx.dir(name);
    const configPath = writeBenchConfig(dataDir, 'bench-config.json', (doc) => {
      doc.pricing = { ...(doc.pricing as object), option: { k } };
    });
    return startServiceProcess({ dataDir, configPath });
  };
  const on = await start('option-on', 0.4);
  const off = await start('option-off', 0).catch(async (error: unknown) => {
    await on.stop();
    throw error;
  });
  let withTerm: ReturnType<ReturnType<typeof target>['result']>;
  let without: typeof withTerm;
  // Only quotes that price a term count on the "on" side: one without would measure nothing.
  const priced = (body: string) =>
    body.includes('"status":"accepted"') && /"option":\{"window_seconds"/.test(body);
  const plain = (body: string) => body.includes('"status":"accepted"') && body.includes('"option":null');
  try {
    const a = target(on.url, '/v1/rfq', priced);
    const b = target(off.url, '/v1/rfq', plain);
    try {
      await a.warm(Math.min(2, ctx.seconds));
      await b.warm(Math.min(2, ctx.seconds));
      const rounds = Math.max(2, Math.round(ctx.seconds));
      for (let i = 0; i < rounds; i++) {
        const order = i % 2 === 0 ? [a, b] : [b, a];
        for (const side of order) await side.slice(ctx.seconds / rounds);
      }
      withTerm = a.result();
      without = b.result();
    } finally {
      a.close();
      b.close();
    }
  } finally {
    await on.stop();
    await off.stop();
  }

  const r = withTerm.result.perSecond / without.result.perSecond;
  const failed = (x: typeof withTerm) => (x.result.errors > 0 ? { failed: true } : {});
  return [
    {
      row: '6',
      what: 'POST /v1/rfq, option term off (pricing.option.k = 0)',
      figure: figure(without.result) + errorsOf(without.result),
      ...failed(without),
    },
    {
      row: '6',
      what: `POST /v1/rfq, option term on (k = 0.4; ${without.bytes} → ${withTerm.bytes} B answer)`,
      figure: figure(withTerm.result) + errorsOf(withTerm.result),
      ...failed(withTerm),
    },
    {
      row: '6',
      what: 'RFQ rate, option term on / off',
      figure: `${ratio(r)} (the term costs ${num(Math.max(0, (1 - r) * 100), 1)} % of the rate)`,
      target: at('≥', TARGET, r, ratio(TARGET)),
    },
  ];
}

export const optionTermRow: Row = { id: '6', title: 'POST /v1/rfq with the option term on vs off', run };
