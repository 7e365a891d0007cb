// The trade commands: settlement start (and its retry), lock, abandon, redeem, refund, resume, and the
// wallet-mode exits that need no actor. Each command that moves a trade runs on its actor through the
// host (activated if the trade is at rest) and answers once what it caused is durable; the machine event
// each sends is named on the command.
import {
  type CommandOutcome,
  commandOutcome,
  initialSnapshot,
  type TradeEvent,
  type TradeInput,
} from '../../machines/index.ts';
import {
  type ChainPort,
  isChainError,
  keyBase58,
  makerEscrowAddress,
  publicKey,
  takerEscrowAddress,
  type UnsignedTransaction,
} from '../chain/index.ts';
import { isFenced, type Ownership } from '../cluster/index.ts';
import type { Config } from '../config/index.ts';
import type { QuoteDesk } from '../quotes/index.ts';
import {
  type GroupCommit,
  StoreConflict,
  type TradeRecord,
  type TradesRepository,
  timeOrderedUuid,
} from '../store/index.ts';
import { bytesOf, type Hash32, hashOfPreimage, type Preimage, sameHash32 } from '../vocabulary/index.ts';
import type { ChainClock } from './clock.ts';
import { invalidInput, RuntimeError } from './errors.ts';
import type { TradeHandle, TradeHost } from './host.ts';
import { checkLockTransaction, issuedLockShape } from './lock-check.ts';
import type { TradeQueries, TradeReading } from './queries.ts';
import { advanceRead } from './scheduler.ts';
import { newTradeRecord, restColumns } from './trade-record.ts';
import type { ChainWatcher } from './watcher.ts';

export interface SettlementResult {
  created: boolean;
  trade: TradeReading;
  lock: UnsignedTransaction;
}

/** A quote as the desk finds it, with its state. */
type FoundQuote = NonNullable<Awaited<ReturnType<QuoteDesk['getQuote']>>>;

export interface CommandDeps {
  host: TradeHost;
  watcher: ChainWatcher;
  queries: TradeQueries;
  store: TradesRepository;
  durable: GroupCommit;
  chain: ChainPort;
  clock: ChainClock;
  /** The config sections commands read. */
  config: Pick<Config, 'reservations' | 'settlement'>;
  quotes: QuoteDesk;
  runId: string;
  /** Asked before resuming a trade another run's record names. */
  ownership: Pick<Ownership, 'acquire'>;
  /** How long POST /lock waits for the lock to appear on chain before answering lock_not_found. */
  lockWaitMs: number;
  pollIntervalMs: number;
  /** The commitment policy is on where finality lags: a lock is looked for at confirmed first. */
  confirmedLocks?: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Blockhashes of the locks this run issued, with their last valid block height (the newest this many). */
const ISSUED_BLOCKHASHES = 4_096;
/** Trades whose issued lock's shape this run remembers (the newest this many; older ones are rebuilt). */
const ISSUED_LOCKS = 4_096;

export class TradeCommands {
  /** Quotes and commitments being turned into trades this turn, before their write is durable. */
  private readonly startingQuotes = new Set<string>();
  private readonly startingHashes = new Set<string>();
  private readonly startingByWallet = new Map<string, number>();
  /**
   * The last valid block height of each blockhash a lock was issued with, so a lock handed back through
   * POST /lock is broadcast until exactly then (a lock issued by another instance is broadcast until its
   * lock window ends instead).
   */
  private readonly issuedBlockhashes = new Map<string, number>();
  /**
   * The shape (messageShape: the message with its blockhash blanked) of the lock handed out for each trade,
   * so the lock handed back is checked against it without building it again. A trade not here (started by
   * another instance or run, or pushed out) has its lock rebuilt from its terms: the same bytes, dearer.
   */
  private readonly issuedLocks = new Map<string, string>();

  constructor(private readonly deps: CommandDeps) {}

  /** Pending and initiated trades of a wallet, for its limit (including starts not yet durable). */
  async liveTradesOf(wallet: string): Promise<number> {
    const starting = this.startingByWallet.get(wallet) ?? 0;
    return (await this.deps.store.liveTradeCount(wallet)) + starting;
  }

  // ── Settlement start: a new trade, stored at rest (first event SETTLEMENT_STARTED) ──────────────

  async startSettlement(quoteId: string, takerWallet: string, secretHash: Hash32): Promise<SettlementResult> {
    const { store, quotes } = this.deps;
    const found = await quotes.getQuote(quoteId);
    if (!found) throw new RuntimeError('quote_not_found');
    // A trade marks its quote used in the transaction that creates it: an unused quote has none.
    const existing = found.state === 'used' ? await store.findTradeByQuote(quoteId) : undefined;
    if (existing) return this.retrySettlement(existing, takerWallet, secretHash);
    if (this.startingQuotes.has(quoteId)) throw new RuntimeError('quote_already_used');
    this.refuseStart(found, takerWallet, secretHash);
    this.claimStart(quoteId, takerWallet, secretHash);
    try {
      if (await store.findTradeBySecretHash(secretHash)) throw new RuntimeError('secret_hash_reused');
      const now = await this.chainNow();
      const input = this.tradeInput(found.quote, quoteId, takerWallet, secretHash, now);
      const lock = await this.buildLock(input);
      // Expired during the awaits? (Used it cannot be: the quote is claimed above.)
      if (found.quote.expiresAt.getTime() <= Date.now()) throw new RuntimeError('quote_expired');
      const { record, snapshot } = await this.createAtRest(input, takerWallet);
      quotes.releaseQuote(quoteId);
      const trade = await this.deps.queries.reading(record, snapshot, now, {
        entries: [],
        quote: found.record,
      });
      return { created: true, trade, lock };
    } finally {
      this.releaseStart(quoteId, takerWallet, secretHash);
    }
  }

  /** Why a new settlement of the quote may not start: the pair paused, another wallet, expired, a reused commitment. */
  private refuseStart(found: FoundQuote, takerWallet: string, secretHash: Hash32): void {
    // The operator's pause stops new settlement starts (a start repeated for its trade goes on).
    const pause = this.deps.quotes.pauseOf(found.quote.pair);
    if (pause !== null) {
      const { input, output } = found.quote.pair;
      throw new RuntimeError(
        'trading_paused',
        pause === 'desk'
          ? 'Trading is paused on the whole desk: no settlement starts until it is resumed.'
          : `The pair ${input.symbol}->${output.symbol} is paused: no settlement starts until it is resumed.`,
      );
    }
    if (found.takerWallet !== takerWallet) throw new RuntimeError('taker_wallet_mismatch');
    if (found.state === 'expired') throw new RuntimeError('quote_expired');
    if (this.startingHashes.has(secretHash)) throw new RuntimeError('secret_hash_reused');
  }

  /**
   * Claimed from here on: a concurrent start of the same quote or commitment in this process is refused. The
   * store has the last word (the quote's single use and the commitment's uniqueness are constraints, checked
   * again by the write that creates the trade: see StoreConflict).
   */
  private claimStart(quoteId: string, takerWallet: string, secretHash: Hash32): void {
    this.startingQuotes.add(quoteId);
    this.startingHashes.add(secretHash);
    this.startingByWallet.set(takerWallet, (this.startingByWallet.get(takerWallet) ?? 0) + 1);
  }

  private releaseStart(quoteId: string, takerWallet: string, secretHash: Hash32): void {
    this.startingQuotes.delete(quoteId);
    this.startingHashes.delete(secretHash);
    const left = (this.startingByWallet.get(takerWallet) ?? 1) - 1;
    if (left === 0) this.startingByWallet.delete(takerWallet);
    else this.startingByWallet.set(takerWallet, left);
  }

  /** The new trade's terms: the quote's, its escrows' addresses and its deadlines from the chain's clock now. */
  private tradeInput(
    quote: FoundQuote['quote'],
    quoteId: string,
    takerWallet: string,
    secretHash: Hash32,
    now: number,
  ): TradeInput {
    const { chain } = this.deps;
    const timing = this.deps.config.settlement;
    const taker = publicKey(takerWallet);
    const [takerEscrow] = takerEscrowAddress(chain.programId, taker, bytesOf(secretHash));
    const [makerEscrow] = makerEscrowAddress(chain.programId, takerEscrow);
    return {
      tradeId: timeOrderedUuid(),
      quoteId,
      runId: this.deps.runId,
      takerWallet,
      makerWallet: keyBase58(chain.makerWallet),
      secretHash,
      inputMint: quote.pair.input.mint,
      inputAmountRaw: quote.inputRaw.toString(),
      outputMint: quote.pair.output.mint,
      outputAmountRaw: quote.outputRaw.toString(),
      takerExpiry: now + timing.takerTimelockSeconds,
      lockDeadline: now + timing.lockWindowSeconds,
      takerEscrow: keyBase58(takerEscrow),
      makerEscrow: keyBase58(makerEscrow),
      // The pair's: a volatile pair may give its takers a shorter redeem window (a shorter option).
      makerTimelock: quote.pair.makerTimelockSeconds,
      safetyMargin: timing.safetyMarginSeconds,
      minRedeemWindow: timing.minRedeemWindowSeconds,
      landingMargin: timing.landingMarginSeconds,
      // The quote's plan for the output its free inventory did not cover, bought just in time.
      sourcing: quote.sourcing,
    };
  }

  /**
   * The trade is born at rest: its first snapshot is computed, stored with SETTLEMENT_STARTED, and no actor is
   * made. A store that refuses it answers as the refusal a client can act on.
   */
  private async createAtRest(input: TradeInput, takerWallet: string) {
    const { config, quotes } = this.deps;
    const snapshot = initialSnapshot(input);
    const rest = restColumns(snapshot, {
      lockWindowSeconds: config.settlement.lockWindowSeconds,
      lockLandingSeconds: config.reservations.lockLandingSeconds,
    });
    const at = new Date().toISOString();
    const record = newTradeRecord(input, snapshot, rest, at);
    const event = this.deps.host.eventRecord(
      record.tradeId,
      'SETTLEMENT_STARTED',
      rest,
      { quote_id: input.quoteId },
      at,
    );
    // Until its lock lands, the trade's hold counts against whoever held the quote.
    quotes.handOver(input.quoteId, record.tradeId, takerWallet);
    try {
      await this.deps.host.create(record, snapshot, event);
    } catch (error) {
      // This run lost its trades (it stops now): nothing was stored, and another instance serves a retry.
      if (isFenced(error)) {
        throw new RuntimeError('runtime_unavailable', 'This instance no longer holds its lease; retry.');
      }
      if (error instanceof StoreConflict) {
        // Another start (another request, or another instance) took the quote or the commitment first.
        throw new RuntimeError(error.conflict === 'quote_used' ? 'quote_already_used' : 'secret_hash_reused');
      }
      throw error;
    }
    return { record, snapshot };
  }

  /** The same wallet and commitment again, while pending and in the lock window: a fresh lock. */
  private async retrySettlement(existing: TradeRecord, takerWallet: string, secretHash: Hash32) {
    const sameCommitment =
      existing.takerWallet === takerWallet && sameHash32(existing.secretHash, secretHash);
    if (!sameCommitment) {
      const quote = await this.deps.quotes.getQuote(existing.quoteId);
      if (quote && quote.takerWallet !== takerWallet) throw new RuntimeError('taker_wallet_mismatch');
      throw new RuntimeError('quote_already_used');
    }
    const { snapshot, record } = await this.deps.queries.current(existing.tradeId);
    const now = await this.chainNow();
    // A usable lock for a trade that left pending (or whose window closed) is never handed out.
    if (record.status !== 'pending' || now > snapshot.context.lockDeadline) {
      throw new RuntimeError('lock_window_closed');
    }
    const lock = await this.buildLock(snapshot.context);
    return { created: false, trade: await this.deps.queries.reading(record, snapshot), lock };
  }

  private async buildLock(input: TradeInput): Promise<UnsignedTransaction> {
    const lock = await this.chainCall(() =>
      this.deps.chain.buildTakerLock({
        taker: publicKey(input.takerWallet),
        inputMint: publicKey(input.inputMint),
        outputMint: publicKey(input.outputMint),
        amount: BigInt(input.inputAmountRaw),
        hashlock: bytesOf(input.secretHash),
        expiry: BigInt(input.takerExpiry),
        lockDeadline: BigInt(input.lockDeadline),
      }),
    );
    const issued = this.issuedBlockhashes;
    if (!issued.has(lock.recentBlockhash)) {
      if (issued.size >= ISSUED_BLOCKHASHES) issued.delete(issued.keys().next().value as string);
      issued.set(lock.recentBlockhash, lock.lastValidBlockHeight);
    }
    const shape = issuedLockShape(lock.transactionBase64);
    if (shape !== null) {
      const locks = this.issuedLocks;
      locks.delete(input.tradeId);
      if (locks.size >= ISSUED_LOCKS) locks.delete(locks.keys().next().value as string);
      locks.set(input.tradeId, shape);
    }
    return lock;
  }

  // ── Commands on a trade ────────────────────────────────────────────────────────────────────────

  /**
   * LOCK_SUBMITTED: the wallet-signed lock (or the signature of one the wallet sent itself), then
   * TAKER_LOCK_SEEN / TAKER_LOCK_FINALIZED once the escrow is read on chain. Signed bytes that are not the
   * lock handed out for this trade (lock_mismatch: another instruction, account, amount, fee payer, a lookup
   * table…) are refused before anything is sent or stored. A lock the chain refuses changes nothing. One
   * the chain could not be asked about (unreachable, or a reply lost) is held all the same: it may have
   * landed or may still land, so from then on a lock signature exists, and the trade broadcasts the bytes
   * until they land or can no longer land. The same bytes posted again are broadcast
   * once more at once. A crash between sending and recording loses nothing: the escrow on chain is what the
   * runtime watches. The answer waits (a bounded wait) for the lock on chain, through failed reads.
   */
  async submitLock(
    tradeId: string,
    body: { transactionBase64?: string; signature?: string },
  ): Promise<TradeReading> {
    await this.deps.host.use(tradeId, async (trade) => {
      const { context } = trade;
      const transaction = body.transactionBase64 ?? null;
      const checked =
        transaction !== null
          ? checkLockTransaction(
              context,
              transaction,
              this.deps.chain.programId,
              this.issuedLocks.get(context.tradeId),
            )
          : null;
      const signature = checked?.signature ?? (body.signature as string);
      const command = {
        type: 'LOCK_SUBMITTED' as const,
        signature,
        lastValidBlockHeight: checked ? (this.issuedBlockhashes.get(checked.recentBlockhash) ?? null) : null,
        transactionBase64: transaction,
      };
      const outcome = commandOutcome(trade.snapshot, command);
      if (outcome.outcome === 'refuse') {
        // A lock already on chain under another signature: the trade moved on; show it as it is.
        if (context.takerLockTerms !== null && outcome.code === 'lock_window_closed') {
          throw new RuntimeError('lock_signature_exists');
        }
        throw new RuntimeError(outcome.code);
      }
      if (outcome.outcome === 'accept') {
        // The program refuses a late lock anyway: without the chain's clock, the last estimate decides.
        const now = await this.deps.clock.read().catch(() => this.deps.clock.estimate());
        if (now > context.lockDeadline) throw new RuntimeError('lock_window_closed');
        if (transaction !== null) await this.submitTakerLock(transaction);
        else await this.awaitTakerLockTransaction(trade, signature);
        trade.send(command);
      } else if (transaction !== null && trade.status === 'pending') {
        // The same bytes again: the taker's retry is a reason to broadcast them now (a send may have been lost).
        await this.deps.chain.send({ transactionBase64: transaction }).catch(() => undefined);
      }
      if (trade.status === 'pending') await this.awaitLockOnChain(trade);
    });
    return this.deps.queries.trade(tradeId);
  }

  /**
   * Reads the trade's escrow until its lock is on chain or the bounded wait is over (lock_not_found: retry).
   * A read that fails is tried again while the wait lasts; only when none answered is it chain_unavailable.
   */
  private async awaitLockOnChain(trade: TradeHandle): Promise<void> {
    const deadline = Date.now() + this.deps.lockWaitMs;
    let answered = false;
    while (trade.status === 'pending' && Date.now() < deadline) {
      try {
        // At confirmed first: a trade the commitment policy admits goes on at once.
        if (this.deps.confirmedLocks) await this.deps.watcher.observe(trade, { commitment: 'confirmed' });
        if (trade.status === 'pending') await this.deps.watcher.observe(trade);
        answered = true;
      } catch (error) {
        if (!isChainError(error, 'unavailable')) throw error;
      }
      if (trade.status !== 'pending') return;
      await sleep(Math.min(this.deps.pollIntervalMs, 250));
    }
    if (trade.status === 'pending') throw new RuntimeError(answered ? 'lock_not_found' : 'chain_unavailable');
  }

  /** Sends the wallet-signed lock once; the trade broadcasts it again until it lands (broadcastingLock). */
  private async submitTakerLock(transaction: string): Promise<void> {
    try {
      await this.deps.chain.submitSigned(transaction);
    } catch (error) {
      // A lock of this escrow already on chain (this one, or one the wallet sent itself) is what we wait for.
      if (isChainError(error) && error.htlcError === 'EscrowAlreadyExists') return;
      if (isChainError(error)) {
        // Not refused, only not known to have arrived: held and broadcast again by the trade.
        if (error.code === 'unavailable') return;
        if (error.htlcError === 'LockDeadlinePassed') throw new RuntimeError('lock_window_closed');
        throw invalidInput('transaction', error.message, `The chain refused the lock: ${error.message}`);
      }
      throw error;
    }
  }

  /** A lock the wallet sent itself: it counts once the chain knows it, and only if it touched this escrow. */
  private async awaitTakerLockTransaction(trade: TradeHandle, signature: string): Promise<void> {
    const deadline = Date.now() + this.deps.lockWaitMs;
    let answered = false;
    for (;;) {
      const tx = await this.deps.chain.getTransaction(signature, 'confirmed').then(
        (found) => {
          answered = true;
          return found;
        },
        (error: unknown) => {
          if (isChainError(error, 'unavailable')) return null;
          throw error;
        },
      );
      if (tx) {
        if (!tx.accountKeys.includes(trade.meta.takerEscrow)) {
          throw invalidInput(
            'signature',
            'does not touch the trade’s taker escrow',
            'The transaction does not lock this trade’s escrow.',
          );
        }
        if (tx.err !== null) {
          throw invalidInput('signature', `failed with ${tx.err}`, `The lock failed on chain: ${tx.err}.`);
        }
        return;
      }
      if (Date.now() >= deadline) throw new RuntimeError(answered ? 'lock_not_found' : 'chain_unavailable');
      await sleep(Math.min(this.deps.pollIntervalMs, 250));
    }
  }

  /** ABANDON, after the chain was read for a lock ("a lock signature exists" includes one seen on chain). */
  async abandon(tradeId: string, secretHash: Hash32): Promise<TradeReading> {
    await this.deps.host.use(tradeId, async (trade) => {
      const command = { type: 'ABANDON' as const, secretHash };
      // A wrong commitment is answered before the chain is read: it must not cost a chain read.
      const first = commandOutcome(trade.snapshot, command);
      if (first.outcome === 'refuse' && first.code === 'secret_hash_mismatch')
        throw new RuntimeError(first.code);
      if (trade.status === 'pending') {
        await this.chainCall(() => this.deps.watcher.observe(trade, { commitment: 'confirmed' }));
      }
      // Abandoned before, with this commitment (checked above): a replay.
      if (trade.context.abandonedWith !== null) return;
      // The machine's guard decides (the chain may have shown a lock meanwhile); a refusal is asked why.
      if (first.outcome === 'accept') trade.send(command);
      if (trade.context.abandonedWith === null)
        this.run(trade, command, commandOutcome(trade.snapshot, command));
    });
    return this.deps.queries.trade(tradeId);
  }

  /** REDEEM_REQUESTED: the service redeems the maker escrow for the taker with its preimage. */
  async redeem(tradeId: string, preimage: Preimage): Promise<TradeReading> {
    await this.deps.host.use(tradeId, async (trade) => {
      const now = Number(await this.chainCall(() => this.deps.clock.read()));
      const command = {
        type: 'REDEEM_REQUESTED' as const,
        preimage,
        preimageHash: hashOfPreimage(preimage),
        now,
      };
      this.run(trade, command, commandOutcome(trade.snapshot, command));
    });
    return this.deps.queries.trade(tradeId);
  }

  /** REFUND_REQUESTED, after the chain was read (a refund by the taker itself is a fact, not a command). */
  async refund(tradeId: string): Promise<TradeReading> {
    await this.deps.host.use(tradeId, async (trade) => {
      if (!trade.closed) await this.chainCall(() => this.deps.watcher.observe(trade));
      const now = Number(await this.chainCall(() => this.deps.clock.read()));
      const command = { type: 'REFUND_REQUESTED' as const, now };
      this.run(trade, command, commandOutcome(trade.snapshot, command));
    });
    return this.deps.queries.trade(tradeId);
  }

  private run(trade: TradeHandle, command: TradeEvent, outcome: CommandOutcome): void {
    if (outcome.outcome === 'refuse') throw new RuntimeError(outcome.code);
    if (outcome.outcome === 'accept') trade.send(command);
  }

  /**
   * Reconciles a trade with the chain now (and takes it up again after a write of it failed, or from a gone
   * owner); idempotent. Never needed after an outage: the run acts on every trade once the chain answers.
   */
  async resume(tradeId: string): Promise<TradeReading> {
    const { store, host, runId } = this.deps;
    const record = await store.getTrade(tradeId);
    if (!record) throw new RuntimeError('trade_not_found');
    await host.retake(tradeId);
    if (record.closed) return this.deps.queries.trade(tradeId);
    // Another live instance's trade is resumed there (TradeOwnedElsewhere); a gone owner's is taken here.
    if (record.ownerRunId !== runId) await this.deps.ownership.acquire(tradeId);
    const { watcher, clock } = this.deps;
    // Read before the trade is touched: while the chain cannot be reached, resuming changes nothing.
    const now = await this.chainCall(() => clock.read());
    await host.use(tradeId, async (trade) => {
      // One reading of the escrows, observed and then judged at the deadline, as the scheduler does.
      const { readings, now: readAt } = await this.chainCall(() => watcher.read([tradeId]));
      await this.chainCall(() => watcher.observe(trade, { readings }));
      await this.chainCall(() => advanceRead(trade, watcher, readings, Math.min(now, readAt ?? now)));
    });
    return this.deps.queries.trade(tradeId);
  }

  // ── Wallet mode: unsigned exits that need no actor, nor the service to act ───────────────────────

  async walletRedeem(
    tradeId: string,
    preimage: Preimage,
  ): Promise<{ trade: TradeReading; transaction: UnsignedTransaction }> {
    const { context, trade } = await this.deps.queries.stored(tradeId);
    if (!sameHash32(hashOfPreimage(preimage), context.secretHash))
      throw new RuntimeError('preimage_mismatch');
    const { chain } = this.deps;
    const [maker, now] = await Promise.all([
      this.chainCall(() => chain.readEscrow(publicKey(context.makerEscrow), 'confirmed')),
      this.chainCall(() => chain.now()),
    ]);
    if (maker?.status !== 'locked' || Number(now) >= Number(maker.expiry))
      throw new RuntimeError('not_redeemable');
    const transaction = await this.chainCall(() =>
      chain.buildTakerRedeem({
        taker: publicKey(context.takerWallet),
        takerEscrow: publicKey(context.takerEscrow),
        outputMint: publicKey(context.outputMint),
        preimage: bytesOf(preimage),
      }),
    );
    return { trade, transaction };
  }

  async walletRefund(tradeId: string): Promise<{ trade: TradeReading; transaction: UnsignedTransaction }> {
    const { context, trade } = await this.deps.queries.stored(tradeId);
    const { chain } = this.deps;
    const [taker, now] = await Promise.all([
      this.chainCall(() => chain.readEscrow(publicKey(context.takerEscrow), 'confirmed')),
      this.chainCall(() => chain.now()),
    ]);
    if (taker?.status !== 'locked' || Number(now) < Number(taker.expiry))
      throw new RuntimeError('not_refundable');
    const transaction = await this.chainCall(() =>
      chain.buildTakerRefund({
        taker: publicKey(context.takerWallet),
        takerEscrow: publicKey(context.takerEscrow),
        inputMint: publicKey(context.inputMint),
      }),
    );
    return { trade, transaction };
  }

  // ── Plumbing ───────────────────────────────────────────────────────────────────────────────────

  /** Chain time for a new trade's expiries: read on the embedded chain; on a cluster a second-old reading will do. */
  private async chainNow(): Promise<number> {
    const { clock, chain } = this.deps;
    const recent = chain.kind === 'rpc' ? clock.fresh(1_000) : null;
    return recent !== null ? clock.estimate() : this.chainCall(() => clock.read());
  }

  private async chainCall<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (isChainError(error, 'unavailable')) throw new RuntimeError('chain_unavailable');
      throw error;
    }
  }
}
