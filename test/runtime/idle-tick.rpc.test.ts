// What an idle tick costs against a real JSON-RPC chain: the loopback server behind `npm run chain` (its own
// count of the calls it answered), the service with chain.kind = "rpc" against it and a short tick, a few
// hundred pending trades made over HTTP, then the calls of several idle ticks — with the websocket feed
// live (the watcher sweeps a slice a tick), and with it stopped (the watcher polls everything every tick).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair, type PublicKey } from '@solana/web3.js';
import { afterAll, expect, test } from 'vitest';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import type { ChainPort } from '../../src/chain/index.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { type ChainServer, configGenesis, startChainServer } from '../../src/dev-chain/index.ts';
import { createService, type Service } from '../../src/service.ts';
import { defaultConfigDocument, tempDir } from '../support/service.ts';
import { newSecret, until } from './fake-chain.ts';

/** Pending trades, each watching its taker escrow: one escrow each. */
const TRADES = 299;
const TICK_MS = 200;
const TICKS = 5;

const dir = tempDir('rfq-idle-tick-');
let server: ChainServer | undefined;
let service: Service | undefined;
afterAll(async () => {
  await service?.close();
  await server?.close();
  dir.remove();
});

/**
 * The maker's balances, refreshed every few seconds whatever the number of trades, are answered from the
 * first reading: the server then counts only what the trade runtime asks of the chain.
 */
function cachedBalances(chain: ChainPort): ChainPort {
  const known = new Map<string, Promise<bigint>>();
  return new Proxy(chain, {
    get(target, key, receiver) {
      if (key === 'tokenBalance') {
        return (owner: PublicKey, mint: PublicKey) => {
          const id = `${owner.toBase58()}:${mint.toBase58()}`;
          if (!known.has(id)) known.set(id, target.tokenBalance(owner, mint));
          return known.get(id);
        };
      }
      // The fee balance (SOL, lamports) is refreshed with them.
      if (key === 'solBalance') {
        return (owner: PublicKey) => {
          const id = `${owner.toBase58()}:lamports`;
          if (!known.has(id)) known.set(id, target.solBalance(owner));
          return known.get(id);
        };
      }
      const value = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

interface Mark {
  http: Record<string, number>;
  ws: Record<string, number>;
  live: boolean;
}

const sum = (table: Record<string, number>) => Object.values(table).reduce((s, n) => s + n, 0);
const diff = (from: Record<string, number>, to: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(to)
      .map(([method, n]) => [method, n - (from[method] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );

test(`an idle tick over ${TRADES} escrows on the loopback JSON-RPC server costs one call per 100 or part of one: 1 with pushes (0.33 per 100), 3 without (1.003 per 100)`, async () => {
  const doc = defaultConfigDocument();
  doc.http.rate_limit_per_minute = 1_000_000;
  const maker = Keypair.generate();
  const makerPath = join(dir.path, 'maker.json');
  writeFileSync(makerPath, JSON.stringify(Array.from(maker.secretKey)));
  const assets = resolveConfig(doc);
  server = await startChainServer({
    dataDir: join(dir.path, 'chain'),
    port: 0,
    programId: DEFAULT_HTLC_PROGRAM_ID,
    ...configGenesis(assets, maker),
  });
  doc.chain = {
    kind: 'rpc',
    url: server.url,
    ws_url: server.wsUrl,
    program_id: DEFAULT_HTLC_PROGRAM_ID.toBase58(),
    maker_keypair_path: makerPath,
  };
  service = await createService({
    dataDir: join(dir.path, 'service'),
    config: resolveConfig(doc),
    pollIntervalMs: TICK_MS,
    wrapChain: cachedBalances,
  });
  const { app, runtime } = service;
  const chainServer = server;

  // Every tick starts with the watcher's sweep: mark the server's counters there.
  const marks: Mark[] = [];
  const sweep = runtime.watcher.sweep.bind(runtime.watcher);
  runtime.watcher.sweep = () => {
    const stats = chainServer.stats();
    marks.push({ http: stats.http, ws: stats.ws, live: runtime.watcher.live });
    return sweep();
  };
  await until(() => runtime.watcher.live, 'the websocket feed to go live', 10_000);

  // A few hundred pending trades: an RFQ and a wallet settlement each, from fresh wallets.
  const makeTrade = async () => {
    const wallet = Keypair.generate().publicKey.toBase58();
    const rfq = await app.inject({
      method: 'POST',
      url: '/v1/rfq',
      payload: { input_asset: 'SOL', output_asset: 'USDC', amount: '1', taker_wallet: wallet },
    });
    const quote = rfq.json();
    if (quote.status !== 'accepted') throw new Error(`quote: ${rfq.body}`);
    const settled = await app.inject({
      method: 'POST',
      url: `/v1/quotes/${quote.quote_id}/wallet-settlement`,
      payload: { taker_wallet: wallet, secret_hash: newSecret().secretHash },
    });
    if (settled.statusCode >= 300) throw new Error(`settlement: ${settled.statusCode} ${settled.body}`);
  };
  for (let made = 0; made < TRADES; made += 10) {
    await Promise.all(Array.from({ length: Math.min(10, TRADES - made) }, makeTrade));
  }
  expect(runtime.watcher.size).toBe(TRADES);

  /** The calls of TICKS ticks after the first tick (a full sweep) whose feed state is `live`. */
  const measure = async (live: boolean) => {
    await until(() => runtime.watcher.live === live, `the feed to be ${live ? 'live' : 'down'}`, 10_000);
    const first = marks.length; // the next tick: a full sweep (owed after the feed moved, or polling)
    await until(() => marks.length >= first + TICKS + 2, `${TICKS} idle ticks`, 10_000);
    const window = marks.slice(first + 1, first + TICKS + 2);
    expect(window.every((m) => m.live === live)).toBe(true);
    const [from, to] = [window[0] as Mark, window[window.length - 1] as Mark];
    const calls = diff(from.http, to.http);
    const perTick = sum(calls) / TICKS;
    return { calls, perTick, per100: perTick / (TRADES / 100), ws: diff(from.ws, to.ws) };
  };

  // Without pushes: every tick reads every watched escrow, the clock riding in the last chunk.
  await chainServer.stopWebSocket();
  const polling = await measure(false);
  // Pushes back: the feed's generation moved, so one full sweep, then a slice a tick (a pass every 30 s).
  await chainServer.startWebSocket();
  const pushed = await measure(true);

  const report = (what: string, m: typeof polling) =>
    `${what}: ${m.perTick} calls per idle tick for ${TRADES} escrows = ${m.per100.toFixed(3)} per 100 ` +
    `(${JSON.stringify(m.calls)} over ${TICKS} ticks of ${TICK_MS} ms; websocket ${JSON.stringify(m.ws)})`;
  expect(pushed.per100, report('pushes live', pushed)).toBeLessThanOrEqual(1);
  expect(pushed.calls, report('pushes live', pushed)).toEqual({ getMultipleAccounts: TICKS });
  // Polling can't beat ceil((n + 1) / 100) for n escrows and the clock: one call per hundred or part of one.
  expect(polling.perTick, report('no pushes', polling)).toBeLessThanOrEqual(Math.ceil(TRADES / 100));
  expect(polling.calls, report('no pushes', polling)).toEqual({
    getMultipleAccounts: TICKS * Math.ceil((TRADES + 1) / 100),
  });
});
