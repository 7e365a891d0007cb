// Row 5: chain calls per idle tick per 100 watched escrows. The loopback chain server (`npm run chain`'s
// server, here in the bench's process) funds a maker; the service runs with chain.kind = "rpc" against it,
// N pending trades are made (their taker escrows are watched until the long lock window ends), and the
// calls the server answers during an idle window are counted by method.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { configGenesis, startChainServer } from '../../src/dev-chain/index.ts';
import { embeddedPyth } from '../../src/service.ts';
import { benchConfigDocument, type ConfigDocument, writeBenchConfig } from '../config.ts';
import { type BenchContext, CONNECTIONS, type Row } from '../context.ts';
import { HttpClient, repeat, sleep } from '../load.ts';
import { at, type Line, num } from '../report.ts';
import { callsBetween, countCalls } from '../rpc-count.ts';
import { startServiceProcess } from '../service.ts';
import { pendingTrade } from '../taker.ts';

const TARGET = 1;
/** The runtime's tick on rpc today (TradeRuntime's pollIntervalMs default), used while the config has none. */
const ASSUMED_TICK_MS = 2_000;
const IDLE_TICKS = 5;

/** The tick interval from the service's config when it names one, else the assumption (and which it was). */
function tickInterval(doc: ConfigDocument): { ms: number; from: string } {
  const runtime = doc.runtime as Record<string, unknown> | undefined;
  for (const [where, value] of [
    ['chain.poll_interval_ms', doc.chain.poll_interval_ms],
    ['runtime.poll_interval_ms', runtime?.poll_interval_ms],
    ['runtime.tick_interval_ms', runtime?.tick_interval_ms],
  ] as const) {
    if (typeof value === 'number' && value > 0) return { ms: value, from: `config ${where}` };
  }
  return { ms: ASSUMED_TICK_MS, from: 'assumed: not in the config; TradeRuntime polls every 2 s on rpc' };
}

const list = (counts: [string, number][]) => counts.map(([m, v]) => `${m} ${num(v)}`).join(', ') || 'none';

async function run(ctx: BenchContext): Promise<Line[]> {
  const n = ctx.trades;
  const dir = ctx.dir('chain-calls');
  const maker = Keypair.generate();
  const makerPath = join(dir, 'maker.json');
  writeFileSync(makerPath, JSON.stringify(Array.from(maker.secretKey)));
  const config = resolveConfig(benchConfigDocument());
  const pyth = embeddedPyth(config);
  const server = await startChainServer({
    dataDir: join(dir, 'chain'),
    port: 0,
    programId: DEFAULT_HTLC_PROGRAM_ID,
    ...configGenesis(config, maker),
    // The price feeds the service quotes from, published as the embedded chain does (npm run chain too):
    // without them it never gets ready; their batched read is counted with the rest.
    ...(pyth ? { pyth } : {}),
  });
  const counter = countCalls(server);
  let tick = { ms: ASSUMED_TICK_MS, from: '' };
  const configPath = writeBenchConfig(dir, 'bench-config-rpc.json', (doc) => {
    doc.chain = {
      kind: 'rpc',
      url: server.url,
      program_id: DEFAULT_HTLC_PROGRAM_ID.toBase58(),
      maker_keypair_path: makerPath,
    };
    // A server with PubSub says where its websocket is (port + 1 may have been taken).
    const wsUrl = (server as { wsUrl?: unknown }).wsUrl;
    if (typeof wsUrl === 'string') doc.chain.ws_url = wsUrl;
    tick = tickInterval(doc);
  });
  const service = await startServiceProcess({ dataDir: join(dir, 'service'), configPath });
  const client = new HttpClient(service.url, CONNECTIONS);
  let calls: [string, number][];
  let pushes: [string, number][];
  let createdIn: number;
  try {
    createdIn = await repeat(n, CONNECTIONS, async () => {
      await pendingTrade(client);
    });
    await sleep(2 * tick.ms); // let the last settlements' work drain
    const before = { calls: counter.calls(), pushes: counter.pushes() };
    await sleep(IDLE_TICKS * tick.ms);
    calls = callsBetween(before.calls, counter.calls());
    pushes = callsBetween(before.pushes, counter.pushes());
  } finally {
    client.close();
    await service.stop();
    await server.close();
  }
  const total = calls.reduce((s, [, v]) => s + v, 0);
  const perTickPer100 = total / (IDLE_TICKS * (n / 100));
  ctx.note(`row 5: calls counted from ${counter.source}; tick ${tick.ms} ms (${tick.from})`);
  return [
    {
      row: '5',
      what: `idle window: ${IDLE_TICKS} ticks × ${tick.ms} ms, ${num(n)} watched escrows`,
      figure:
        `${num(total)} calls: ${list(calls)}; ${list(pushes)} pushed` +
        ` (trades made at ${num(n / createdIn)}/s)`,
    },
    {
      row: '5',
      what: 'chain calls per idle tick per 100 escrows',
      figure: num(perTickPer100, 2),
      target: at('≤', TARGET, perTickPer100, String(TARGET)),
    },
  ];
}

export const chainCallsRow: Row = { id: '5', title: 'chain calls per idle tick', run };
