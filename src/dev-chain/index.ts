// The embedded chain on its own, as a loopback Solana JSON-RPC server, so several processes (the
// service in `rpc` mode, tests, scripts) can share one chain: HTTP JSON-RPC on the port, and PubSub
// (account and program subscriptions) over a websocket on port + 1, as solana-test-validator serves them.

import { type Keypair, PublicKey } from '@solana/web3.js';
import Fastify, { type FastifyInstance } from 'fastify';
import { answerJsonRpc, createRpcMethods, type JsonRpcRequest } from '../chain/embedded/json-rpc.ts';
import { type ChainTiming, EmbeddedLedger, type MintConfig } from '../chain/embedded/ledger.ts';
import { DEFAULT_HTLC_PROGRAM_ID, loadHtlcProgram } from '../chain/htlc/index.ts';
import type { DevChain } from '../chain/port.ts';
import { PythPublisher, type PythPublisherOptions } from '../chain/pyth/publisher.ts';
import type { Config } from '../config/index.ts';
import type { EmbeddedVenue, EmbeddedVenueOptions } from '../venue/embedded.ts';
import { VenueGenesis } from '../venue/genesis.ts';
import { JUPITER_PATH, venueRoutes } from '../venue/http.ts';
import { type PubSub, startPubSub } from './pubsub.ts';

export { answerJsonRpc, createRpcMethods, RpcError } from '../chain/embedded/json-rpc.ts';

export interface ChainServerOptions {
  dataDir: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /**
   * The websocket's port; default port + 1 (8900 next to 8899). With port 0: the HTTP port + 1 when
   * free, else any free port (wsUrl tells which).
   */
  wsPort?: number;
  programId?: PublicKey;
  program?: Uint8Array;
  mints: MintConfig[];
  /** Wallets funded once at genesis (the maker's inventory and fee SOL). */
  funding: { owner: PublicKey; lamports: bigint; tokens: { mint: PublicKey; amount: bigint }[] }[];
  clock?: () => number;
  /**
   * Keep real time: slots on the clock, confirmed and finalized lagging the tip, each read and subscription
   * at its commitment (`npm run chain -- --slot-ms 400`). Absent: the instant chain.
   */
  timing?: ChainTiming | null;
  /** Log each request's method (never params: they can carry signed transactions). */
  logRequests?: boolean;
  /** Pyth price accounts to publish and keep moving (sponsoredFeedSpecs() for the real feeds); none by default. */
  pyth?: PythPublisherOptions;
  /**
   * The embedded venue (pools seeded at genesis, a keeper following the Pyth publisher) and its
   * Jupiter-shaped API at `${url}${JUPITER_PATH}`; none by default.
   */
  venue?: EmbeddedVenueOptions;
}

export interface ChainServer {
  readonly url: string;
  readonly wsUrl: string;
  readonly ledger: EmbeddedLedger;
  /** The Pyth publisher when options.pyth was given (also reachable over dev_pyth). */
  readonly pyth: PythPublisher | null;
  /** The venue when options.venue was given. */
  readonly venue: EmbeddedVenue | null;
  /** The venue's Jupiter Swap API v1 base URL (`${url}${JUPITER_PATH}`), or null without a venue. */
  readonly jupiterUrl: string | null;
  readonly app: FastifyInstance;
  /** Calls since start, for tests and the bench that count what an idle watcher costs. */
  stats(): ChainServerStats;
  /** Drops every websocket client and stops listening (a PubSub outage); HTTP stays up. */
  stopWebSocket(): Promise<void>;
  /** Listens again on the same websocket port. */
  startWebSocket(): Promise<void>;
  close(): Promise<void>;
}

export interface ChainServerStats {
  /** JSON-RPC requests per method over HTTP (each entry of a batch counts). */
  http: Record<string, number>;
  /** Requests per method over the websocket (subscribe, unsubscribe, clients' keep-alive `ping`). */
  ws: Record<string, number>;
  /** Notifications pushed, per method (accountNotification, programNotification). */
  notifications: Record<string, number>;
}

export async function startChainServer(options: ChainServerOptions): Promise<ChainServer> {
  const { ledger, pyth, venue } = openChain(options);
  const counts: ChainServerStats = { http: {}, ws: {}, notifications: {} };
  const app = await rpcApp(options, ledger, pyth, venue, counts);
  const host = options.host ?? '127.0.0.1';
  const openPubSub = (port: number) =>
    startPubSub({
      ledger,
      host,
      port,
      onRequest: (method) => count(counts.ws, method),
      onNotify: (method) => count(counts.notifications, method),
    });
  try {
    const { address, pubsub } = await listen(options, app, host, openPubSub);
    return serverHandle({ address, ledger, pyth, venue, app, counts, pubsub, openPubSub });
  } catch (e) {
    pyth?.stop();
    await venue?.close();
    await app.close();
    ledger.close();
    throw e;
  }
}

const count = (table: Record<string, number>, method: string) => {
  table[method] = (table[method] ?? 0) + 1;
};

/** The ledger at genesis, the Pyth publisher moving its feeds, and the venue's pools seeded and kept. */
function openChain(options: ChainServerOptions): {
  ledger: EmbeddedLedger;
  pyth: PythPublisher | null;
  venue: EmbeddedVenue | null;
} {
  const genesis = options.venue ? new VenueGenesis(options.venue) : null;
  const ledger = new EmbeddedLedger({
    dataDir: options.dataDir,
    programId: options.programId ?? DEFAULT_HTLC_PROGRAM_ID,
    program: options.program ?? loadHtlcProgram(),
    programs: genesis?.programs ?? [],
    mints: options.mints,
    funding: options.funding,
    ...(options.clock ? { clock: options.clock } : {}),
    timing: options.timing ?? null,
  });
  const pyth = options.pyth ? new PythPublisher(ledger, options.pyth) : null;
  pyth?.start();
  try {
    genesis?.start({ ledger, pyth });
  } catch (e) {
    pyth?.stop();
    ledger.close();
    throw e;
  }
  return { ledger, pyth, venue: genesis?.venue ?? null };
}

/** JSON-RPC over HTTP (single and batch), /health, and the venue's Jupiter API when there is a venue. */
async function rpcApp(
  options: ChainServerOptions,
  ledger: EmbeddedLedger,
  pyth: PythPublisher | null,
  venue: EmbeddedVenue | null,
  counts: ChainServerStats,
): Promise<FastifyInstance> {
  const call = createRpcMethods(ledger, pyth);
  const app = Fastify({
    logger: options.logRequests ? { level: 'info' } : false,
    bodyLimit: 4 * 1024 * 1024,
  });
  const handle = (req: JsonRpcRequest) =>
    answerJsonRpc(call, req, (method) => {
      count(counts.http, method);
    });
  app.post('/', async (request, reply) => {
    const body = request.body as JsonRpcRequest | JsonRpcRequest[];
    reply.header('content-type', 'application/json');
    return Array.isArray(body) ? body.map(handle) : handle(body);
  });
  app.get('/health', async () => 'ok');
  if (venue) await app.register(venueRoutes(venue), { prefix: JUPITER_PATH });
  return app;
}

/**
 * HTTP on the port, the websocket on wsPort or the next port; with port 0 and no wsPort, any free port for
 * the websocket when the next one is taken.
 */
async function listen(
  options: ChainServerOptions,
  app: FastifyInstance,
  host: string,
  openPubSub: (port: number) => Promise<PubSub>,
): Promise<{ address: string; pubsub: PubSub }> {
  const address = await app.listen({ host, port: options.port ?? 8899 });
  const httpPort = (app.server.address() as { port: number }).port;
  const wsPort = options.wsPort ?? httpPort + 1;
  const pubsub = await openPubSub(wsPort).catch((e) => {
    if (options.port !== 0 || options.wsPort !== undefined) throw e;
    return openPubSub(0);
  });
  return { address, pubsub };
}

/** The running server's handle: its URLs and parts, its counts, the websocket's outage switch, close. */
function serverHandle(parts: {
  address: string;
  ledger: EmbeddedLedger;
  pyth: PythPublisher | null;
  venue: EmbeddedVenue | null;
  app: FastifyInstance;
  counts: ChainServerStats;
  pubsub: PubSub;
  openPubSub: (port: number) => Promise<PubSub>;
}): ChainServer {
  const { ledger, pyth, venue, app, counts, openPubSub } = parts;
  let pubsub: PubSub | null = parts.pubsub;
  const url = parts.address.replace('[::1]', '127.0.0.1');
  const wsPort = parts.pubsub.port;
  const wsUrl = `ws://${new URL(url).hostname}:${wsPort}`;
  const snapshot = (table: Record<string, number>) => ({ ...table });
  return {
    url,
    wsUrl,
    ledger,
    pyth,
    venue,
    jupiterUrl: venue ? `${url}${JUPITER_PATH}` : null,
    app,
    stats: () => ({
      http: snapshot(counts.http),
      ws: snapshot(counts.ws),
      notifications: snapshot(counts.notifications),
    }),
    stopWebSocket: async () => {
      const stopping = pubsub;
      pubsub = null;
      await stopping?.close();
    },
    startWebSocket: async () => {
      if (!pubsub) pubsub = await openPubSub(wsPort);
    },
    close: async () => {
      pyth?.stop();
      await venue?.close();
      await pubsub?.close();
      pubsub = null;
      await app.close();
      ledger.close();
    },
  };
}

/** DevChain over a loopback chain's dev_* methods (tests, demos, the service's airdrop in rpc mode). */
export function loopbackDevChain(url: string): DevChain & {
  clock(): Promise<{ slot: number; unixTimestamp: number }>;
  /** A fork (dev_rollback): every transaction from the slot on is taken back; answers them, oldest first. */
  rollback(fromSlot: number): Promise<{ dropped: string[]; slot: number }>;
  /** The loopback chain's Pyth controls (dev_pyth); answers every feed's state after the action. */
  pyth(action: PythAction, symbol?: string, bps?: number): Promise<PythFeedStatus[]>;
} {
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[]): Promise<T> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: String(++id), method, params }),
    });
    const json = (await res.json()) as { result?: T; error?: { message: string } };
    if (json.error) throw new Error(`${method}: ${json.error.message}`);
    return json.result as T;
  };
  return {
    airdrop: async ({ wallet, mint, amount }) => ({
      signature: await rpc<string>('dev_airdrop', [wallet.toBase58(), mint.toBase58(), amount.toString()]),
    }),
    advanceClock: async (seconds) => {
      await rpc('dev_advanceClock', [seconds]);
    },
    clock: () => rpc('dev_clock', []),
    rollback: (fromSlot) => rpc('dev_rollback', [fromSlot]),
    pyth: (action, symbol, bps) =>
      rpc('dev_pyth', [
        action,
        ...(symbol === undefined ? [] : [symbol]),
        ...(bps === undefined ? [] : [bps]),
      ]),
  };
}

export type PythAction = 'freeze' | 'stale' | 'resume' | 'jump' | 'publish' | 'status';

/** A feed as dev_pyth reports it; price is the integer mantissa (× 10^exponent) as a decimal string. */
export interface PythFeedStatus {
  symbol: string;
  mode: 'live' | 'frozen' | 'stale';
  price: string | null;
  exponent: number | null;
  publishTime: number | null;
}

/** The genesis a service's config asks of a loopback chain: its assets' mints, the maker's inventory. */
export function configGenesis(
  config: Pick<Config, 'assets' | 'inventory'>,
  maker: Keypair | PublicKey,
): Pick<ChainServerOptions, 'mints' | 'funding'> {
  return {
    mints: config.assets.list.map((a) => ({
      address: new PublicKey(a.mint),
      decimals: a.decimals,
      symbol: a.symbol,
    })),
    funding: [
      makerFunding(
        maker,
        [...config.inventory].map(([mint, amount]) => ({ mint: new PublicKey(mint), amount })),
      ),
    ],
  };
}

/** Funding entry for a maker keypair: its inventory into ATAs plus fee SOL. */
export function makerFunding(
  maker: Keypair | PublicKey,
  inventory: { mint: PublicKey; amount: bigint }[],
  lamports = 100n * 1_000_000_000n,
) {
  const owner = 'publicKey' in maker ? maker.publicKey : maker;
  return { owner, lamports, tokens: inventory };
}
