// The run supervisor: owns one XState actor per live trade of this run, routes commands to them, persists
// every transition (snapshot, event, ledger entries) in one store transaction before the caller answers,
// watches the chain for the facts the machines wait on, wakes trades at their deadlines, and on start adopts
// every trade an earlier run left unclosed.
import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { type Actor, type AnyEventObject, createActor, type Snapshot } from 'xstate';
import {
  type CommandOutcome,
  commandOutcome,
  isClosed,
  isFinalStatus,
  nextDeadline,
  settlementStatusOf,
  substateOf,
  type TakerLockTerms,
  TRADE_MACHINE_VERSION,
  type TradeContext,
  type TradeEvent,
  type TradeInput,
  timingSafeEqualHex,
  tradeMachine,
} from '../../machines/index.ts';
import {
  type ChainPort,
  type EscrowState,
  inspectTransaction,
  isChainError,
  makerEscrowAddress,
  takerEscrowAddress,
  type UnsignedTransaction,
} from '../chain/index.ts';
import type { Config } from '../config/index.ts';
import { ApiError, type ErrorCode } from '../http/errors.ts';
import {
  type AssetPricing,
  type LedgerEntry,
  type LedgerSummary,
  postMovement,
  postNetworkFee,
  summarize,
} from '../ledger/index.ts';
import { type Price, parsePrice } from '../money/index.ts';
import type { QuoteDesk } from '../quotes/index.ts';
import type { NewTradeEvent, Store, TradeEventRecord, TradeFilter, TradeRecord } from '../store/index.ts';
import type { SettlementStatus, TradeSignatureKind } from '../vocabulary/index.ts';
import { chainEffects } from './effects.ts';
import { renderTrade, type TradeView } from './trade-view.ts';

export interface RuntimeLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface RuntimeOptions {
  store: Store;
  chain: ChainPort;
  config: Config;
  quotes: QuoteDesk;
  runId: string;
  log: RuntimeLogger;
  /** How often the chain is read for every live trade, and deadlines checked. */
  pollIntervalMs?: number;
  /** How long POST /lock waits for the lock to appear on chain before answering lock_not_found. */
  lockWaitMs?: number;
  landTimeoutMs?: number;
}

type TradeActor = Actor<typeof tradeMachine>;
type PersistedTrade = { value: TradeSnapshotValue; context: TradeContext };
type TradeSnapshotValue = Parameters<typeof settlementStatusOf>[0]['value'];

interface LiveTrade {
  /** null for a closed trade read from the store: it can answer replays and refusals, never transition. */
  actor: TradeActor | null;
  record: TradeRecord;
  /** JSON of the last persisted snapshot: a transition that changes nothing is not written again. */
  persistedJson: string;
  persisted: PersistedTrade;
  /** Set when persisting failed: the trade answers 503 until resumed. */
  broken: string | null;
}

export interface SettlementResult {
  created: boolean;
  trade: TradeView;
  lock: UnsignedTransaction;
}

const SIGNATURE_MOVEMENT: Partial<Record<TradeSignatureKind, 'input' | 'output'>> = {
  taker_lock: 'input',
  maker_redeem: 'input',
  taker_refund: 'input',
  maker_lock: 'output',
  taker_redeem: 'output',
  maker_refund: 'output',
};

const SECRET_KEYS = new Set(['secretHash', 'preimage', 'preimageHash', 'transactionBase64']);

/** An event as the runtime log shows it: never the commitment, a preimage or a signed transaction. */
export function eventPayload(event: AnyEventObject): Record<string, unknown> {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([k]) => !SECRET_KEYS.has(k))
          .map(([k, v]) => [k, strip(v)]),
      );
    }
    return value;
  };
  const { type: _type, ...rest } = event;
  return strip(rest) as Record<string, unknown>;
}

export class TradeRuntime {
  private readonly live = new Map<string, LiveTrade>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly fees = new Map<string, bigint>();
  private readonly eventListeners = new Set<() => void>();
  private readonly pollIntervalMs: number;
  private readonly lockWaitMs: number;
  private readonly effects;
  private readonly usdcUsd: Price;
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  private stopped = false;
  private lastChainNow = 0;

  constructor(private readonly options: RuntimeOptions) {
    this.pollIntervalMs = options.pollIntervalMs ?? (options.chain.kind === 'embedded' ? 250 : 2_000);
    this.lockWaitMs = options.lockWaitMs ?? (options.chain.kind === 'embedded' ? 3_000 : 45_000);
    const usdc = options.config.assets.find('USDC');
    this.usdcUsd = (usdc && options.config.prices.get(usdc.mint)?.usd) ?? { num: 1n, den: 1n };
    this.effects = chainEffects(options.chain, {
      recordIntent: (tradeId, kind, signature) => this.recordIntent(tradeId, kind, signature),
      recordFee: (signature, lamports) => this.fees.set(signature, lamports),
      minRedeemWindowSeconds: options.config.settlement.minRedeemWindowSeconds,
      landTimeoutMs: options.landTimeoutMs ?? (options.chain.kind === 'embedded' ? 5_000 : 90_000),
    });
    options.quotes.setExposure({ liveTradesOf: (wallet) => this.liveTradesOf(wallet) });
  }

  get runId(): string {
    return this.options.runId;
  }

  /** Called after new events reach the store (for live streams); returns the unsubscribe function. */
  onEvents(listener: () => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  private eventsStored(): void {
    for (const listener of this.eventListeners) {
      try {
        listener();
      } catch (error) {
        this.options.log.warn({ err: (error as Error).message }, 'event listener failed');
      }
    }
  }

  /** Adopts every unclosed trade of earlier runs, then starts watching the chain. */
  async start(): Promise<void> {
    for (const record of this.options.store.unclosedTrades()) {
      await this.adopt(record);
    }
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.locks.values()]);
    for (const trade of this.live.values()) trade.actor?.stop();
    this.live.clear();
  }

  // ── Settlement start ──────────────────────────────────────────────────────────────────────────

  async startSettlement(
    quoteId: string,
    takerWallet: string,
    secretHashHex: string,
  ): Promise<SettlementResult> {
    const { store, quotes, chain, config } = this.options;
    const secretHash = secretHashHex.toLowerCase();
    const found = quotes.getQuote(quoteId);
    if (!found) throw new ApiError('quote_not_found');

    const existing = store.findTradeByQuote(quoteId);
    if (existing) return this.retrySettlement(existing, takerWallet, secretHash);
    if (found.takerWallet !== takerWallet) throw new ApiError('taker_wallet_mismatch');
    if (found.state === 'expired') throw new ApiError('quote_expired');
    if (store.findTradeBySecretHash(secretHash)) throw new ApiError('secret_hash_reused');

    const { quote } = found;
    const timing = config.settlement;
    const now = Number(await this.chainCall(() => chain.now()));
    const taker = new PublicKey(takerWallet);
    const hashlock = Uint8Array.from(Buffer.from(secretHash, 'hex'));
    const [takerEscrow] = takerEscrowAddress(chain.programId, taker, hashlock);
    const [makerEscrow] = makerEscrowAddress(chain.programId, takerEscrow);
    const input: TradeInput = {
      tradeId: crypto.randomUUID(),
      quoteId,
      runId: this.runId,
      takerWallet,
      makerWallet: chain.makerWallet.toBase58(),
      secretHash,
      inputMint: quote.pair.input.mint,
      inputAmountRaw: quote.inputRaw.toString(),
      outputMint: quote.pair.output.mint,
      outputAmountRaw: quote.outputRaw.toString(),
      takerExpiry: now + timing.takerTimelockSeconds,
      lockDeadline: now + timing.lockWindowSeconds,
      takerEscrow: takerEscrow.toBase58(),
      makerEscrow: makerEscrow.toBase58(),
      makerTimelock: timing.makerTimelockSeconds,
      safetyMargin: timing.safetyMarginSeconds,
      minRedeemWindow: timing.minRedeemWindowSeconds,
      landingMargin: timing.landingMarginSeconds,
    };
    const lock = await this.buildLock(input);

    // Re-checked after the awaits: another settlement may have taken the quote or the hash meanwhile.
    if (store.findTradeByQuote(quoteId)) throw new ApiError('quote_already_used');
    if (store.findTradeBySecretHash(secretHash)) throw new ApiError('secret_hash_reused');
    if (quotes.getQuote(quoteId)?.state !== 'open') throw new ApiError('quote_expired');

    const actor = this.createTradeActor({ input });
    const snapshot = actor.getPersistedSnapshot() as unknown as PersistedTrade;
    const at = new Date().toISOString();
    const record: TradeRecord = {
      tradeId: input.tradeId,
      quoteId,
      runId: this.runId,
      ownerRunId: this.runId,
      takerWallet,
      secretHash,
      createdAt: at,
      updatedAt: at,
      status: 'pending',
      substate: substateOf(snapshot),
      closed: false,
      nextDeadline: nextDeadline(snapshot),
      machineVersion: TRADE_MACHINE_VERSION,
      snapshot: JSON.stringify(snapshot),
      adoptionError: null,
    };
    store.createTrade(record, this.event(record, 'SETTLEMENT_STARTED', snapshot, { quote_id: quoteId }));
    this.eventsStored();
    quotes.releaseQuote(quoteId);
    this.register(actor, record, snapshot);
    this.holdReservation(snapshot);
    return { created: true, trade: this.view(input.tradeId), lock };
  }

  private async retrySettlement(existing: TradeRecord, takerWallet: string, secretHash: string) {
    const sameCommitment =
      existing.takerWallet === takerWallet && timingSafeEqualHex(existing.secretHash, secretHash);
    if (!sameCommitment) {
      const quote = this.options.quotes.getQuote(existing.quoteId);
      if (quote && quote.takerWallet !== takerWallet) throw new ApiError('taker_wallet_mismatch');
      throw new ApiError('quote_already_used');
    }
    return this.withTrade(existing.tradeId, async (trade) => {
      const now = Number(await this.chainCall(() => this.options.chain.now()));
      const { context } = trade.persisted;
      // A usable lock for a trade that left pending (or whose window closed) is never handed out.
      if (settlementStatusOf(trade.persisted) !== 'pending' || now > context.lockDeadline) {
        throw new ApiError('lock_window_closed');
      }
      const lock = await this.buildLock(context);
      return { created: false, trade: this.view(context.tradeId), lock };
    });
  }

  private buildLock(input: TradeInput): Promise<UnsignedTransaction> {
    return this.chainCall(() =>
      this.options.chain.buildTakerLock({
        taker: new PublicKey(input.takerWallet),
        inputMint: new PublicKey(input.inputMint),
        outputMint: new PublicKey(input.outputMint),
        amount: BigInt(input.inputAmountRaw),
        hashlock: Uint8Array.from(Buffer.from(input.secretHash, 'hex')),
        expiry: BigInt(input.takerExpiry),
        lockDeadline: BigInt(input.lockDeadline),
      }),
    );
  }

  // ── Commands ──────────────────────────────────────────────────────────────────────────────────

  /**
   * The wallet-signed lock (or the signature of one the wallet sent itself). The lock signature is recorded
   * only once the chain has taken the transaction: a lock the chain refuses changes nothing, and a crash
   * between sending and recording loses nothing, since the escrow on chain is what the runtime watches.
   */
  async submitLock(
    tradeId: string,
    body: { transactionBase64?: string; signature?: string },
  ): Promise<TradeView> {
    return this.withTrade(tradeId, async (trade) => {
      const { chain } = this.options;
      const { context } = trade.persisted;
      const transaction = body.transactionBase64 ?? null;
      const signature =
        transaction !== null ? this.checkLockTransaction(context, transaction) : (body.signature as string);
      const outcome = commandOutcome(trade.persisted, {
        type: 'LOCK_SUBMITTED',
        signature,
        lastValidBlockHeight: null,
      });
      if (outcome.outcome === 'refuse') {
        // A lock already on chain under another signature: the trade moved on; show it as it is.
        if (context.takerLockTerms !== null && outcome.code === 'lock_window_closed') {
          throw new ApiError('lock_signature_exists');
        }
        throw new ApiError(outcome.code);
      }
      if (outcome.outcome === 'accept') {
        const now = Number(await this.chainCall(() => chain.now()));
        if (now > context.lockDeadline) throw new ApiError('lock_window_closed');
        if (transaction !== null) await this.submitTakerLock(transaction);
        else await this.awaitTakerLockTransaction(context, signature);
        this.send(trade, { type: 'LOCK_SUBMITTED', signature, lastValidBlockHeight: null });
      }
      if (settlementStatusOf(trade.persisted) === 'pending') {
        const deadline = Date.now() + this.lockWaitMs;
        while (settlementStatusOf(trade.persisted) === 'pending' && Date.now() < deadline) {
          await this.observe(trade);
          if (settlementStatusOf(trade.persisted) !== 'pending') break;
          await sleep(Math.min(this.pollIntervalMs, 250));
        }
        if (settlementStatusOf(trade.persisted) === 'pending') throw new ApiError('lock_not_found');
      }
      return this.view(tradeId);
    });
  }

  private async submitTakerLock(transaction: string): Promise<void> {
    try {
      await this.options.chain.submitSigned(transaction);
    } catch (error) {
      // A lock of this escrow already on chain (this one, or one the wallet sent itself) is what we wait for.
      if (!(isChainError(error) && error.htlcError === 'EscrowAlreadyExists')) this.rethrowLockError(error);
    }
  }

  /** A lock the wallet sent itself: it counts once the chain knows it, and only if it touched this escrow. */
  private async awaitTakerLockTransaction(context: TradeContext, signature: string): Promise<void> {
    const deadline = Date.now() + this.lockWaitMs;
    for (;;) {
      const tx = await this.chainCall(() => this.options.chain.getTransaction(signature, 'confirmed'));
      if (tx) {
        if (!tx.accountKeys.includes(context.takerEscrow)) {
          throw new ApiError('validation_failed', 'The transaction does not lock this trade’s escrow.', [
            'body.signature: does not touch the trade’s taker escrow',
          ]);
        }
        if (tx.err !== null) {
          throw new ApiError('validation_failed', `The lock failed on chain: ${tx.err}.`, [
            `body.signature: failed with ${tx.err}`,
          ]);
        }
        return;
      }
      if (Date.now() >= deadline) throw new ApiError('lock_not_found');
      await sleep(Math.min(this.pollIntervalMs, 250));
    }
  }

  /**
   * The wallet-signed lock must carry the taker's signature and lock this trade's escrow with exactly the
   * agreed terms; anything else is refused before it is submitted. (Wallets may add other instructions.)
   */
  private checkLockTransaction(context: TradeContext, transactionBase64: string): string {
    let inspection: ReturnType<typeof inspectTransaction>;
    try {
      inspection = inspectTransaction(transactionBase64, this.options.chain.programId);
    } catch (error) {
      throw new ApiError('validation_failed', 'transaction_base64 is not a Solana transaction.', [
        `body.transaction_base64: ${(error as Error).message}`,
      ]);
    }
    const refuse = (problem: string): never => {
      throw new ApiError('validation_failed', `The transaction ${problem}.`, [
        `body.transaction_base64: ${problem}`,
      ]);
    };
    const signed = inspection.signedBy.some((key) => key.toBase58() === context.takerWallet);
    if (!signed || inspection.signature === null) refuse('is not signed by taker_wallet');
    const lock = inspection.locks.find((l) => l.escrow.toBase58() === context.takerEscrow);
    if (!lock || inspection.locks.length !== 1) refuse('does not lock this trade’s escrow');
    const agreed =
      lock?.kind === 'taker' &&
      lock.initializer.toBase58() === context.takerWallet &&
      lock.recipient.toBase58() === context.makerWallet &&
      lock.mint.toBase58() === context.inputMint &&
      lock.amount === BigInt(context.inputAmountRaw) &&
      Buffer.from(lock.hashlock).toString('hex') === context.secretHash &&
      lock.expiry === BigInt(context.takerExpiry) &&
      lock.lockDeadline === BigInt(context.lockDeadline);
    if (!agreed) refuse('locks this trade’s escrow with other terms than agreed');
    return inspection.signature as string;
  }

  private rethrowLockError(error: unknown): never {
    if (isChainError(error)) {
      if (error.code === 'unavailable') throw new ApiError('chain_unavailable');
      if (error.htlcError === 'LockDeadlinePassed') throw new ApiError('lock_window_closed');
      throw new ApiError('validation_failed', `The chain refused the lock: ${error.message}`, [
        `body.transaction_base64: ${error.message}`,
      ]);
    }
    throw error;
  }

  async abandon(tradeId: string, secretHashHex: string): Promise<TradeView> {
    return this.withTrade(tradeId, async (trade) => {
      const command = { type: 'ABANDON' as const, secretHash: secretHashHex };
      const first = commandOutcome(trade.persisted, command);
      if (first.outcome === 'refuse' && first.code === 'secret_hash_mismatch') throw new ApiError(first.code);
      // "A lock signature exists" includes a lock seen on chain: read the chain before answering.
      if (settlementStatusOf(trade.persisted) === 'pending') await this.observe(trade, 'confirmed');
      return this.runCommand(trade, command, commandOutcome(trade.persisted, command));
    });
  }

  async redeem(tradeId: string, preimageHex: string): Promise<TradeView> {
    return this.withTrade(tradeId, async (trade) => {
      const now = Number(await this.chainCall(() => this.options.chain.now()));
      const preimageHash = sha256Hex(preimageHex);
      const command = {
        type: 'REDEEM_REQUESTED' as const,
        preimage: preimageHex.toLowerCase(),
        preimageHash,
        now,
      };
      return this.runCommand(trade, command, commandOutcome(trade.persisted, command));
    });
  }

  async refund(tradeId: string): Promise<TradeView> {
    return this.withTrade(tradeId, async (trade) => {
      await this.observe(trade);
      const now = Number(await this.chainCall(() => this.options.chain.now()));
      const command = { type: 'REFUND_REQUESTED' as const, now };
      return this.runCommand(trade, command, commandOutcome(trade.persisted, command));
    });
  }

  /** Unsigned transactions for the taker's wallet: exits that need no live actor, nor the service to act. */
  async walletRedeem(
    tradeId: string,
    preimageHex: string,
  ): Promise<{ trade: TradeView; transaction: UnsignedTransaction }> {
    const { context, record } = this.storedTrade(tradeId);
    if (!timingSafeEqualHex(sha256Hex(preimageHex), context.secretHash))
      throw new ApiError('preimage_mismatch');
    const { chain } = this.options;
    const [maker, now] = await Promise.all([
      this.chainCall(() => chain.readEscrow(new PublicKey(context.makerEscrow), 'confirmed')),
      this.chainCall(() => chain.now()),
    ]);
    if (maker?.status !== 'locked' || Number(now) >= Number(maker.expiry))
      throw new ApiError('not_redeemable');
    const transaction = await this.chainCall(() =>
      chain.buildTakerRedeem({
        taker: new PublicKey(context.takerWallet),
        takerEscrow: new PublicKey(context.takerEscrow),
        outputMint: new PublicKey(context.outputMint),
        preimage: Uint8Array.from(Buffer.from(preimageHex, 'hex')),
      }),
    );
    return { trade: this.viewOf(record), transaction };
  }

  async walletRefund(tradeId: string): Promise<{ trade: TradeView; transaction: UnsignedTransaction }> {
    const { context, record } = this.storedTrade(tradeId);
    const { chain } = this.options;
    const [taker, now] = await Promise.all([
      this.chainCall(() => chain.readEscrow(new PublicKey(context.takerEscrow), 'confirmed')),
      this.chainCall(() => chain.now()),
    ]);
    if (taker?.status !== 'locked' || Number(now) < Number(taker.expiry))
      throw new ApiError('not_refundable');
    const transaction = await this.chainCall(() =>
      chain.buildTakerRefund({
        taker: new PublicKey(context.takerWallet),
        takerEscrow: new PublicKey(context.takerEscrow),
        inputMint: new PublicKey(context.inputMint),
      }),
    );
    return { trade: this.viewOf(record), transaction };
  }

  /**
   * A trade as last stored, whether or not an actor owns it: the wallet exits read only the chain and the
   * trade's terms, so a taker can leave even when this run could not adopt its trade.
   */
  private storedTrade(tradeId: string): { context: TradeContext; record: TradeRecord } {
    const live = this.live.get(tradeId);
    const record = live?.record ?? this.options.store.getTrade(tradeId);
    if (!record) throw new ApiError('trade_not_found');
    const context = live?.persisted.context ?? (JSON.parse(record.snapshot) as PersistedTrade).context;
    return { context, record };
  }

  /** Adopts a trade no live actor owns and reconciles it with the chain; idempotent. */
  async resume(tradeId: string): Promise<TradeView> {
    const record = this.options.store.getTrade(tradeId);
    if (!record) throw new ApiError('trade_not_found');
    const live = this.live.get(tradeId);
    if (live && live.broken === null) return this.view(tradeId);
    if (live) {
      live.actor?.stop();
      this.live.delete(tradeId);
    }
    if (!record.closed) {
      await this.adopt(record);
      if (!this.live.has(tradeId))
        throw new ApiError(
          'runtime_unavailable',
          this.options.store.getTrade(tradeId)?.adoptionError ?? undefined,
        );
    }
    return this.view(tradeId);
  }

  private runCommand(trade: LiveTrade, command: TradeEvent, outcome: CommandOutcome): TradeView {
    if (outcome.outcome === 'refuse') throw new ApiError(outcome.code as ErrorCode);
    if (outcome.outcome === 'accept') this.send(trade, command);
    return this.view(trade.record.tradeId);
  }

  // ── Reads ─────────────────────────────────────────────────────────────────────────────────────

  /** TradeResponse of any trade, live or not; a trade this run could not adopt is unavailable. */
  view(tradeId: string): TradeView {
    const live = this.live.get(tradeId);
    const record = live?.record ?? this.options.store.getTrade(tradeId);
    if (!record) throw new ApiError('trade_not_found');
    if (live?.broken || (!live && !record.closed)) {
      throw new ApiError(
        'runtime_unavailable',
        `Trade ${tradeId} is not owned by a live actor; POST /resume.`,
      );
    }
    return this.viewOf(record);
  }

  /** The view of a stored trade, live or not (lists show unadoptable trades as they were last stored). */
  private viewOf(record: TradeRecord): TradeView {
    const { config, chain } = this.options;
    const tradeId = record.tradeId;
    const live = this.live.get(tradeId);
    const snapshot = live?.persisted ?? (JSON.parse(record.snapshot) as PersistedTrade);
    return renderTrade({
      snapshot,
      status: settlementStatusOf(snapshot),
      closed: record.closed,
      createdAt: record.createdAt,
      ownerRunId: live ? this.runId : record.ownerRunId,
      currentRunId: this.runId,
      assets: config.assets,
      ledger: this.ledgerSummary(tradeId, snapshot.context),
      programId: chain.programId.toBase58(),
      chainNow: this.lastChainNow,
    });
  }

  ledgerSummary(tradeId: string, context: TradeContext): LedgerSummary {
    const { config, store } = this.options;
    const pricing = new Map<string, AssetPricing>();
    const quote = store.getQuote(context.quoteId);
    const add = (mint: string, usd: Price | undefined) => {
      const asset = config.assets.find(mint);
      if (asset && usd) pricing.set(mint, { usd, decimals: asset.decimals });
    };
    add(context.inputMint, quote ? ratio(quote.inputUsd) : config.prices.get(context.inputMint)?.usd);
    add(context.outputMint, quote ? ratio(quote.outputUsd) : config.prices.get(context.outputMint)?.usd);
    const sol = config.assets.find('So11111111111111111111111111111111111111112');
    if (sol && !pricing.has(sol.mint)) add(sol.mint, config.prices.get(sol.mint)?.usd);
    return summarize(store.ledger(tradeId), pricing, this.usdcUsd);
  }

  listTrades(query: {
    takerWallet?: string | undefined;
    status?: SettlementStatus | undefined;
    limit: number;
    cursor?: string | undefined;
  }): TradePage {
    return this.tradePage({ takerWallet: query.takerWallet, status: query.status }, query);
  }

  /** One page of stored trades, oldest first, with the cursor of the next page. */
  private tradePage(
    filter: Omit<TradeFilter, 'after' | 'limit'>,
    page: { limit: number; cursor?: string | undefined },
  ): TradePage {
    const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
    const records = this.options.store.listTrades({ ...filter, after, limit: page.limit + 1 });
    const shown = records.slice(0, page.limit);
    const last = shown[shown.length - 1];
    return {
      trades: shown.map((record) => this.viewOf(record)),
      next_cursor: records.length > page.limit && last ? encodeCursor(last) : null,
    };
  }

  tradeEvents(tradeId: string) {
    if (!this.options.store.getTrade(tradeId)) throw new ApiError('trade_not_found');
    return this.options.store.tradeEvents(tradeId).map(eventView);
  }

  liveTradesOf(wallet: string): number {
    let count = 0;
    for (const trade of this.live.values()) {
      if (trade.record.takerWallet === wallet && !isFinalStatus(settlementStatusOf(trade.persisted))) count++;
    }
    return count;
  }

  /** Live actors by state and substate, for the runtime view. */
  liveActors(): { trade_id: string; status: string; substate: string }[] {
    return [...this.live.values()].map((t) => ({
      trade_id: t.record.tradeId,
      status: settlementStatusOf(t.persisted),
      substate: substateOf(t.persisted),
    }));
  }

  isLive(tradeId: string): boolean {
    return this.live.has(tradeId);
  }

  // ── Actors and persistence ────────────────────────────────────────────────────────────────────

  private createTradeActor(options: { input: TradeInput } | { snapshot: Snapshot<unknown> }): TradeActor {
    const machine = tradeMachine.provide({ actors: this.effects });
    let self: TradeActor | undefined;
    const actor = createActor(machine, {
      ...options,
      inspect: (inspection) => {
        if (inspection.type === '@xstate.snapshot' && self !== undefined && inspection.actorRef === self) {
          this.persist(self, inspection.event);
        }
      },
    } as Parameters<typeof createActor<typeof machine>>[1]);
    self = actor as TradeActor;
    return actor as TradeActor;
  }

  private register(actor: TradeActor, record: TradeRecord, persisted: PersistedTrade): LiveTrade {
    const trade: LiveTrade = {
      actor,
      record,
      persisted,
      persistedJson: JSON.stringify(persisted),
      broken: null,
    };
    this.live.set(record.tradeId, trade);
    actor.start();
    return trade;
  }

  private send(trade: LiveTrade, event: TradeEvent): void {
    if (trade.actor === null)
      throw new ApiError('runtime_unavailable', 'The trade is closed; no actor owns it.');
    trade.actor.send(event);
    if (trade.broken)
      throw new ApiError('runtime_unavailable', 'The trade’s transition could not be stored.');
  }

  /** Runs synchronously after every macrostep of an actor: the transition is durable before anyone answers. */
  private persist(actor: TradeActor, event: AnyEventObject): void {
    // Stopping an actor (shutdown, a closed trade) is not a transition of the trade: never store it.
    if (this.stopped || actor.getSnapshot().status === 'stopped') return;
    const snapshot = actor.getPersistedSnapshot() as unknown as PersistedTrade;
    const tradeId = snapshot.context.tradeId;
    const trade = this.live.get(tradeId);
    if (!trade || trade.actor !== actor) return;
    const json = JSON.stringify(snapshot);
    if (json === trade.persistedJson) return;
    const status = settlementStatusOf(snapshot);
    const closed = isClosed(snapshot);
    const at = new Date().toISOString();
    const ledger = this.newLedgerEntries(trade.persisted.context, snapshot.context);
    const update = {
      tradeId,
      ownerRunId: this.runId,
      updatedAt: at,
      status,
      substate: substateOf(snapshot),
      closed,
      nextDeadline: nextDeadline(snapshot),
      machineVersion: TRADE_MACHINE_VERSION,
      snapshot: json,
    };
    try {
      this.options.store.saveTransition(
        update,
        [this.event(trade.record, event.type, snapshot, eventPayload(event))],
        ledger,
      );
    } catch (error) {
      trade.broken = (error as Error).message;
      this.options.log.error(
        { trade_id: tradeId, err: error },
        'could not persist a transition; stopping the actor',
      );
      queueMicrotask(() => actor.stop());
      return;
    }
    this.eventsStored();
    const before = settlementStatusOf(trade.persisted);
    const alertBefore = trade.persisted.context.alert;
    trade.persisted = snapshot;
    trade.persistedJson = json;
    trade.record = { ...trade.record, ...update };
    if (before !== status) {
      this.options.log.info(
        { trade_id: tradeId, from: before, to: status, substate: update.substate },
        'trade status',
      );
    }
    this.holdReservation(snapshot);
    if (snapshot.context.alert && !alertBefore) {
      this.options.log.error(
        { trade_id: tradeId, reason: snapshot.context.failureReason },
        'ALERT: maker lost funds',
      );
    }
    if (closed) {
      queueMicrotask(() => {
        actor.stop();
        if (this.live.get(tradeId) === trade) this.live.delete(tradeId);
      });
    }
  }

  /**
   * A trade holds its output in the quote desk's reservation book until the maker's lock moves it on chain
   * (the balance then shows it) or the trade ends: pending until the lock window closes, initiated until
   * the taker expiry at the latest.
   */
  private holdReservation(snapshot: PersistedTrade): void {
    const { context } = snapshot;
    const status = settlementStatusOf(snapshot);
    const book = this.options.quotes.reservations;
    const makerLocked = context.signatures.some((s) => s.kind === 'maker_lock');
    if (isFinalStatus(status) || makerLocked) {
      book.release(context.tradeId);
      return;
    }
    book.reserve({
      id: context.tradeId,
      mint: context.outputMint,
      wallet: null, // live trades count against the wallet's limit through liveTradesOf
      raw: BigInt(context.outputAmountRaw),
      untilMs: (status === 'pending' ? context.lockDeadline : context.takerExpiry) * 1000,
    });
  }

  /** Double-entry postings for every signature the transition added, plus the maker's fees. */
  private newLedgerEntries(before: TradeContext, after: TradeContext): LedgerEntry[] {
    const known = new Set(before.signatures.map((s) => `${s.kind}:${s.signature}`));
    const entries: LedgerEntry[] = [];
    for (const { kind, signature } of after.signatures) {
      if (known.has(`${kind}:${signature}`)) continue;
      const side = SIGNATURE_MOVEMENT[kind];
      if (!side) continue;
      const mint = side === 'input' ? after.inputMint : after.outputMint;
      const amount = BigInt(side === 'input' ? after.inputAmountRaw : after.outputAmountRaw);
      entries.push(...postMovement(kind as Parameters<typeof postMovement>[0], signature, mint, amount));
      const fee = this.fees.get(signature);
      if (fee !== undefined) {
        entries.push(...postNetworkFee(signature, fee));
        this.fees.delete(signature);
      }
    }
    return entries;
  }

  private event(
    record: Pick<TradeRecord, 'tradeId'>,
    type: string,
    snapshot: PersistedTrade,
    payload: Record<string, unknown>,
  ): NewTradeEvent {
    return {
      tradeId: record.tradeId,
      runId: this.runId,
      at: new Date().toISOString(),
      type,
      status: settlementStatusOf(snapshot),
      substate: substateOf(snapshot),
      payload,
    };
  }

  private recordIntent(tradeId: string, kind: string, signature: string): void {
    const trade = this.live.get(tradeId);
    if (!trade) return;
    this.options.store.appendEvents([
      this.event(trade.record, 'TX_INTENT', trade.persisted, { kind, signature }),
    ]);
  }

  /** Restores a trade's actor in this run, records the adoption and reconciles it with the chain. */
  private async adopt(record: TradeRecord): Promise<void> {
    const { store, chain, log } = this.options;
    try {
      if (record.machineVersion !== TRADE_MACHINE_VERSION) {
        throw new Error(
          `snapshot of machine version ${record.machineVersion}; this build runs ${TRADE_MACHINE_VERSION}`,
        );
      }
      const now = Number(await chain.now());
      this.lastChainNow = now;
      const snapshot = JSON.parse(record.snapshot) as PersistedTrade;
      const actor = this.createTradeActor({ snapshot: snapshot as unknown as Snapshot<unknown> });
      const trade = this.register(actor, { ...record, adoptionError: null }, snapshot);
      if (record.ownerRunId !== this.runId) this.send(trade, { type: 'ADOPTED', runId: this.runId, now });
      store.setAdoptionError(record.tradeId, null);
      this.holdReservation(trade.persisted);
      await this.withTrade(record.tradeId, (t) => this.observe(t));
      log.info({ trade_id: record.tradeId, run_id: record.runId, status: record.status }, 'adopted trade');
    } catch (error) {
      const message = error instanceof ApiError ? error.message : (error as Error).message;
      const live = this.live.get(record.tradeId);
      if (live) {
        live.actor?.stop();
        this.live.delete(record.tradeId);
      }
      store.setAdoptionError(record.tradeId, message);
      log.warn(
        { trade_id: record.tradeId, err: message },
        'could not adopt trade; it answers 503 until resumed',
      );
    }
  }

  // ── Watching the chain ────────────────────────────────────────────────────────────────────────

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.pollIntervalMs);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    try {
      for (const tradeId of [...this.live.keys()]) {
        if (this.stopped) break;
        if (this.locks.has(tradeId)) continue; // a command is at work on it; it observes by itself
        await this.withTrade(tradeId, (trade) => this.observe(trade)).catch((error: unknown) => {
          this.options.log.warn(
            { trade_id: tradeId, err: (error as Error).message },
            'chain observation failed',
          );
        });
      }
    } finally {
      this.ticking = false;
      this.schedule();
    }
  }

  /** Reports what the chain shows of a trade's escrows, then the chain time, to its actor. */
  private async observe(
    trade: LiveTrade,
    commitment: 'confirmed' | 'finalized' = 'finalized',
  ): Promise<void> {
    if (trade.actor === null) return;
    const { chain } = this.options;
    const now = Number(await chain.now());
    this.lastChainNow = now;
    const status = (): string => settlementStatusOf(trade.persisted);
    const context = (): TradeContext => trade.persisted.context;

    if (status() === 'pending' || status() === 'failed') {
      const escrow = await chain.readEscrow(new PublicKey(context().takerEscrow), commitment);
      if (escrow) {
        const signature = context().lockSignature ?? (await this.firstSignature(context().takerEscrow));
        if (signature) {
          if (context().lockSignature === null) this.send(trade, { type: 'TAKER_LOCK_SEEN', signature });
          if (commitment === 'finalized' || chain.kind === 'embedded') {
            this.send(trade, {
              type: 'TAKER_LOCK_FINALIZED',
              signature,
              terms: lockTerms(context().takerEscrow, escrow),
            });
          }
        }
        if (escrow.status === 'refunded' || escrow.status === 'cancelled') {
          const released = await this.lastSignature(context().takerEscrow);
          if (released) this.send(trade, { type: 'TAKER_ESCROW_REFUNDED', signature: released });
        }
      } else if (status() === 'pending' && context().lockSignature !== null && now > context().lockDeadline) {
        // The program refuses any lock after the deadline: with the escrow absent at finalized, none can land.
        this.send(trade, { type: 'TAKER_LOCK_DROPPED', now });
      }
    }

    if (status() === 'initiated') {
      const [maker, taker] = await Promise.all([
        chain.readEscrow(new PublicKey(context().makerEscrow), 'finalized'),
        chain.readEscrow(new PublicKey(context().takerEscrow), 'finalized'),
      ]);
      if (maker?.status === 'redeemed' && maker.preimage && !context().makerEscrowRedeemSeen) {
        const signature = await this.lastSignature(context().makerEscrow);
        if (signature) {
          this.send(trade, {
            type: 'MAKER_ESCROW_REDEEMED',
            signature,
            preimage: Buffer.from(maker.preimage).toString('hex'),
          });
        }
      }
      if (
        taker &&
        (taker.status === 'refunded' || taker.status === 'cancelled') &&
        status() === 'initiated'
      ) {
        const signature = await this.lastSignature(context().takerEscrow);
        if (signature) this.send(trade, { type: 'TAKER_ESCROW_REFUNDED', signature });
      }
    }

    const due = nextDeadline(trade.persisted);
    if (due !== null && now >= due) this.send(trade, { type: 'CHAIN_TIME_ADVANCED', now });
    if (context().effectError !== null) this.send(trade, { type: 'RETRY_EFFECT' });
  }

  private async firstSignature(address: string): Promise<string | null> {
    const signatures = await this.options.chain.signaturesForAddress(new PublicKey(address), 'confirmed', 50);
    const ok = signatures.filter((s) => s.err === null);
    return ok[ok.length - 1]?.signature ?? null;
  }

  private async lastSignature(address: string): Promise<string | null> {
    const signatures = await this.options.chain.signaturesForAddress(new PublicKey(address), 'finalized', 20);
    return signatures.find((s) => s.err === null)?.signature ?? null;
  }

  // ── Plumbing ──────────────────────────────────────────────────────────────────────────────────

  /** Serializes everything done to one trade; restores nothing (adoption happens at start or on /resume). */
  private async withTrade<T>(tradeId: string, fn: (trade: LiveTrade) => Promise<T>): Promise<T> {
    const previous = this.locks.get(tradeId) ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(async () => {
        const trade = this.live.get(tradeId);
        if (!trade) {
          const record = this.options.store.getTrade(tradeId);
          if (!record) throw new ApiError('trade_not_found');
          if (!record.closed) {
            throw new ApiError(
              'runtime_unavailable',
              `Trade ${tradeId} is not owned by a live actor; POST /resume.`,
            );
          }
          const persisted = JSON.parse(record.snapshot) as PersistedTrade;
          return fn({ actor: null, record, persisted, persistedJson: record.snapshot, broken: null });
        }
        if (trade.broken) throw new ApiError('runtime_unavailable');
        return fn(trade);
      });
    this.locks.set(tradeId, run);
    try {
      return await run;
    } finally {
      if (this.locks.get(tradeId) === run) this.locks.delete(tradeId);
    }
  }

  private async chainCall<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (isChainError(error, 'unavailable')) throw new ApiError('chain_unavailable');
      throw error;
    }
  }

  // ── Operator views (GET /v1/runtime…) ─────────────────────────────────────────────────────────
  // Read-only: what the runtime routes and the visualiser show. Nothing here changes a trade.

  /** Chain, store and maker balances as this run sees them now; a part that cannot be read is reported. */
  async runtimeStatus() {
    const { chain, store, config } = this.options;
    const read = <T>(fn: () => Promise<T>): Promise<T | null> => fn().catch(() => null);
    const [health, now, feeLamports, balances] = await Promise.all([
      chain.health().catch((error: unknown) => ({ ok: false, detail: (error as Error).message })),
      read(() => chain.now()),
      read(() => chain.solBalance(chain.makerWallet)),
      Promise.all(
        config.assets.list.map((asset) =>
          read(() => chain.tokenBalance(chain.makerWallet, new PublicKey(asset.mint))),
        ),
      ),
    ]);
    let storeOk = false;
    try {
      storeOk = store.isOpen && store.ping();
    } catch {
      // a store that cannot answer is reported as not ok
    }
    return {
      chain: {
        kind: chain.kind,
        healthy: health.ok,
        detail: health.detail,
        now: now === null ? null : Number(now),
        programId: chain.programId.toBase58(),
        makerWallet: chain.makerWallet.toBase58(),
        feeLamports,
      },
      store: { ok: storeOk, path: store.path },
      balances: config.assets.list.map((asset, i) => ({ asset, raw: balances[i] ?? null })),
    };
  }

  /** Every run, oldest first, with the trades it created and owns. */
  runs() {
    const { store } = this.options;
    const counts = new Map(store.tradeCounts().map((c) => [c.runId, c]));
    return store.listRuns().map((run) => ({
      ...run,
      created: counts.get(run.runId)?.created ?? 0,
      owned: counts.get(run.runId)?.owned ?? 0,
    }));
  }

  /** Trades a run created (runId), or else those this run owns; paged like listTrades. */
  runTrades(query: {
    runId?: string | undefined;
    status?: SettlementStatus | undefined;
    limit: number;
    cursor?: string | undefined;
  }): TradePage {
    const owner = query.runId !== undefined ? { runId: query.runId } : { ownerRunId: this.runId };
    return this.tradePage({ ...owner, status: query.status }, query);
  }

  /** The runtime event log after a seq, in seq order, shaped like a trade's event history. */
  eventLog(afterSeq: number, limit: number) {
    return this.options.store.events(afterSeq, limit).map(eventView);
  }

  /** Ledger entries (of one trade, or all) and the summary of every trade they belong to. */
  ledgerView(tradeId?: string) {
    const { store } = this.options;
    if (tradeId !== undefined && !store.getTrade(tradeId)) throw new ApiError('trade_not_found');
    const entries = store.ledger(tradeId);
    const tradeIds = tradeId !== undefined ? [tradeId] : [...new Set(entries.map((e) => e.tradeId))];
    const summaries = tradeIds.flatMap((id) => {
      const context =
        this.live.get(id)?.persisted.context ??
        (JSON.parse(store.getTrade(id)?.snapshot ?? 'null') as PersistedTrade | null)?.context;
      return context ? [{ tradeId: id, summary: this.ledgerSummary(id, context) }] : [];
    });
    return { entries, summaries };
  }
}

function lockTerms(escrowAddress: string, escrow: EscrowState): TakerLockTerms {
  return {
    escrow: escrowAddress,
    initializer: escrow.initializer.toBase58(),
    recipient: escrow.recipient.toBase58(),
    mint: escrow.mint.toBase58(),
    amountRaw: escrow.amount.toString(),
    hashlock: Buffer.from(escrow.hashlock).toString('hex'),
    expiry: Number(escrow.expiry),
    lockDeadline: Number(escrow.lockDeadline),
  };
}

export interface TradePage {
  trades: TradeView[];
  next_cursor: string | null;
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
    substate: event.substate,
    payload: event.payload,
  };
}

function encodeCursor(record: TradeRecord): string {
  return Buffer.from(JSON.stringify([record.createdAt, record.tradeId])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: string; tradeId: string } {
  try {
    const [createdAt, tradeId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'string' && typeof tradeId === 'string') return { createdAt, tradeId };
  } catch {
    // falls through to the client error below
  }
  throw new ApiError('validation_failed', undefined, [
    'querystring.cursor: not a cursor this service issued',
  ]);
}

const sha256Hex = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function ratio(text: string): Price {
  const [num, den] = text.split('/');
  return num && den ? { num: BigInt(num), den: BigInt(den) } : parsePrice(text);
}
