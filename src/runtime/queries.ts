// Read-only views of trades and of the run: a trade's reading (what TradeResponse is rendered from, in
// src/http/trade-response.ts), pages with cursors, the event log, the ledger, runs, and what the operator's
// runtime view shows. Nothing here changes a trade; nothing here grows with the number of trades at rest
// (counts come from the store's indexes, lists are paged).
import {
  EFFECT_RETRY,
  isClosed,
  settlementStatusOf,
  type TradeContext,
  type TradeSnapshotLike,
} from '../../machines/index.ts';
import type { ChainPort } from '../chain/index.ts';
import { keyBase58, publicKey } from '../chain/index.ts';
import type { Ownership } from '../cluster/index.ts';
import type { Config } from '../config/index.ts';
import {
  type AssetPricing,
  type LedgerEntry,
  type LedgerSummary,
  summarize,
  type Valuations,
} from '../ledger/index.ts';
import { type Price, parseRatio } from '../money/index.ts';
import type {
  EventsRepository,
  HedgeRecord,
  HedgesRepository,
  QuoteRecord,
  QuotesRepository,
  RecordedPrice,
  RunsRepository,
  StoreBase,
  TradeEventRecord,
  TradeFilter,
  TradeRecord,
  TradesRepository,
} from '../store/index.ts';
import { publicSubstate, type SettlementStatus } from '../vocabulary/index.ts';
import type { ChainClock } from './clock.ts';
import { invalidInput, RuntimeError } from './errors.ts';
import { gatewayBurnsOf } from './gateway-burns.ts';
import type { TradeHost } from './host.ts';
import { storedSnapshot } from './trade-record.ts';

/** A trade as the run reads it now: its durable state and what TradeResponse shows beside it. */
export interface TradeReading {
  snapshot: TradeSnapshotLike;
  status: SettlementStatus;
  closed: boolean;
  createdAt: string;
  /** The run that owns the trade's actor now. */
  ownerRunId: string;
  currentRunId: string;
  ledger: LedgerSummary;
  /** The prices the trade's quote was priced from (null each for a quote stored before quotes kept them). */
  quotePrices: { input: RecordedPrice | null; output: RecordedPrice | null };
  programId: string;
  /** Chain time now, to tell whether the taker escrow is refundable yet. */
  chainNow: number;
  /**
   * The swaps of the hedges the trade triggered that landed (aggregator_swap), oldest first, each with
   * whether it failed on chain (only its fee moved): the trade closed before them, so they come from the
   * hedges table, not its snapshot.
   */
  hedgeSwaps: { signature: string; failed: boolean }[];
  /**
   * The source-chain burns of the trade's Gateway mint (gateway_burn, EVM transaction hashes), once Gateway
   * burned: they come after the mint, from the trade's events (gateway-burns.ts), not its snapshot.
   */
  gatewayBurns: string[];
}

export interface TradePage {
  trades: TradeReading[];
  nextCursor: string | null;
}

/** What the queries read: trades with their quotes, events, ledger and hedges; runs; whether it answers. */
export type QueryStore = QuotesRepository &
  TradesRepository &
  EventsRepository &
  Pick<HedgesRepository, 'hedgesOfTrades'> &
  RunsRepository &
  Pick<StoreBase, 'location' | 'isOpen' | 'ping'>;

export interface QueryDeps {
  store: QueryStore;
  /** Which trades the run owns: their counts, the failing ones, and whether a record names one. */
  ownership: Pick<Ownership, 'trades' | 'owns'>;
  host: TradeHost;
  chain: ChainPort;
  /** The config sections views read. */
  config: Pick<Config, 'assets' | 'prices'>;
  clock: ChainClock;
  runId: string;
}

export class TradeQueries {
  private readonly usdcUsd: Price;

  constructor(private readonly deps: QueryDeps) {
    const usdc = deps.config.assets.find('USDC');
    this.usdcUsd = (usdc && deps.config.prices.get(usdc.mint)?.usd) ?? { num: 1n, den: 1n };
  }

  /**
   * The trade's durable state now (its live actor's once that is on disk, else the stored one). A trade whose
   * write failed (a full disk) reads as stored: what its actor did past that is not the trade's.
   */
  async current(tradeId: string): Promise<{ record: TradeRecord; snapshot: TradeSnapshotLike }> {
    const found = await this.durableSnapshotOf(tradeId).catch(() => this.deps.host.snapshotOf(tradeId));
    if (!found) throw new RuntimeError('trade_not_found');
    const { record, snapshot } = found;
    return { record, snapshot };
  }

  /**
   * The trade's snapshot (the live actor's, else the stored one), answered once it is durable: a live actor
   * may have moved while the trade's row was read (an effect finished), and its transition is then still in
   * the turn's commit. Waiting for the trades' writes before reading let such a reading show a state a
   * kill -9 took back (a trade shown redeemed came back initiated); waiting after it cannot.
   */
  private async durableSnapshotOf(tradeId: string) {
    const found = await this.deps.host.snapshotOf(tradeId);
    await this.deps.host.settled(tradeId);
    return found;
  }

  /** Any trade as it is now; a trade this run could not adopt is unavailable. */
  async trade(tradeId: string): Promise<TradeReading> {
    const { record, snapshot } = await this.current(tradeId);
    return this.reading(record, snapshot, await this.chainNow());
  }

  /**
   * Chain time for a reading (whether a refund is due yet): read on the embedded chain, where it costs
   * nothing; on a cluster the clock's estimate, which the watcher keeps current.
   */
  private async chainNow(): Promise<number> {
    const { clock, chain } = this.deps;
    if (chain.kind === 'embedded') return clock.read().catch(() => clock.estimate());
    return clock.estimate();
  }

  /**
   * A trade as last stored, whether or not this run owns it: the wallet exits read only the chain and the
   * trade's terms, so a taker can leave even when this run could not adopt its trade.
   */
  async stored(tradeId: string): Promise<{ context: TradeContext; trade: TradeReading }> {
    const found = await this.durableSnapshotOf(tradeId).catch(() => this.deps.host.snapshotOf(tradeId));
    if (!found) throw new RuntimeError('trade_not_found');
    const trade = await this.reading(found.record, found.snapshot, await this.chainNow());
    return { context: found.snapshot.context, trade };
  }

  /** `known`: the trade's ledger entries and quote when the caller has them (a new trade: none yet). */
  async reading(
    record: TradeRecord,
    snapshot: TradeSnapshotLike,
    chainNow = this.deps.clock.estimate(),
    known?: { entries: LedgerEntry[]; quote: QuoteRecord },
  ): Promise<TradeReading> {
    const { chain, runId, store } = this.deps;
    // A closed trade belongs to the run it closed in; an unclosed one it could adopt, as its ownership says.
    const owned = record.closed
      ? record.ownerRunId === runId
      : record.adoptionError === null && this.deps.ownership.owns(record);
    const quote = known ? known.quote : await this.deps.store.getQuote(snapshot.context.quoteId);
    const status = settlementStatusOf(snapshot);
    // Only a redeemed trade triggers hedges: no read for the others.
    const hedges = status === 'redeemed' ? await store.hedgesOfTrades([record.tradeId]) : [];
    // Only a trade that minted through Gateway has a burn to show: no read for the others.
    const minted = snapshot.context.signatures.some((s) => s.kind === 'gateway_mint');
    const gatewayBurns = minted ? gatewayBurnsOf(await store.tradeEvents(record.tradeId)) : [];
    return {
      snapshot,
      status,
      closed: record.closed || isClosed(snapshot),
      createdAt: record.createdAt,
      ownerRunId: owned ? runId : record.ownerRunId,
      currentRunId: runId,
      ledger: await this.ledgerSummary(record.tradeId, snapshot.context, {
        quote,
        entries: known?.entries,
        hedges,
      }),
      quotePrices: { input: quote?.inputPrice ?? null, output: quote?.outputPrice ?? null },
      programId: keyBase58(chain.programId),
      chainNow,
      hedgeSwaps: hedges.flatMap((hedge): TradeReading['hedgeSwaps'] => {
        if (hedge.signature === null) return [];
        if (hedge.status === 'landed') return [{ signature: hedge.signature, failed: false }];
        // Failed on chain: its slot is known (a hedge that failed before sending has none).
        if (hedge.status === 'failed' && hedge.slot !== null)
          return [{ signature: hedge.signature, failed: true }];
        return [];
      }),
      gatewayBurns,
    };
  }

  /**
   * `known`: the trade's quote, ledger entries and hedges (each undefined: read it). A hedge's swap is valued
   * at the mid it was bounded by, so the estimate counts its slippage and fee, not the market's move since
   * the quote.
   */
  async ledgerSummary(
    tradeId: string,
    context: TradeContext,
    known: {
      entries?: LedgerEntry[] | undefined;
      quote?: QuoteRecord | undefined;
      hedges?: HedgeRecord[] | undefined;
    } = {},
  ): Promise<LedgerSummary> {
    const { config, store } = this.deps;
    const pricing = new Map<string, AssetPricing>();
    const quote = known.quote ?? (await store.getQuote(context.quoteId));
    const add = (mint: string, usd: Price | undefined) => {
      const asset = config.assets.find(mint);
      if (asset && usd) pricing.set(mint, { usd, decimals: asset.decimals });
    };
    add(context.inputMint, quote ? parseRatio(quote.inputUsd) : config.prices.get(context.inputMint)?.usd);
    add(context.outputMint, quote ? parseRatio(quote.outputUsd) : config.prices.get(context.outputMint)?.usd);
    const sol = config.assets.find('So11111111111111111111111111111111111111112');
    if (sol && !pricing.has(sol.mint)) add(sol.mint, config.prices.get(sol.mint)?.usd);
    const entries = known.entries ?? (await store.ledger(tradeId));
    // Entries under a signature that is not the trade's own are its hedges' (their swaps and fees).
    const hedges =
      known.hedges ??
      (entries.some((entry) => !context.signatures.some((s) => s.signature === entry.signature))
        ? await store.hedgesOfTrades([tradeId])
        : []);
    return summarize(entries, pricing, this.usdcUsd, this.hedgeValuations(hedges));
  }

  /** Each hedge's swap (and fee) valued at the two prices of its mid. */
  private hedgeValuations(hedges: readonly HedgeRecord[]): Valuations {
    const valuations = new Map<string, Map<string, AssetPricing>>();
    for (const hedge of hedges) {
      const prices = new Map<string, AssetPricing>();
      for (const [mint, usd] of [
        [hedge.inputMint, hedge.inputUsd],
        [hedge.outputMint, hedge.outputUsd],
      ] as const) {
        const asset = this.deps.config.assets.find(mint);
        if (asset) prices.set(mint, { usd: parseRatio(usd), decimals: asset.decimals });
      }
      for (const signature of [hedge.signature, ...hedge.expiredSignatures]) {
        if (signature !== null) valuations.set(signature, prices);
      }
    }
    return valuations;
  }

  listTrades(query: {
    takerWallet?: string | undefined;
    status?: SettlementStatus | undefined;
    limit: number;
    cursor?: string | undefined;
  }): Promise<TradePage> {
    return this.page({ takerWallet: query.takerWallet, status: query.status }, query);
  }

  /** Trades a run created (runId), or else those this run owns; paged like listTrades. */
  runTrades(query: {
    runId?: string | undefined;
    status?: SettlementStatus | undefined;
    limit: number;
    cursor?: string | undefined;
  }): Promise<TradePage> {
    const owner = query.runId !== undefined ? { runId: query.runId } : { ownedBy: this.deps.runId };
    return this.page({ ...owner, status: query.status }, query);
  }

  /** One page of stored trades, oldest first, with the cursor of the next page. */
  private async page(
    filter: Omit<TradeFilter, 'after' | 'limit'>,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<TradePage> {
    const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
    const records = await this.deps.store.listTrades({ ...filter, after, limit: page.limit + 1 });
    const shown = records.slice(0, page.limit);
    const last = shown[shown.length - 1];
    const now = await this.chainNow();
    return {
      trades: await Promise.all(
        shown.map(async (record) => {
          // A live actor's snapshot is newer than the page's row, shown once durable (see
          // durableSnapshotOf); a trade at rest, or one whose write failed, is read from the row.
          const live = this.deps.host.liveSnapshot(record.tradeId);
          const durable =
            live &&
            (await this.deps.host.settled(record.tradeId).then(
              () => true,
              () => false,
            ));
          return this.reading(record, durable ? live : storedSnapshot(record), now);
        }),
      ),
      nextCursor: records.length > page.limit && last ? encodeCursor(last) : null,
    };
  }

  async tradeEvents(tradeId: string) {
    if (!(await this.deps.store.getTrade(tradeId))) throw new RuntimeError('trade_not_found');
    return (await this.deps.store.tradeEvents(tradeId)).map(eventView);
  }

  /**
   * One trade's events after a seq, in seq order (a trade has a few dozen at most: read whole), for a stream
   * that found the trade when it opened (trades are never deleted), so without tradeEvents' lookup.
   */
  async tradeEventsAfter(tradeId: string, afterSeq: number, limit: number) {
    return (await this.deps.store.tradeEvents(tradeId))
      .filter((event) => event.seq > afterSeq)
      .slice(0, limit)
      .map(eventView);
  }

  /** The runtime event log after a seq, in seq order, shaped like a trade's event history. */
  async eventLog(afterSeq: number, limit: number) {
    return (await this.deps.store.events(afterSeq, limit)).map(eventView);
  }

  lastEventSeq(): Promise<number> {
    return this.deps.store.lastEventSeq();
  }

  /** Ledger entries (of one trade, or all) and the summary of every trade they belong to. */
  async ledgerView(tradeId?: string) {
    const { store } = this.deps;
    if (tradeId !== undefined && !(await store.getTrade(tradeId))) throw new RuntimeError('trade_not_found');
    const entries = await store.ledger(tradeId);
    const tradeIds = tradeId !== undefined ? [tradeId] : [...new Set(entries.map((e) => e.tradeId))];
    const summaries = [];
    for (const id of tradeIds) {
      const context = (await this.deps.host.snapshotOf(id))?.snapshot.context;
      if (context) summaries.push({ tradeId: id, summary: await this.ledgerSummary(id, context) });
    }
    return { entries, summaries };
  }

  /** Every run, oldest first, with the trades it created and owns. */
  async runs() {
    const { store } = this.deps;
    const counts = new Map((await store.tradeCounts(this.deps.runId)).map((c) => [c.runId, c]));
    return (await store.listRuns()).map((run) => ({
      ...run,
      created: counts.get(run.runId)?.created ?? 0,
      owned: counts.get(run.runId)?.owned ?? 0,
    }));
  }

  /**
   * The run's trades: every unclosed one it owns by status and substate (from the store's index), the
   * actors active in memory now, and the trades whose effect keeps failing.
   */
  async actors() {
    const { host } = this.deps;
    const { trades } = this.deps.ownership;
    const owned = await trades.ownedTradeCounts();
    const failing = (await trades.failingTrades(EFFECT_RETRY.visibleAfterAttempts, 100)).map((record) => {
      const error = (JSON.parse(record.snapshot) as TradeSnapshotLike).context.effectError;
      return {
        trade_id: record.tradeId,
        substate: publicSubstate(record.substate),
        effect: error?.effect ?? 'unknown',
        attempts: record.effectAttempts,
        message: error?.message ?? '',
        next_retry_at: error?.retryAt ?? null,
      };
    });
    const total = owned.reduce((sum, row) => sum + row.count, 0);
    // Substates by their public names, as every view shows them; a record stored by machine version 4
    // names the same one.
    return {
      owned: owned.map((row) => ({ ...row, substate: publicSubstate(row.substate) })),
      total,
      active: host.activeActors().map((actor) => ({ ...actor, substate: publicSubstate(actor.substate) })),
      failing,
    };
  }

  /** Chain, store and maker balances as this run sees them now; a part that cannot be read is reported. */
  async runtimeStatus() {
    const { chain, store, config } = this.deps;
    const read = <T>(fn: () => Promise<T>): Promise<T | null> => fn().catch(() => null);
    const [health, now, feeLamports, balances] = await Promise.all([
      chain.health().catch((error: unknown) => ({ ok: false, detail: (error as Error).message })),
      read(() => chain.now()),
      read(() => chain.solBalance(chain.makerWallet)),
      Promise.all(
        config.assets.list.map((asset) =>
          read(() => chain.tokenBalance(chain.makerWallet, publicKey(asset.mint))),
        ),
      ),
    ]);
    let storeOk = false;
    try {
      storeOk = store.isOpen && (await store.ping());
    } catch {
      // a store that cannot answer is reported as not ok
    }
    return {
      chain: {
        kind: chain.kind,
        healthy: health.ok,
        detail: health.detail,
        now: now === null ? null : Number(now),
        programId: keyBase58(chain.programId),
        makerWallet: keyBase58(chain.makerWallet),
        feeLamports,
      },
      store: { ok: storeOk, path: store.location },
      balances: config.assets.list.map((asset, i) => ({ asset, raw: balances[i] ?? null })),
    };
  }
}

/** A stored event as the API shows it (the trade's history and the runtime log alike). */
function eventView(event: TradeEventRecord) {
  return {
    seq: event.seq,
    trade_id: event.tradeId,
    run_id: event.runId,
    at: event.at,
    type: event.type,
    settlement_status: event.status,
    // Stored as the machine's path when the event was written (version 4's flat one for older events).
    substate: publicSubstate(event.substate),
    payload: event.payload,
  };
}

function encodeCursor(record: TradeRecord): string {
  return Buffer.from(JSON.stringify([record.createdAt, record.tradeId])).toString('base64url');
}

/** What encodeCursor writes: a stored trade's created_at and id. Anything else never reaches the store. */
const CURSOR_CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const CURSOR_TRADE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function decodeCursor(cursor: string): { createdAt: string; tradeId: string } {
  try {
    const [createdAt, tradeId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (
      typeof createdAt === 'string' &&
      typeof tradeId === 'string' &&
      CURSOR_CREATED_AT.test(createdAt) &&
      CURSOR_TRADE_ID.test(tradeId)
    ) {
      return { createdAt, tradeId };
    }
  } catch {
    // falls through to the client error below
  }
  throw invalidInput('cursor', 'not a cursor this service issued');
}
