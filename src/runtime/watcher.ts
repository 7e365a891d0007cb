// The chain watcher: knows which escrows each owned trade waits on and what the trade last absorbed of them
// (a fingerprint of their statuses), and wakes a trade only when the chain shows a change. Changes come
// pushed (the embedded chain names the accounts each transaction wrote; on a cluster, a programSubscribe
// websocket) and, as the safety net, from batched reads (up to 100 escrows per call) that sweep every
// watched escrow over `sweepIntervalMs` — or on every tick while pushes are not flowing. An idle tick
// therefore costs at most one call per 100 watched escrows, and usually a fraction of one.
//
// It also turns what the chain shows of a trade's escrows into the machine's chain facts (observe()). Under
// the commitment policy it watches taker escrows at confirmed too: a lock there may let the maker go on it
// (TAKER_LOCK_CONFIRMED), and a confirmed lock the maker went on is watched until it is final — or gone,
// taken back by a fork (TAKER_LOCK_ROLLED_BACK). The maker's own lock, landed at confirmed, taken back by a
// fork while the taker lock stands is reported too (MAKER_LOCK_ROLLED_BACK): the maker sends it again.
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  type ChainFact,
  hasSignature,
  makerEscrowTerms,
  makerEscrowUnsettled,
  substateOf,
  takerEscrowHoldsFunds,
  takerEscrowTerms,
} from '../../machines/index.ts';
import type { AccountFeed, ChainPort, Commitment, EscrowState } from '../chain/index.ts';
import { finalOnLanding, publicKey } from '../chain/index.ts';
import { WATCH_MAKER, WATCH_TAKER } from '../store/index.ts';
import { preimageFromBytes } from '../vocabulary/index.ts';
import type { ChainClock } from './clock.ts';
import { escrowEnding, lockingSignature, vanishedLock } from './endings.ts';
import type { TradeHandle, TradeHost } from './host.ts';
import { escrowLockTerms } from './lock-check.ts';
import type { RuntimeLogger } from './logger.ts';
import type { IndexedRest, RestState } from './trade-record.ts';

export type Readings = ReadonlyMap<string, EscrowState | null>;

interface Watched {
  escrows: string[];
  /** Fingerprint of the escrows as the trade last absorbed them. */
  seen: string;
}

export interface WatcherOptions {
  chain: ChainPort;
  clock: ChainClock;
  host: TradeHost;
  log: RuntimeLogger;
  /** Stores a trade's fingerprint (best effort: a lost one only costs a redelivery after a restart). */
  storeSeen(tradeId: string, seen: string): void;
  tickMs: number;
  /** How long one pass of the safety-net sweep over every watched escrow takes while pushes flow. */
  sweepIntervalMs: number;
  /**
   * The commitment policy is on and finality lags on this chain: taker escrows are also pushed at confirmed,
   * and `beforeConfirmedLock` runs before a confirmed lock is reported (the exposure book reads how far
   * finality trails).
   */
  confirmedLocks?: { beforeConfirmedLock(): Promise<void> } | null;
}

const STATUS_MARK: Record<EscrowState['status'], string> = {
  locked: 'L',
  redeemed: 'R',
  refunded: 'F',
  cancelled: 'C',
};
/**
 * Trades read per batched check (their escrows in chunks of 100 per call). 999, not 1,000: the clock rides
 * as one more key, so a batch of one-escrow trades fills exactly ten calls instead of starting an eleventh.
 */
const CHECK_BATCH = 999;
/** Trades delivered to at once (each may activate an actor). */
const DELIVER_CONCURRENCY = 64;

export function fingerprint(escrows: readonly string[], readings: Readings): string {
  return escrows
    .map((address) => {
      if (!readings.has(address)) return '?';
      const state = readings.get(address);
      return state ? STATUS_MARK[state.status] : '-';
    })
    .join('');
}

export function watchedEscrows(rest: Pick<RestState, 'watch' | 'takerEscrow' | 'makerEscrow'>): string[] {
  const escrows: string[] = [];
  if (rest.watch & WATCH_TAKER) escrows.push(rest.takerEscrow);
  if (rest.watch & WATCH_MAKER) escrows.push(rest.makerEscrow);
  return escrows;
}

export class ChainWatcher {
  private readonly byTrade = new Map<string, Watched>();
  private readonly byAddress = new Map<string, string>();
  /** The taker escrow of each watched trade that still waits on it: what a confirmed push is about. */
  private readonly byTakerEscrow = new Map<string, string>();
  private feed: AccountFeed | null = null;
  private confirmedFeed: AccountFeed | null = null;
  private readonly confirmedPushed = new Set<string>();
  private feedGeneration = -1;
  private readonly pushed = new Set<string>();
  private pushScheduled = false;
  private sweepCursor: IterableIterator<string> | null = null;
  /** A full sweep is owed (at start, and after pushes were lost). */
  private sweepOwed = true;
  private stopped = false;

  constructor(private readonly options: WatcherOptions) {}

  /** Trades watched now. */
  get size(): number {
    return this.byTrade.size;
  }

  /** Whether pushes are flowing (else the watcher polls every tick). */
  get live(): boolean {
    return this.feed?.live ?? false;
  }

  start(): void {
    try {
      this.feed = this.options.chain.watchAccounts((addresses) => this.onPush(addresses));
    } catch (error) {
      // Without pushes the watcher polls every tick.
      this.options.log.warn({ err: (error as Error).message }, 'no push feed of account changes');
    }
    if (this.options.confirmedLocks) {
      try {
        this.confirmedFeed = this.options.chain.watchAccounts(
          (addresses) => this.onConfirmedPush(addresses),
          'confirmed',
        );
      } catch (error) {
        // Without it a lock is seen at confirmed only when POST /lock or a tick looks.
        this.options.log.warn({ err: (error as Error).message }, 'no push feed of confirmed changes');
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.feed?.close();
    this.confirmedFeed?.close();
  }

  /** Indexes a trade at rest (or forgets it once it is closed or waits on nothing). */
  track(rest: IndexedRest, seen?: string): void {
    const escrows = rest.closed ? [] : watchedEscrows(rest);
    const previous = this.byTrade.get(rest.tradeId);
    if (previous) for (const address of previous.escrows) this.byAddress.delete(address);
    this.byTakerEscrow.delete(rest.takerEscrow);
    if (escrows.length === 0) {
      this.byTrade.delete(rest.tradeId);
      return;
    }
    for (const address of escrows) this.byAddress.set(address, rest.tradeId);
    if (escrows.includes(rest.takerEscrow)) this.byTakerEscrow.set(rest.takerEscrow, rest.tradeId);
    const kept = previous && sameList(previous.escrows, escrows) ? previous.seen : undefined;
    this.byTrade.set(rest.tradeId, { escrows, seen: seen ?? kept ?? '' });
  }

  private onPush(addresses: readonly string[]): void {
    for (const address of addresses) {
      const tradeId = this.byAddress.get(address);
      if (tradeId !== undefined) this.pushed.add(tradeId);
    }
    if (this.pushed.size > 0 && !this.pushScheduled) {
      this.pushScheduled = true;
      setImmediate(() => {
        this.pushScheduled = false;
        const ids = [...this.pushed];
        this.pushed.clear();
        void this.check(ids).catch((error: unknown) =>
          this.options.log.warn({ err: (error as Error).message }, 'reading pushed escrow changes failed'),
        );
      });
    }
  }

  /**
   * A taker escrow changed at confirmed: its trade is observed at confirmed — a pending one may go on the
   * lock there, and one riding on a confirmed lock learns whether a fork took it back.
   */
  private onConfirmedPush(addresses: readonly string[]): void {
    const first = this.confirmedPushed.size === 0;
    for (const address of addresses) {
      const tradeId = this.byTakerEscrow.get(address);
      if (tradeId !== undefined) this.confirmedPushed.add(tradeId);
    }
    if (!first || this.confirmedPushed.size === 0) return;
    setImmediate(() => {
      const ids = [...this.confirmedPushed];
      this.confirmedPushed.clear();
      void this.observeConfirmed(ids);
    });
  }

  /**
   * Observes at confirmed the trades that care: pending ones (a lock may be there to go on) and those riding
   * on a confirmed lock (it may be gone). Others wait for what finalized shows. Their escrows are read in one
   * batched read first, so the trades go on together and their signatures' statuses are asked in one call too
   * (the rpc chain reads the statuses asked within one turn together).
   */
  async observeConfirmed(tradeIds: readonly string[]): Promise<void> {
    const addresses = tradeIds.flatMap((id) => this.byTrade.get(id)?.escrows ?? []);
    let readings: Readings | undefined;
    try {
      if (addresses.length > 0) {
        const states = await this.options.chain.readEscrows(
          addresses.map((a) => publicKey(a)),
          'confirmed',
        );
        readings = new Map(addresses.map((address, i) => [address, states[i] ?? null]));
      }
    } catch (error) {
      // Each trade reads what it waits on itself (and says so if that fails too).
      this.options.log.warn({ err: (error as Error).message }, 'reading escrows at confirmed failed');
    }
    await Promise.all(
      tradeIds.map((tradeId) =>
        this.options.host
          .use(tradeId, async (trade) => {
            if (trade.status === 'pending' || trade.context.takerLockConfirmedOnly) {
              await this.observe(trade, { commitment: 'confirmed', ...(readings ? { readings } : {}) });
            }
          })
          .catch((error: unknown) =>
            this.options.log.warn(
              { trade_id: tradeId, err: (error as Error).message },
              'confirmed observation failed',
            ),
          ),
      ),
    );
  }

  /** The next tick sweeps every watched escrow (pushes may have been missed, e.g. during an outage). */
  sweepSoon(): void {
    this.sweepOwed = true;
  }

  /**
   * Trades past their taker lock (they watch the maker escrow too): where a taker may have revealed its
   * preimage, the escrows to read first when the chain answers again.
   */
  settlingTrades(): string[] {
    const ids: string[] = [];
    for (const [tradeId, watched] of this.byTrade) if (watched.escrows.length > 1) ids.push(tradeId);
    return ids;
  }

  /**
   * One tick's share of the safety-net sweep: everything when a full sweep is owed or pushes are not
   * flowing, else the slice that completes a pass every `sweepIntervalMs`.
   */
  async sweep(): Promise<void> {
    const feed = this.feed;
    if (feed && feed.generation !== this.feedGeneration && feed.live) {
      this.feedGeneration = feed.generation;
      this.sweepOwed = true; // pushes while the feed was down are lost
    }
    if (this.sweepOwed || !this.live) {
      this.sweepOwed = false;
      await this.checkAll([...this.byTrade.keys()]);
      return;
    }
    const share = Math.min(
      this.byTrade.size,
      Math.ceil((this.byTrade.size * this.options.tickMs) / this.options.sweepIntervalMs),
    );
    const slice = new Set<string>();
    for (let step = 0; slice.size < share && step <= 2 * share; step++) {
      this.sweepCursor ??= this.byTrade.keys();
      const next = this.sweepCursor.next();
      if (next.done) this.sweepCursor = null;
      else slice.add(next.value);
    }
    if (slice.size > 0) await this.check([...slice]);
  }

  /**
   * The watched escrows of these trades, read in one batch (trades not watched are left out), with the
   * chain time of that same (finalized) reading.
   */
  async read(tradeIds: readonly string[]): Promise<{ readings: Readings; now: number | null }> {
    const addresses = tradeIds.flatMap((id) => this.byTrade.get(id)?.escrows ?? []);
    if (addresses.length === 0) return { readings: new Map(), now: null };
    const { escrows, now } = await this.options.chain.readEscrowsAndClock(
      addresses.map((a) => publicKey(a)),
      'finalized',
    );
    this.options.clock.observe(Number(now));
    return {
      readings: new Map(addresses.map((address, i) => [address, escrows[i] ?? null])),
      now: Number(now),
    };
  }

  /**
   * check, batch after batch: for more trades than one read takes (a full sweep, trades taken over). Between
   * batches the loop serves what waits: the embedded chain answers without I/O, so a full sweep of 100,000
   * trades would otherwise hold it ~0.4 s in one piece (measured right after a restart).
   */
  async checkAll(tradeIds: readonly string[]): Promise<void> {
    for (let i = 0; i < tradeIds.length && !this.stopped; i += CHECK_BATCH) {
      if (i > 0) await nextTurn();
      await this.check(tradeIds.slice(i, i + CHECK_BATCH));
    }
  }

  /** Reads the trades' escrows in one batched read and delivers to each trade whose escrows changed. */
  async check(tradeIds: readonly string[]): Promise<void> {
    const entries = tradeIds.flatMap((id) => {
      const watched = this.byTrade.get(id);
      return watched ? [[id, watched] as const] : [];
    });
    if (entries.length === 0) return;
    const { readings } = await this.read(entries.map(([id]) => id));
    const changed = entries.filter(([, w]) => fingerprint(w.escrows, readings) !== w.seen).map(([id]) => id);
    await this.deliver(changed, readings);
  }

  /** Hands fresh readings to each trade (activating it), a few at a time. */
  async deliver(tradeIds: readonly string[], readings?: Readings): Promise<void> {
    for (let i = 0; i < tradeIds.length; i += DELIVER_CONCURRENCY) {
      await Promise.all(
        tradeIds
          .slice(i, i + DELIVER_CONCURRENCY)
          .map((tradeId) =>
            this.options.host
              .use(tradeId, (trade) => this.observe(trade, readings ? { readings } : {}))
              .catch((error: unknown) =>
                this.options.log.warn(
                  { trade_id: tradeId, err: (error as Error).message },
                  'chain observation failed',
                ),
              ),
          ),
      );
    }
  }

  /** Reads the escrows the trade waits on in its state that the readings lack. */
  private async readFor(
    trade: TradeHandle,
    readings: Map<string, EscrowState | null>,
    commitment: Commitment,
  ): Promise<void> {
    const wanted = watchedEscrows({
      watch:
        trade.status === 'pending' || trade.status === 'failed' ? WATCH_TAKER : WATCH_TAKER | WATCH_MAKER,
      takerEscrow: trade.meta.takerEscrow,
      makerEscrow: trade.meta.makerEscrow,
    });
    const missing = wanted.filter((address) => !readings.has(address));
    if (missing.length > 0) {
      const states = await this.options.chain.readEscrows(
        missing.map((a) => publicKey(a)),
        commitment,
      );
      for (const [i, address] of missing.entries()) readings.set(address, states[i] ?? null);
    }
  }

  /**
   * Reports what the chain shows of the trade's escrows to its actor, as chain facts (finalized on
   * clusters, unless `commitment` says otherwise). When everything it saw was absorbed, the trade's
   * fingerprint moves on, so the same state of the chain does not wake it again.
   */
  async observe(
    trade: TradeHandle,
    options: { readings?: Readings; commitment?: Commitment } = {},
  ): Promise<void> {
    if (trade.closed) return;
    const commitment = options.commitment ?? 'finalized';
    const readings = new Map(options.readings ?? []);
    let complete = true;
    // A fact can widen what the trade waits on (pending → initiated adds the maker escrow): look again.
    for (let round = 0; round < 3 && !trade.closed; round++) {
      const before = trade.status;
      await this.readFor(trade, readings, commitment);
      complete = (await this.report(trade, readings, commitment)) && complete;
      if (trade.status === before) break;
    }
    this.options.host.markObserved(trade);
    if (!complete || commitment !== 'finalized' || trade.closed) return;
    const watched = this.byTrade.get(trade.tradeId);
    if (!watched) return;
    const seen = fingerprint(watched.escrows, readings);
    if (seen.includes('?') || seen === watched.seen) return;
    watched.seen = seen;
    this.options.storeSeen(trade.tradeId, seen);
  }

  /**
   * A lock that came and went while no run watched: the escrow of an adopted pending trade that knows of no
   * lock is absent as its lock window ends, yet its history shows a lock that landed and was settled and
   * closed since (a lock sent just before the process died, then redeemed to the maker by the taker itself,
   * say). The facts of that lock, for the trade to take once it has failed at its deadline — as a late lock,
   * released (finding its escrow paid or returned) and never matched by a maker lock. Only adopted trades
   * are asked, once, at their deadline: while a run watches, the embedded chain names every escrow a
   * transaction wrote, and on a cluster the pushes (and the sweep behind them) see any lock that stays longer
   * than they take. One history read per adopted lockless trade is the whole cost.
   */
  async unseenLock(trade: TradeHandle, readings: Readings, now: number): Promise<ChainFact[]> {
    const { context } = trade;
    const { takerEscrow } = trade.meta;
    if (trade.status !== 'pending' || context.lockSignature !== null || context.adoptedAt === null) return [];
    if (now <= context.lockDeadline || !readings.has(takerEscrow) || readings.get(takerEscrow)) return [];
    const lock = await vanishedLock(this.options.chain, takerEscrow, 'finalized');
    if (lock === null) return [];
    return [
      { type: 'TAKER_LOCK_SEEN', signature: lock.signature },
      { type: 'TAKER_LOCK_FINALIZED', signature: lock.signature, terms: lock.terms },
    ];
  }

  /**
   * A trade riding on a confirmed taker lock: the lock the maker went on gone from the chain (a fork) is
   * reported with every recorded movement the chain no longer knows; the lock final, or (after a fork) a lock
   * final at the escrow's address again, is reported as final. Answers false when that could not be told yet.
   */
  private async reportConfirmedLock(
    trade: TradeHandle,
    taker: EscrowState | null,
    commitment: Commitment,
  ): Promise<boolean | null> {
    const { chain } = this.options;
    const { context } = trade;
    const lock = context.signatures.find((s) => s.kind === 'taker_lock');
    // Every recorded movement's status at once (one call): which the chain no longer knows, and the lock's.
    const states = lock
      ? await Promise.all(context.signatures.map((s) => chain.signatureState(s.signature)))
      : [];
    const dropped = context.signatures.filter((_, i) => states[i]?.status === 'unknown');
    if (dropped.some((s) => s.kind === 'taker_lock')) {
      trade.send({ type: 'TAKER_LOCK_ROLLED_BACK', dropped });
      return true;
    }
    if (commitment !== 'finalized' || taker === null) return true;
    let signature: string | null;
    if (lock === undefined) signature = await lockingSignature(chain, trade.meta.takerEscrow, 'finalized');
    else {
      const lockState = states[context.signatures.indexOf(lock)];
      signature = lockState?.status === 'finalized' ? lock.signature : null;
    }
    if (signature === null) return null;
    trade.send({
      type: 'TAKER_LOCK_FINALIZED',
      signature,
      terms: escrowLockTerms(trade.meta.takerEscrow, taker),
    });
    return true;
  }

  /**
   * The maker's lock counts as landed at confirmed, so until final a fork can take it back while the taker lock
   * stands: a waiting trade whose maker escrow is absent at finalized and whose lock the chain no longer knows
   * is told, and sends its kept lock again (trade.machine.ts). One signature status, and only in that gap.
   */
  private async reportMakerLockRolledBack(trade: TradeHandle): Promise<void> {
    if (substateOf(trade.snapshot) !== 'initiated.redeeming.makerLocked') return;
    const lock = trade.context.signatures.find((s) => s.kind === 'maker_lock');
    if (lock === undefined) return;
    if ((await this.options.chain.signatureState(lock.signature)).status !== 'unknown') return;
    trade.send({ type: 'MAKER_LOCK_ROLLED_BACK', signature: lock.signature });
  }

  /** Sends the facts the readings prove; false when something could not be resolved yet (look again). */
  private async report(trade: TradeHandle, readings: Readings, commitment: Commitment): Promise<boolean> {
    const finalView = commitment === 'finalized' || finalOnLanding(this.options.chain);
    const taker = readings.get(trade.meta.takerEscrow) ?? null;
    let complete = true;
    if (trade.status === 'pending' || trade.status === 'failed') {
      complete = await this.reportTakerLock(trade, taker, commitment);
    }
    if (trade.status === 'initiated' && trade.context.takerLockConfirmedOnly) {
      if ((await this.reportConfirmedLock(trade, taker, commitment)) === null) complete = false;
    }
    // What maker-escrow facts say is acted on from finalized readings only.
    if (trade.status !== 'initiated' || !finalView) return complete;
    return (await this.reportEscrows(trade, readings, commitment)) && complete;
  }

  /**
   * A pending or failed trade: its taker lock seen, final (or confirmed, for the commitment policy to decide),
   * dropped after its window, or its escrow's ending once it no longer holds the lock.
   */
  private async reportTakerLock(
    trade: TradeHandle,
    taker: EscrowState | null,
    commitment: Commitment,
  ): Promise<boolean> {
    const { chain } = this.options;
    const context = () => trade.context;
    const { takerEscrow } = trade.meta;
    if (taker) {
      let complete = true;
      const signature = context().lockSignature ?? (await lockingSignature(chain, takerEscrow, 'confirmed'));
      if (signature === null) complete = false;
      else {
        if (context().lockSignature === null) trade.send({ type: 'TAKER_LOCK_SEEN', signature });
        if (commitment === 'finalized' || finalOnLanding(chain)) {
          trade.send({ type: 'TAKER_LOCK_FINALIZED', signature, terms: escrowLockTerms(takerEscrow, taker) });
        } else if (trade.status === 'pending' && taker.status === 'locked' && this.options.confirmedLocks) {
          // The commitment policy decides (the machine asks the exposure book): on it at confirmed, or wait.
          await this.options.confirmedLocks.beforeConfirmedLock();
          trade.send({ type: 'TAKER_LOCK_CONFIRMED', signature, terms: escrowLockTerms(takerEscrow, taker) });
        }
      }
      if (taker.status !== 'locked' && takerEscrowHoldsFunds(context())) {
        complete = (await this.reportTakerEnding(trade, taker, commitment)) && complete;
      }
      return complete;
    }
    if (trade.status === 'pending' && context().lockSignature !== null) {
      // The program refuses any lock after the deadline: with the escrow absent at finalized, none can land.
      // Judged by the clock of that same finalized bank: a lock confirmed just before the deadline is absent
      // at finalized until finality catches up, while the confirmed clock is already past the deadline.
      const read = await chain.readEscrowsAndClock([publicKey(takerEscrow)], commitment);
      const now = Number(read.now);
      this.options.clock.observe(now);
      if (!read.escrows[0] && now > context().lockDeadline) trade.send({ type: 'TAKER_LOCK_DROPPED', now });
      return true;
    }
    if (trade.status === 'failed' && takerEscrowHoldsFunds(context())) {
      return this.reportTakerEnding(trade, null, commitment); // settled, then closed by the taker
    }
    return true;
  }

  /** How the taker escrow ended (paid to the maker, or back to the taker); false when not known yet. */
  private async reportTakerEnding(
    trade: TradeHandle,
    state: EscrowState | null,
    commitment: Commitment,
  ): Promise<boolean> {
    const ending = await escrowEnding(this.options.chain, takerEscrowTerms(trade.context), state, commitment);
    if (ending === null) return false;
    if (ending.kind === 'paid') trade.send({ type: 'TAKER_ESCROW_PAID', signature: ending.signature });
    else trade.send({ type: 'TAKER_ESCROW_REFUNDED', signature: ending.signature });
    return true;
  }

  /**
   * An initiated trade, from finalized readings: its maker lock taken back by a fork, the maker escrow paid to
   * the taker (the preimage revealed) or back with the maker, and the taker escrow's ending.
   */
  private async reportEscrows(
    trade: TradeHandle,
    readings: Readings,
    commitment: Commitment,
  ): Promise<boolean> {
    const { chain } = this.options;
    const context = () => trade.context;
    const taker = readings.get(trade.meta.takerEscrow) ?? null;
    const maker = readings.get(trade.meta.makerEscrow) ?? null;
    let complete = true;
    if (maker === null) await this.reportMakerLockRolledBack(trade);
    if (maker?.status === 'redeemed' && maker.preimage && !context().makerEscrowRedeemSeen) {
      const ours = context().signatures.find((s) => s.kind === 'taker_redeem')?.signature;
      const signature =
        ours ?? (await escrowEnding(chain, makerEscrowTerms(context()), maker, commitment))?.signature;
      if (signature === undefined) complete = false;
      else {
        trade.send({ type: 'MAKER_ESCROW_REDEEMED', signature, preimage: preimageFromBytes(maker.preimage) });
      }
    }
    if (
      trade.status === 'initiated' &&
      maker !== null &&
      (maker.status === 'refunded' || maker.status === 'cancelled') &&
      makerEscrowUnsettled(context())
    ) {
      const ending = await escrowEnding(chain, makerEscrowTerms(context()), maker, commitment);
      if (ending?.kind === 'returned') {
        trade.send({ type: 'MAKER_ESCROW_RETURNED', signature: ending.signature, how: ending.how });
      } else complete = false;
    }
    if (
      trade.status === 'initiated' &&
      takerEscrowHoldsFunds(context()) &&
      (taker === null || taker.status !== 'locked') &&
      hasSignature(context(), 'taker_lock')
    ) {
      complete = (await this.reportTakerEnding(trade, taker, commitment)) && complete;
    }
    return complete;
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
