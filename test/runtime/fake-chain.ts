// A fake of the chain port for tests of the runtime below HTTP: escrows, clock, push feed and transaction
// history are set by hand, and every call is counted (per port method, and as the JSON-RPC calls the rpc
// chain would make for it: batched reads cost one getMultipleAccounts per 100 keys). The chain is what
// these tests do NOT test; everything else they run is the real runtime. Methods no test needs reject with
// "not faked". Every call yields to the event loop once, as a call over the network would.
//
// Below the fake: factories for trades (their input, their taker escrow on chain, their lock transaction)
// and a runtime composed over a temp store and this chain as src/service.ts composes it.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { createActor } from 'xstate';
import {
  initialSnapshot,
  type TradeEvent,
  type TradeInput,
  type TradeSnapshotLike,
  tradeMachine,
} from '../../machines/index.ts';
import { ChainError } from '../../src/chain/errors.ts';
import {
  type AccountFeed,
  type ChainPort,
  type ChainTransaction,
  type Commitment,
  DEFAULT_HTLC_PROGRAM_ID,
  type EscrowState,
  type EscrowsAndClock,
  HTLC_ESCROW_VERSION,
  type LandResult,
  makerEscrowAddress,
  type PriceUpdates,
  type SignatureInfo,
  takerEscrowAddress,
  type UnsignedTransaction,
  vaultAddress,
} from '../../src/chain/index.ts';
import type { PriceUpdate } from '../../src/chain/pyth/index.ts';
import { takerLockTransaction, unsignedBase64 } from '../../src/chain/transactions.ts';
import { ownershipOf } from '../../src/cluster/index.ts';
import { type Config, resolveConfig } from '../../src/config/index.ts';
import { QuoteDesk, StaticPriceSource } from '../../src/quotes/index.ts';
import { MakerInventory, TradeRuntime } from '../../src/runtime/index.ts';
import { newTradeRecord, restColumns } from '../../src/runtime/trade-record.ts';
import {
  GroupCommit,
  type NewTradeEvent,
  openStore,
  type QuoteRecord,
  type Store,
  type TradeRecord,
} from '../../src/store/index.ts';
import {
  bytesOf,
  type Hash32,
  hashOfPreimage,
  type Preimage,
  preimageFromBytes,
} from '../../src/vocabulary/index.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';
import { type ConfigDocument, defaultConfigDocument, tempDir } from '../support/service.ts';

const KEYS_PER_CALL = 100;
const BLOCKHASH = new PublicKey(createHash('sha256').update('fake blockhash').digest()).toBase58();
/** Chain time the fake starts at (any fixed value: the runtime never compares it with the host's clock). */
export const GENESIS = 1_800_000_000;

const notFaked = (method: string) => async (): Promise<never> => {
  throw new Error(`not faked: ${method}`);
};

interface FakeEscrow {
  state: EscrowState;
  /** False while the escrow is visible at `confirmed` only (landed, not final yet). */
  finalized: boolean;
}

export class FakeChain implements ChainPort {
  readonly programId = DEFAULT_HTLC_PROGRAM_ID;
  readonly maker = Keypair.generate();
  readonly makerWallet = this.maker.publicKey;
  /** Calls per port method. */
  readonly calls: Record<string, number> = {};
  /** The JSON-RPC calls the rpc chain would make for them, per method. */
  readonly rpc: Record<string, number> = {};
  /** The addresses of every batched read (readEscrows, readEscrowsAndClock), in order. */
  readonly reads: { method: string; addresses: string[]; commitment: Commitment }[] = [];
  /** Transactions handed to submitSigned. */
  readonly submitted: string[] = [];
  /** What tokenBalance answers for every mint (the maker's inventory). */
  makerBalance = 10n ** 18n;

  /** Price update accounts by address, as readPriceUpdates answers them (absent: null). */
  readonly priceUpdates = new Map<string, PriceUpdate>();
  private readonly escrows = new Map<string, FakeEscrow>();
  private readonly history = new Map<string, (SignatureInfo & { finalized: boolean })[]>();
  private readonly transactions = new Map<string, ChainTransaction>();
  private readonly listeners = new Set<(addresses: readonly string[]) => void>();
  private clock = GENESIS;
  private finalityLag = 0;
  private down: string | null = null;
  private feedLive = true;
  private feedGeneration = 1;

  constructor(readonly kind: 'embedded' | 'rpc' = 'rpc') {}

  // ── What a test sets ─────────────────────────────────────────────────────────────────────────────

  /** The escrow at the address (null: absent); `finalized: false` shows it at `confirmed` only. */
  setEscrow(address: string, state: EscrowState | null, options: { finalized?: boolean } = {}): void {
    if (state === null) this.escrows.delete(address);
    else this.escrows.set(address, { state, finalized: options.finalized ?? true });
  }

  /** Chain time (the Clock sysvar at `confirmed`); the finalized bank lags it by `finalityLag` seconds. */
  setNow(seconds: number, options: { finalityLag?: number } = {}): void {
    this.clock = seconds;
    if (options.finalityLag !== undefined) this.finalityLag = options.finalityLag;
  }

  /** Chain time now (at `confirmed`). */
  get time(): number {
    return this.clock;
  }

  /** A transaction in the history of each of its account keys (newest first), and by its signature. */
  addTransaction(tx: ChainTransaction, options: { finalized?: boolean } = {}): void {
    this.transactions.set(tx.signature, tx);
    for (const address of new Set(tx.accountKeys)) {
      const list = this.history.get(address) ?? [];
      list.unshift({
        signature: tx.signature,
        slot: tx.slot,
        err: tx.err,
        blockTime: tx.blockTime,
        finalized: options.finalized ?? true,
      });
      this.history.set(address, list);
    }
  }

  /** Every call fails with ChainError('unavailable') until `reachable()`. */
  unreachable(why = 'connection refused'): void {
    this.down = why;
  }

  reachable(): void {
    this.down = null;
  }

  /** Pushes changed addresses to the feed's listener, synchronously (as the embedded chain does). */
  push(...addresses: string[]): void {
    for (const listener of this.listeners) listener(addresses);
  }

  /** Pushes stop flowing (the websocket dropped); the watcher then polls. */
  setLive(live: boolean): void {
    this.feedLive = live;
  }

  /** The feed went down and came back: pushes in between are lost, and its generation moves. */
  reconnect(): void {
    this.feedLive = true;
    this.feedGeneration += 1;
  }

  /** Every call counted so far, over all port methods. */
  get totalCalls(): number {
    return Object.values(this.calls).reduce((sum, n) => sum + n, 0);
  }

  /**
   * Answers without a turn of the event loop in between, as the embedded chain does (its reads are
   * synchronous): whatever the caller does not yield itself holds the loop.
   */
  withoutIo = false;

  /** Forgets the counters (not the chain's state). */
  resetCounts(): void {
    for (const table of [this.calls, this.rpc]) for (const key of Object.keys(table)) delete table[key];
    this.reads.length = 0;
    this.submitted.length = 0;
  }

  // ── The port ─────────────────────────────────────────────────────────────────────────────────────

  private async call(method: string, rpcMethod: string | null, rpcCalls = 1): Promise<void> {
    this.calls[method] = (this.calls[method] ?? 0) + 1;
    if (rpcMethod !== null) this.rpc[rpcMethod] = (this.rpc[rpcMethod] ?? 0) + rpcCalls;
    if (this.withoutIo) await Promise.resolve();
    else await new Promise((resolve) => setImmediate(resolve));
    if (this.down !== null) throw new ChainError('unavailable', `fake chain unreachable: ${this.down}`);
  }

  private view(address: string, commitment: Commitment): EscrowState | null {
    const escrow = this.escrows.get(address);
    if (!escrow || (commitment === 'finalized' && !escrow.finalized)) return null;
    return escrow.state;
  }

  private clockAt(commitment: Commitment): number {
    return commitment === 'finalized' ? this.clock - this.finalityLag : this.clock;
  }

  async now(): Promise<bigint> {
    await this.call('now', 'getAccountInfo');
    return BigInt(this.clockAt('confirmed'));
  }

  async blockHeight(): Promise<number> {
    await this.call('blockHeight', 'getBlockHeight');
    return 1_000;
  }

  async latestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }> {
    await this.call('latestBlockhash', 'getLatestBlockhash');
    return { blockhash: BLOCKHASH, lastValidBlockHeight: 1_150 };
  }

  async buildTakerLock(a: Parameters<ChainPort['buildTakerLock']>[0]): Promise<UnsignedTransaction> {
    await this.call('buildTakerLock', 'getLatestBlockhash');
    const lifetime = { blockhash: BLOCKHASH, lastValidBlockHeight: 1_150 };
    const tx = takerLockTransaction(this.programId, this.makerWallet, lifetime, a);
    return { transactionBase64: unsignedBase64(tx), recentBlockhash: BLOCKHASH, lastValidBlockHeight: 1_150 };
  }

  buildTakerRedeem = notFaked('buildTakerRedeem');
  buildTakerRefund = notFaked('buildTakerRefund');

  async submitSigned(transactionBase64: string): Promise<{ signature: string }> {
    await this.call('submitSigned', 'sendTransaction');
    this.submitted.push(transactionBase64);
    const tx = Transaction.from(Buffer.from(transactionBase64, 'base64'));
    const first = tx.signatures[0]?.signature;
    if (!first) throw new ChainError('missing_signature', 'fake chain: unsigned transaction');
    return { signature: bs58.encode(first) };
  }

  signMakerLock = notFaked('signMakerLock');
  signMakerRedeem = notFaked('signMakerRedeem');
  signMakerRefund = notFaked('signMakerRefund');
  signMakerCancel = notFaked('signMakerCancel');
  signRedeemFor = notFaked('signRedeemFor');
  signRefundFor = notFaked('signRefundFor');
  signClose = notFaked('signClose');
  signMakerInstructions = notFaked('signMakerInstructions');
  /** (Re)broadcasts: the bytes count as submitted; what landed is what the test puts on chain (setEscrow). */
  async send(tx: { transactionBase64: string }): Promise<void> {
    await this.call('send', 'sendTransaction');
    this.submitted.push(tx.transactionBase64);
  }

  signatureState = notFaked('signatureState');
  confirm = notFaked('confirm');

  /** A broadcast that the cluster took: confirmed at once (a test puts the escrow it made on chain). */
  async land(tx: { transactionBase64: string }): Promise<LandResult> {
    await this.call('land', 'sendTransaction');
    this.submitted.push(tx.transactionBase64);
    return { status: 'confirmed', slot: 1_000, err: null };
  }

  async readEscrow(address: PublicKey, commitment: Commitment): Promise<EscrowState | null> {
    await this.call('readEscrow', 'getAccountInfo');
    return this.view(address.toBase58(), commitment);
  }

  async signaturesForAddress(
    address: PublicKey,
    commitment: Commitment,
    limit = 100,
    before?: string,
  ): Promise<SignatureInfo[]> {
    await this.call('signaturesForAddress', 'getSignaturesForAddress');
    const all = (this.history.get(address.toBase58()) ?? []).filter(
      (s) => commitment === 'confirmed' || s.finalized,
    );
    const start = before === undefined ? 0 : all.findIndex((s) => s.signature === before) + 1;
    return all.slice(start, start + limit).map(({ finalized: _, ...info }) => info);
  }

  async getTransaction(signature: string, _commitment: Commitment): Promise<ChainTransaction | null> {
    await this.call('getTransaction', 'getTransaction');
    return this.transactions.get(signature) ?? null;
  }

  readMint = notFaked('readMint');

  async tokenBalance(_owner: PublicKey, _mint: PublicKey): Promise<bigint> {
    await this.call('tokenBalance', 'getAccountInfo');
    return this.makerBalance;
  }

  solBalance = notFaked('solBalance');

  async health(): Promise<{ ok: boolean; detail: string }> {
    return this.down === null ? { ok: true, detail: 'fake' } : { ok: false, detail: this.down };
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  async readEscrows(
    addresses: readonly PublicKey[],
    commitment: Commitment,
  ): Promise<(EscrowState | null)[]> {
    const keys = addresses.map((a) => a.toBase58());
    await this.call('readEscrows', 'getMultipleAccounts', Math.ceil(keys.length / KEYS_PER_CALL));
    this.reads.push({ method: 'readEscrows', addresses: keys, commitment });
    return keys.map((address) => this.view(address, commitment));
  }

  async readEscrowsAndClock(
    addresses: readonly PublicKey[],
    commitment: Commitment,
  ): Promise<EscrowsAndClock> {
    const keys = addresses.map((a) => a.toBase58());
    // The Clock sysvar rides as one more key, as on the rpc chain.
    await this.call(
      'readEscrowsAndClock',
      'getMultipleAccounts',
      Math.ceil((keys.length + 1) / KEYS_PER_CALL),
    );
    this.reads.push({ method: 'readEscrowsAndClock', addresses: keys, commitment });
    return {
      escrows: keys.map((address) => this.view(address, commitment)),
      now: BigInt(this.clockAt(commitment)),
      slot: 1_000,
    };
  }

  async readPriceUpdates(accounts: readonly PublicKey[], commitment: Commitment): Promise<PriceUpdates> {
    const keys = accounts.map((a) => a.toBase58());
    // The Clock sysvar rides as one more key, as on the rpc chain.
    await this.call('readPriceUpdates', 'getMultipleAccounts', Math.ceil((keys.length + 1) / KEYS_PER_CALL));
    this.reads.push({ method: 'readPriceUpdates', addresses: keys, commitment });
    return {
      updates: keys.map((address) => this.priceUpdates.get(address) ?? null),
      clockUnix: this.clockAt(commitment),
      slot: 1_000,
    };
  }

  watchAccounts(onChange: (addresses: readonly string[]) => void): AccountFeed {
    this.calls.watchAccounts = (this.calls.watchAccounts ?? 0) + 1;
    this.listeners.add(onChange);
    const chain = this;
    return {
      get live() {
        return chain.feedLive && chain.listeners.has(onChange);
      },
      get generation() {
        return chain.feedGeneration;
      },
      close: () => {
        chain.listeners.delete(onChange);
      },
    };
  }
}

// ── Trades: their input, their escrows on chain, their history ──────────────────────────────────────

export { SOL_MINT, USDC_MINT };

export interface TakerSecret {
  preimage: Preimage;
  secretHash: Hash32;
}

export function newSecret(): TakerSecret {
  const preimage = randomBytes(32);
  return {
    preimage: preimageFromBytes(preimage),
    secretHash: hashOfPreimage(preimageFromBytes(preimage)),
  };
}

/** A 1 SOL → 187 USDC trade started at chain time `now`, with the default config's settlement timing. */
export function tradeInput(
  chain: FakeChain,
  options: { runId: string; now: number; taker?: Keypair; secret?: TakerSecret },
): { input: TradeInput; taker: Keypair; secret: TakerSecret } {
  const taker = options.taker ?? Keypair.generate();
  const secret = options.secret ?? newSecret();
  const [takerEscrow] = takerEscrowAddress(chain.programId, taker.publicKey, bytesOf(secret.secretHash));
  const [makerEscrow] = makerEscrowAddress(chain.programId, takerEscrow);
  const input: TradeInput = {
    tradeId: randomUUID(),
    quoteId: randomUUID(),
    runId: options.runId,
    takerWallet: taker.publicKey.toBase58(),
    makerWallet: chain.makerWallet.toBase58(),
    secretHash: secret.secretHash,
    inputMint: SOL_MINT,
    inputAmountRaw: '1000000000',
    outputMint: USDC_MINT,
    outputAmountRaw: '187000000',
    takerExpiry: options.now + 900,
    lockDeadline: options.now + 120,
    takerEscrow: takerEscrow.toBase58(),
    makerEscrow: makerEscrow.toBase58(),
    makerTimelock: 300,
    safetyMargin: 300,
    minRedeemWindow: 120,
    landingMargin: 30,
    sourcing: null,
  };
  return { input, taker, secret };
}

/** The taker escrow as the program writes it for this trade's lock (the agreed terms, unless overridden). */
export function takerEscrowState(
  chain: FakeChain,
  input: TradeInput,
  overrides: Partial<EscrowState> = {},
): EscrowState {
  const escrow = new PublicKey(input.takerEscrow);
  return {
    version: HTLC_ESCROW_VERSION,
    kind: 'taker',
    status: 'locked',
    initializer: new PublicKey(input.takerWallet),
    recipient: chain.makerWallet,
    mint: new PublicKey(input.inputMint),
    vault: vaultAddress(chain.programId, escrow)[0],
    hashlock: bytesOf(input.secretHash),
    amount: BigInt(input.inputAmountRaw),
    expiry: BigInt(input.takerExpiry),
    lockDeadline: BigInt(input.lockDeadline),
    lockedAt: BigInt(input.lockDeadline - 100),
    preimage: null,
    takerEscrow: null,
    ...overrides,
  };
}

/** A successful transaction touching the trade's taker escrow (its lock), for the escrow's history. */
export function lockTransaction(
  input: TradeInput,
  signature = bs58.encode(randomBytes(64)),
): ChainTransaction {
  return {
    signature,
    slot: 900,
    blockTime: null,
    err: null,
    txError: null,
    fee: 5_000n,
    accountKeys: [input.takerWallet, input.takerEscrow],
    logs: [],
    transactionBase64: '',
    tokenBalances: [],
  };
}

/** Signs an unsigned transaction as the taker's wallet would. */
export function walletSign(transactionBase64: string, wallet: Keypair): string {
  const tx = Transaction.from(Buffer.from(transactionBase64, 'base64'));
  tx.partialSign(wallet);
  return tx.serialize().toString('base64');
}

// ── A runtime over the fake chain, composed as src/service.ts composes it ───────────────────────────

export interface RuntimeLog {
  level: 'info' | 'warn' | 'error';
  obj: object;
  msg: string | undefined;
}

export interface Harness {
  chain: FakeChain;
  store: Store;
  durable: GroupCommit;
  config: Config;
  /** The runtime of the current run, once `start` made it. */
  runtime: TradeRuntime;
  runId: string;
  logs: RuntimeLog[];
  /** A new run over the same store and chain (the previous run stopped first when it was started). */
  start(options?: { pollIntervalMs?: number; lockWaitMs?: number }): Promise<TradeRuntime>;
  /** Why the current run lost its lease, each time it did. */
  leaseLost: string[];
  /** The quote desk of the current run, once `start` made it. */
  quotes: QuoteDesk;
  /** Inserts a trade at rest for `runId` (default: the next run), as commands.ts creates one, then runs
   * the machine through `events` (a trade further along than its first state). */
  insertTrade(options?: {
    runId?: string;
    /** The events, or a function of the trade's input that gives them (events naming its escrow, say). */
    events?: TradeEvent[] | ((input: TradeInput) => TradeEvent[]);
    now?: number;
    /** The machine's guards the runtime decides, as the run that made the trade answered them. */
    guards?: { confirmedLockAdmitted?: () => boolean };
  }): Promise<{
    input: TradeInput;
    taker: Keypair;
    secret: TakerSecret;
    record: TradeRecord;
  }>;
  /** A quote from the real desk and the real settlement start: the trade, its unsigned lock, the taker. */
  startTrade(): Promise<{
    tradeId: string;
    input: TradeInput;
    taker: Keypair;
    secret: TakerSecret;
    lock: string;
  }>;
  close(): Promise<void>;
}

/**
 * Opens a temp store and composes a run over it and the fake chain. The runtime's own ticker is set far
 * out (pollIntervalMs one minute) so a test drives ticks and deadlines itself; recheckSeconds follows.
 */
export async function openHarness(
  chain = new FakeChain(),
  change: (doc: ConfigDocument) => void = () => {},
  /** databaseUrl: PostgreSQL (harnesses on one database are instances of one cluster); leaseTtlMs: its runs'. */
  cluster: { databaseUrl?: string; leaseTtlMs?: number } = {},
): Promise<Harness> {
  const dir = tempDir('rfq-runtime-');
  const store = await openStore(
    cluster.databaseUrl !== undefined ? { databaseUrl: cluster.databaseUrl } : { dataDir: dir.path },
  );
  const leaseTtlMs = cluster.leaseTtlMs ?? 60_000;
  const durable = new GroupCommit(store);
  const doc = defaultConfigDocument();
  doc.http.rate_limit_per_minute = 1_000_000;
  change(doc);
  const config = resolveConfig(doc);
  const logs: RuntimeLog[] = [];
  const log = {
    info: (obj: object, msg?: string) => logs.push({ level: 'info', obj, msg }),
    warn: (obj: object, msg?: string) => logs.push({ level: 'warn', obj, msg }),
    error: (obj: object, msg?: string) => logs.push({ level: 'error', obj, msg }),
  };
  let runtime: TradeRuntime | null = null;
  let quotes: QuoteDesk | null = null;
  let nextRunId = randomUUID();
  const newRun = (runId: string) => {
    const run = {
      runId,
      version: 'test',
      startedAt: new Date().toISOString(),
      url: `http://run-${runId}.test`,
    };
    return store.kind === 'postgres' ? store.insertRun(run, leaseTtlMs) : store.insertRun(run);
  };
  await newRun(nextRunId);

  const harness: Harness = {
    leaseLost: [],
    chain,
    store,
    durable,
    config,
    logs,
    get quotes(): QuoteDesk {
      if (!quotes) throw new Error('no run started');
      return quotes;
    },
    get runtime(): TradeRuntime {
      if (!runtime) throw new Error('no run started');
      return runtime;
    },
    get runId(): string {
      return runtime?.runId ?? nextRunId;
    },

    async start(options = {}) {
      if (runtime) {
        await runtime.stop();
        nextRunId = randomUUID();
        await newRun(nextRunId);
      }
      const inventory = new MakerInventory(
        chain,
        config.assets.list.map((asset) => asset.mint),
      );
      await inventory.refresh().catch(() => undefined);
      quotes = await QuoteDesk.open({
        config,
        store,
        durable,
        runId: nextRunId,
        prices: new StaticPriceSource(config.prices),
        inventory,
      });
      runtime = new TradeRuntime({
        store,
        durable,
        chain,
        config,
        quotes,
        runId: nextRunId,
        log,
        pollIntervalMs: options.pollIntervalMs ?? 60_000,
        lockWaitMs: options.lockWaitMs ?? 0,
        ownership: ownershipOf(store, nextRunId, { ttlMs: leaseTtlMs, claimBatch: 100, log }),
        onOwnershipLost: (reason) => harness.leaseLost.push(reason),
      });
      await runtime.start();
      return runtime;
    },

    async insertTrade(options = {}) {
      const runId = options.runId ?? harness.runId;
      const { input, taker, secret } = tradeInput(chain, { runId, now: options.now ?? chain.time });
      let snapshot: TradeSnapshotLike = initialSnapshot(input);
      const events = typeof options.events === 'function' ? options.events(input) : options.events;
      if (events?.length) {
        const machine = options.guards ? tradeMachine.provide({ guards: options.guards }) : tradeMachine;
        const actor = createActor(machine, { input });
        actor.start();
        for (const event of events) actor.send(event);
        snapshot = actor.getPersistedSnapshot() as unknown as TradeSnapshotLike;
        actor.stop();
      }
      const rest = restColumns(snapshot);
      const at = new Date().toISOString();
      const quote: QuoteRecord = {
        quoteId: input.quoteId,
        runId,
        takerWallet: input.takerWallet,
        inputMint: input.inputMint,
        outputMint: input.outputMint,
        inputRaw: BigInt(input.inputAmountRaw),
        outputRaw: BigInt(input.outputAmountRaw),
        spreadBps: 8,
        inputUsd: '187.42',
        outputUsd: '1',
        createdAt: at,
        expiresAtMs: Date.now() - 1,
        htlcExpiresAtMs: Date.now(),
        riskChecks: [],
        usedByTradeId: null,
      };
      const record = newTradeRecord(input, snapshot, rest, at);
      const event: NewTradeEvent = {
        tradeId: input.tradeId,
        runId,
        at,
        type: 'SETTLEMENT_STARTED',
        status: rest.status,
        substate: rest.substate,
        payload: { quote_id: input.quoteId },
      };
      await Promise.all([
        durable.write({ kind: 'insertQuote', quote }),
        durable.write({ kind: 'createTrade', trade: record, event }),
      ]);
      return { input, taker, secret, record };
    },

    async startTrade() {
      if (!runtime || !quotes) throw new Error('no run started');
      const taker = Keypair.generate();
      const secret = newSecret();
      const quote = await quotes.requestQuote({
        inputAsset: 'SOL',
        outputAsset: 'USDC',
        amount: '1',
        takerWallet: taker.publicKey.toBase58(),
      });
      if (quote.status !== 'accepted') throw new Error(`quote rejected: ${JSON.stringify(quote.reasons)}`);
      const started = await runtime.commands.startSettlement(
        quote.quoteId,
        taker.publicKey.toBase58(),
        secret.secretHash,
      );
      const tradeId = started.trade.snapshot.context.tradeId;
      const found = await runtime.host.snapshotOf(tradeId);
      if (!found) throw new Error('the new trade is not in the store');
      return { tradeId, input: found.snapshot.context, taker, secret, lock: started.lock.transactionBase64 };
    },

    async close() {
      await runtime?.stop();
      await durable.close();
      await store.close();
      await chain.close();
      dir.remove();
    },
  };
  return harness;
}

/** Waits until `done` holds, turning the event loop (group commits, passivations, pushed reads). */
export async function until(
  done: () => boolean | Promise<boolean>,
  what = 'condition',
  timeoutMs = 15_000,
): Promise<void> {
  const limit = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > limit) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Lets a few event-loop turns pass (for asserting that something did NOT happen). */
export async function turns(n = 10): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}
