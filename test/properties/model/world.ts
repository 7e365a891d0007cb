// The real side of the model-based test: one service on a DATA_DIR (restartable in process), its embedded
// chain, and the takers' keys. Commands reach the service only through HTTP (app.inject) and the chain only
// as a wallet would (submitSigned of a transaction the taker signed), plus the dev clock — also while the
// service is stopped (whileStopped opens the chain on its own, as `npm run chain` would).
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Keypair, PublicKey } from '@solana/web3.js';
import { ata, type EmbeddedChain, vaultAddress } from '../../../src/chain/index.ts';
import { readTokenAccount } from '../../../src/chain/token.ts';
import { type Config, DEFAULT_CONFIG_PATH, resolveConfig } from '../../../src/config/index.ts';
import { createService, type Service } from '../../../src/service.ts';
import type { VenuePool } from '../../../src/venue/book.ts';
import type { EmbeddedVenue } from '../../../src/venue/embedded.ts';
import { MINT_SYMBOLS, SOL_MINT, USDC_MINT, USDT_MINT } from '../../support/mints.ts';
import {
  type ConfigDocument,
  defaultConfigDocument,
  SHORT_SETTLEMENT,
  tempDir,
  testStore,
} from '../../support/service.ts';
import { chainAlone } from '../../support/taker-moves.ts';

export const SOL = SOL_MINT;
export const USDC = USDC_MINT;
export const USDT = USDT_MINT;
/** The asset the maker holds little of: every USDC→JUP trade of the model sources most of its output. */
export const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
export const SYMBOL: Readonly<Record<string, string>> = { ...MINT_SYMBOLS, [JUP]: 'JUP' };
export const MINTS = [SOL_MINT, USDC_MINT, USDT_MINT, JUP] as const;

/**
 * The maker's JUP at genesis: less than any USDC→JUP trade of the model asks for (hundreds of JUP), so such
 * RFQs source the rest through the embedded venue (never refused for inventory while the venue answers
 * within the slippage), and their trades buy it before the maker locks.
 */
export const MAKER_JUP = '200';

const shipped = JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')) as Record<string, unknown>;

/** Short settlement timings (seconds of chain time). */
export const TIMING = SHORT_SETTLEMENT;

export const RUNTIME_OPTIONS = { pollIntervalMs: 25, lockWaitMs: 1_500 } as const;

/** Lamports a taker may lose to fees and rent over one trade (signatures, ATAs, escrow rent). */
export const SOL_FEE_TOLERANCE = 20_000_000n;

export function modelConfigDocument(): ConfigDocument {
  const doc = defaultConfigDocument();
  doc.settlement = { ...TIMING };
  doc.http = { ...doc.http, rate_limit_per_minute: 1_000_000 };
  // The embedded venue with sourcing on (its default with a venue), pools only for the pairs the model
  // trades (fewer to seed at genesis). The static price source leaves the venue without a keeper: its pools
  // move only by swaps, the maker's and the model's own (VenueSlip, VenueRestore).
  doc.venue = shipped.venue;
  const traded = new Set(['SOL>USDC', 'USDC>SOL', 'USDC>USDT', 'USDT>USDC', 'USDC>JUP']);
  doc.pairs = doc.pairs.filter((p) => traded.has(`${p.input}>${p.output}`));
  doc.inventory = doc.inventory.map((entry) =>
    entry.asset === 'JUP' ? { ...entry, amount: MAKER_JUP } : entry,
  );
  return doc;
}

export type Json = ReturnType<typeof JSON.parse>;

export interface Reply {
  status: number;
  body: Json;
}

export interface Secret {
  preimage: string;
  secretHash: string;
}

export function newSecret(): Secret {
  const preimage = randomBytes(32);
  return { preimage: preimage.toString('hex'), secretHash: sha256(preimage) };
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export class World {
  service: Service;
  readonly dataDir: string;
  readonly config: Config;
  readonly remove: () => void;
  readonly makerWallet: PublicKey;
  /** Maker token balances when the world began (per mint). */
  readonly makerStart = new Map<string, bigint>();
  /** What the test airdropped to takers: tokens per mint (SOL: lamports, counted as SOL holdings). */
  readonly airdropped = new Map<string, bigint>();
  /** Every taker keypair, by address. */
  readonly takers = new Map<string, Keypair>();
  /** Human-readable trail of what happened, printed with a failure. */
  readonly trail: string[] = [];
  restarts = 0;
  /** A market participant of the model's own that swaps against the venue's pools directly on chain. */
  readonly trader = Keypair.generate();
  /** What the test gave the trader, per mint. */
  readonly traderFunded = new Map<string, bigint>();
  /** What the venue's pools held at genesis, per mint (the config's liquidity at the reference prices). */
  readonly venueStart = new Map<string, bigint>();

  private constructor(service: Service, dataDir: string, config: Config, remove: () => void) {
    this.service = service;
    this.dataDir = dataDir;
    this.config = config;
    this.remove = remove;
    this.makerWallet = service.chain.makerWallet;
  }

  static async create(): Promise<World> {
    const config = resolveConfig(modelConfigDocument());
    const dir = tempDir('rfq-model-');
    const service = await createService({
      dataDir: dir.path,
      config,
      ...RUNTIME_OPTIONS,
      ...(await testStore(dir.path)),
    });
    const world = new World(service, dir.path, config, dir.remove);
    for (const mint of MINTS) world.makerStart.set(mint, await world.tokenBalance(world.makerWallet, mint));
    world.recordVenueGenesis();
    for (const mint of MINTS)
      if (world.venueHeld(mint) !== (world.venueStart.get(mint) ?? 0n))
        throw new Error(
          `venue genesis: ${world.venueHeld(mint)} of ${mint}, configured ${world.venueStart.get(mint)}`,
        );
    return world;
  }

  /**
   * A service on an existing DATA_DIR (e.g. one a killed process left). The maker's start is the
   * configured genesis inventory, which the embedded chain funded on its first start.
   */
  static async open(dataDir: string, remove: () => void): Promise<World> {
    const config = resolveConfig(modelConfigDocument());
    const service = await createService({
      dataDir,
      config,
      ...RUNTIME_OPTIONS,
      ...(await testStore(dataDir)),
    });
    const world = new World(service, dataDir, config, remove);
    for (const mint of MINTS) world.makerStart.set(mint, config.inventory.get(mint) ?? 0n);
    world.recordVenueGenesis();
    await world.outliveEarlierRuns();
    return world;
  }

  /**
   * On PostgreSQL a killed process's trades stay its own until its lease lapses (no new process took its
   * address here to prove it dead): wait that out — a test lease is a few seconds — and claim them, as the
   * running instance's next renewal would.
   */
  private async outliveEarlierRuns(): Promise<void> {
    const { store, runtime, runId } = this.service;
    if (store.kind !== 'postgres') return;
    for (;;) {
      const now = Date.now();
      const live = (await store.listRuns()).filter(
        (run) => run.runId !== runId && run.stoppedAt === null && (run.leaseExpiresAtMs ?? 0) > now,
      );
      if (live.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await runtime.ownership.claim();
  }

  get chain(): EmbeddedChain {
    return this.service.chain as EmbeddedChain;
  }

  get venue(): EmbeddedVenue {
    const venue = this.service.venue;
    if (venue === null) throw new Error('the model world has no venue');
    return venue;
  }

  /** The venue's pool of the two mints. */
  pool(x: string, y: string): VenuePool {
    const pool = this.venue.poolOf(new PublicKey(x), new PublicKey(y));
    if (pool === null) throw new Error(`no pool for ${x}/${y}`);
    return pool;
  }

  /** Each pool seeded with the config's liquidity a side at the reference USD price (no Pyth publisher). */
  private recordVenueGenesis(): void {
    const venue = this.config.venue;
    if (venue === null) return;
    for (const pool of this.venue.pools) {
      for (const asset of [pool.assetA, pool.assetB]) {
        const usd = asset.referenceUsd;
        const amount =
          (venue.liquidityMicroUsd * 10n ** BigInt(asset.decimals) * usd.den) / (usd.num * 1_000_000n);
        const mint = asset.mint.toBase58();
        this.venueStart.set(mint, (this.venueStart.get(mint) ?? 0n) + amount);
      }
    }
  }

  /** Tokens of the mint in every pool's vaults. */
  venueHeld(mint: string): bigint {
    let total = 0n;
    for (const pool of this.venue.pools) {
      const now = this.venue.snapshot(pool);
      if (now === null) continue;
      if (pool.mintA.toBase58() === mint) total += now.reserveA;
      if (pool.mintB.toBase58() === mint) total += now.reserveB;
    }
    return total;
  }

  note(line: string): void {
    this.trail.push(line);
  }

  async restart(): Promise<void> {
    await this.service.close();
    this.service = await createService({
      dataDir: this.dataDir,
      config: this.config,
      ...RUNTIME_OPTIONS,
      ...(await testStore(this.dataDir)),
    });
    this.restarts++;
  }

  /**
   * Stops the service, runs `fn` on the chain alone (opened from DATA_DIR the way the service opens it),
   * and starts the service again: what the taker does while no process watches.
   */
  async whileStopped<T>(fn: (chain: EmbeddedChain) => Promise<T>): Promise<T> {
    await this.service.close();
    let result: T;
    try {
      result = await chainAlone(this.dataDir, this.config, fn);
    } finally {
      this.service = await createService({
        dataDir: this.dataDir,
        config: this.config,
        ...RUNTIME_OPTIONS,
        ...(await testStore(this.dataDir)),
      });
      this.restarts++;
    }
    return result;
  }

  /** The trade's actor is in memory (a trade at rest has none). */
  isActive(tradeId: string): boolean {
    return this.service.runtime.host.isActive(tradeId);
  }

  /** The trade's machine context as the runtime knows it now (alert, effect failures). */
  async context(tradeId: string) {
    return (await this.service.runtime.host.snapshotOf(tradeId))?.snapshot.context ?? null;
  }

  async dispose(): Promise<void> {
    try {
      await this.service.close();
    } finally {
      this.remove();
    }
  }

  async post(url: string, payload?: unknown): Promise<Reply> {
    const res = await this.service.app.inject({
      method: 'POST',
      url,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: res.statusCode, body: parse(res.body) };
  }

  async get(url: string): Promise<Reply> {
    const res = await this.service.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: parse(res.body) };
  }

  async trade(tradeId: string): Promise<Json> {
    const res = await this.get(`/v1/trades/${tradeId}`);
    if (res.status !== 200)
      throw new Error(`GET trade ${tradeId}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async events(
    tradeId: string,
  ): Promise<{ seq: number; type: string; settlement_status: string; payload: Json }[]> {
    const res = await this.get(`/v1/trades/${tradeId}/events`);
    if (res.status !== 200) throw new Error(`GET events ${tradeId}: ${res.status}`);
    return res.body.events;
  }

  /** Every ledger entry of every trade (amounts as exact strings). */
  async ledger(): Promise<
    {
      trade_id: string;
      movement: string;
      signature: string;
      mint: string;
      account: string;
      side: string;
      amount_raw: string;
    }[]
  > {
    const res = await this.get('/v1/runtime/ledger');
    if (res.status !== 200) throw new Error(`GET ledger: ${res.status}`);
    return res.body.entries;
  }

  async now(): Promise<number> {
    return Number(await this.service.chain.now());
  }

  async advance(seconds: number): Promise<void> {
    await this.service.devChain?.advanceClock(seconds);
  }

  newTaker(): Keypair {
    const wallet = Keypair.generate();
    this.takers.set(wallet.publicKey.toBase58(), wallet);
    return wallet;
  }

  async airdrop(wallet: PublicKey, mint: string, display: string, raw: bigint): Promise<void> {
    const res = await this.post('/v1/dev/airdrop', {
      wallet: wallet.toBase58(),
      asset: SYMBOL[mint],
      amount: display,
    });
    if (res.status !== 200) throw new Error(`airdrop: ${res.status} ${JSON.stringify(res.body)}`);
    this.airdropped.set(mint, (this.airdropped.get(mint) ?? 0n) + raw);
  }

  async tokenBalance(owner: PublicKey, mint: string): Promise<bigint> {
    return this.service.chain.tokenBalance(owner, new PublicKey(mint));
  }

  async lamports(owner: PublicKey): Promise<bigint> {
    return this.service.chain.solBalance(owner);
  }

  /** What a taker holds of a mint; SOL counts native lamports plus the wrapped-SOL account. */
  async holding(owner: PublicKey, mint: string): Promise<bigint> {
    const tokens = await this.tokenBalance(owner, mint);
    if (mint !== SOL) return tokens;
    return tokens + (await this.lamports(owner));
  }

  async hasAta(owner: PublicKey, mint: string): Promise<boolean> {
    return this.chain.ledger.getAccount(ata(owner, new PublicKey(mint))) !== null;
  }

  /** Tokens held in an escrow's vault. */
  async vaultBalance(escrow: string): Promise<{ mint: string; amount: bigint } | null> {
    const [vault] = vaultAddress(this.service.chain.programId, new PublicKey(escrow));
    const account = this.chain.ledger.getAccount(vault);
    if (!account) return null;
    const token = readTokenAccount(account.data);
    return token ? { mint: token.mint.toBase58(), amount: token.amount } : null;
  }
}

function parse(text: string): Json {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
