// The taker's client: a swap from quote to redeem or refund, with the guarantees the HTLC promises kept on
// the taker's side. The secret is made here and stored durably before the service hears of the swap; the
// service's lock is decoded, checked against what the taker agreed to and simulated on the taker's own RPC
// before the wallet sees it; the maker's lock is read through that RPC and checked before the secret is
// revealed; the redeem and the refund are built (and checked) here and sent by the taker's wallet, so the
// taker never needs the service to finish — and a redeem left to the service is watched, and done from the
// wallet if the service does not do it in time.
import {
  type AmountView,
  FINAL_STATUSES,
  type Quote,
  type RfqRequest,
  type ServiceApi,
  type Settlement,
  serviceApi,
  type Trade,
  type TradeEvent,
} from './api.ts';
import { fromBase64, fromHex, sameBytes, sha256 } from './bytes.ts';
import {
  isMakerError,
  LockNotVerifiedError,
  LockRefusedError,
  MakerError,
  TakerStateError,
  TrustNotPinnedError,
} from './errors.ts';
import { type Follower, type FollowMode, followTrade } from './follow.ts';
import { DEFAULT_HTLC_PROGRAM_ID, makerEscrowAddress, takerEscrowAddress, vaultAddress } from './htlc.ts';
import {
  checkLockTransaction,
  type LockAgreement,
  lockAgreement,
  type TransactionCheck,
} from './lock-check.ts';
import { decodeMessage } from './message.ts';
import {
  DEFAULT_MAX_COMPUTE_UNIT_LIMIT,
  DEFAULT_MAX_LOCK_SECONDS,
  DEFAULT_MAX_PRIORITY_FEE_LAMPORTS,
  DEFAULT_SERVICE_REDEEM_SECONDS,
  EMBEDDED_REVEAL_MARGIN_SECONDS,
  REAL_CLUSTER_REVEAL_MARGIN_SECONDS,
  type TakerClientOptions,
} from './options.ts';
import { type LockReview, lockSummary, watchedAccounts } from './review.ts';
import { type TakerRpc, takerRpc } from './rpc.ts';
import { newSecret } from './secret.ts';
import { checkLockSimulation } from './simulation-check.ts';
import type { SwapRecord, SwapStore, WalletRef } from './store.ts';
import { decideTrust, knownMints, missingPins, type Trust, type TrustInfo } from './trust.ts';
import { checkMakerLock, type LockTerms, type Verification } from './verify.ts';
import type { TakerWallet } from './wallet.ts';
import { redeemFromWallet, refundFromWallet, type WalletSteps, watchServiceRedeem } from './wallet-steps.ts';

/** Settlement refusals after which the quote can never settle with this commitment. */
const NEVER_STARTED = [
  'quote_expired',
  'quote_already_used',
  'quote_not_found',
  'lock_window_closed',
] as const;

/** Whether two transactions carry the same message (signatures aside). */
const sameMessage = (a: string, b: string): boolean =>
  sameBytes(decodeMessage(fromBase64(a)).messageBytes, decodeMessage(fromBase64(b)).messageBytes);

const STATUS_RANK = { pending: 0, initiated: 1, redeemed: 2, refunded: 2, failed: 2 } as const;

/**
 * Whether `trade` is an older view than `seen`: answers cross (a command's answer can arrive after the stream
 * has told of later events), and a trade only ever gains signatures and moves forward in status.
 */
export function isOlder(trade: Trade, seen: Trade): boolean {
  const [a, b] = [trade.tx_signature_kinds.length, seen.tx_signature_kinds.length];
  return a < b || (a === b && STATUS_RANK[trade.settlement_status] < STATUS_RANK[seen.settlement_status]);
}

/**
 * Where a redeem goes. `chain` (the default, also given as a bare wallet): built here, signed by the wallet,
 * the preimage goes to the chain only. `service`: POST /redeem hands the service the preimage — a
 * convenience with a deadline: the client watches the maker escrow and redeems from `fallback` if the service
 * has not redeemed in time.
 */
export type Route = { via: 'chain'; wallet: TakerWallet } | { via: 'service'; fallback: TakerWallet };

/** What a redeem is doing, for a front end to show: the preimage handed out, the service overtaken. */
export type RedeemStep = 'revealed' | 'fallback';

export interface RedeemOutcome {
  /** Who landed the redeem: the taker's wallet ('chain') or the service. */
  via: 'chain' | 'service';
  /** The service was asked to redeem, was not in time, and the client redeemed from the wallet. */
  fellBack: boolean;
  /** The redeem's signature, when the taker sent it. */
  signature: string | null;
  verification: Verification;
  /** The trade as the service shows it afterwards (null when it could not be read). */
  trade: Trade | null;
}

export type { LockReview };

export class TakerClient {
  readonly service: ServiceApi;
  readonly rpc: TakerRpc;
  readonly store: SwapStore;
  readonly programId: string;
  readonly maker: string | null;
  /** The reveal margin configured; null: the cluster's default (see `revealMargin`). */
  readonly revealMarginSeconds: number | null;
  private readonly lockFreshMs: number;
  private readonly mints: Record<string, string>;
  private readonly programIdPinned: boolean;
  private readonly serviceRedeemSeconds: number;
  private readonly maxLockSeconds: number;
  private readonly maxPriorityFeeLamports: bigint;
  private readonly maxComputeUnitLimit: number;
  private readonly trustEmbeddedService: boolean;
  private readonly pollMs: number;
  private trustInfo: TrustInfo | null = null;
  private trustPending: Promise<TrustInfo> | null = null;
  /** The last lock each swap's review passed (by secret hash): the only bytes `lock` hands the wallet. */
  private readonly reviews = new Map<string, LockReview>();
  private readonly steps: WalletSteps;

  constructor(options: TakerClientOptions) {
    this.service = serviceApi({
      baseUrl: options.serviceUrl,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    this.rpc = takerRpc(options.rpcUrl, {
      ...(options.commitment ? { commitment: options.commitment } : {}),
      ...(options.rpcPollMs ? { pollMs: options.rpcPollMs } : {}),
    });
    this.store = options.store;
    this.programId = options.programId ?? DEFAULT_HTLC_PROGRAM_ID;
    this.programIdPinned = options.programId !== undefined;
    this.maker = options.maker ?? null;
    this.revealMarginSeconds = options.revealMarginSeconds ?? null;
    this.serviceRedeemSeconds = options.serviceRedeemSeconds ?? DEFAULT_SERVICE_REDEEM_SECONDS;
    this.maxLockSeconds = options.maxLockSeconds ?? DEFAULT_MAX_LOCK_SECONDS;
    this.maxPriorityFeeLamports = options.maxPriorityFeeLamports ?? DEFAULT_MAX_PRIORITY_FEE_LAMPORTS;
    this.maxComputeUnitLimit = options.maxComputeUnitLimit ?? DEFAULT_MAX_COMPUTE_UNIT_LIMIT;
    this.trustEmbeddedService = options.trustEmbeddedService ?? true;
    this.lockFreshMs = options.lockFreshMs ?? 30_000;
    this.pollMs = options.rpcPollMs ?? 500;
    this.mints = options.mints ?? {};
    this.steps = {
      rpc: this.rpc,
      store: this.store,
      programId: this.programId,
      maxPriorityFeeLamports: this.maxPriorityFeeLamports,
      maxComputeUnitLimit: this.maxComputeUnitLimit,
    };
  }

  // ── Trust ────────────────────────────────────────────────────────────────────────────────────

  /**
   * Whom this client trusts for program, maker and mints, once known (`resolveTrust`): 'pinned' (its own
   * configuration) or 'embedded-service' (the service is the chain too). Null before the first swap starts.
   */
  get trust(): Trust | null {
    return this.trustInfo?.trust ?? null;
  }

  /**
   * Which chain the taker's RPC serves (its genesis hash) and, unless it is a public cluster, whether it is the
   * service's own embedded chain (the service's dev RPC answers the same genesis hash). Asked once.
   */
  async resolveTrust(): Promise<TrustInfo> {
    if (this.trustInfo) return this.trustInfo;
    this.trustPending ??= (async () => {
      const rpcGenesisHash = await this.rpc.genesisHash();
      const serviceGenesisHash = this.trustEmbeddedService ? await this.service.devRpcGenesisHash() : null;
      return decideTrust({
        rpcGenesisHash,
        serviceGenesisHash,
        trustEmbeddedService: this.trustEmbeddedService,
      });
    })();
    try {
      this.trustInfo = await this.trustPending;
      return this.trustInfo;
    } finally {
      this.trustPending = null;
    }
  }

  /** Refuses (TrustNotPinnedError) a swap of these assets whose terms the client cannot pin on this cluster. */
  private async requirePins(assets: readonly string[]): Promise<TrustInfo> {
    const info = await this.resolveTrust();
    const missing = missingPins(
      info,
      {
        programId: this.programIdPinned ? this.programId : null,
        maker: this.maker,
        mints: knownMints(info, this.mints),
      },
      assets,
    );
    if (missing.length > 0) throw new TrustNotPinnedError(missing, info.cluster);
    return info;
  }

  /** The reveal margin in force: configured, else what a landing needs on this cluster. */
  async revealMargin(): Promise<number> {
    if (this.revealMarginSeconds !== null) return this.revealMarginSeconds;
    const info = await this.resolveTrust();
    return info.trust === 'embedded-service'
      ? EMBEDDED_REVEAL_MARGIN_SECONDS
      : REAL_CLUSTER_REVEAL_MARGIN_SECONDS;
  }

  // ── Quote and settlement ─────────────────────────────────────────────────────────────────────

  pairs() {
    return this.service.pairs();
  }

  /** A firm quote, or the maker's risk rejection (a normal answer, not an error). */
  quote(request: RfqRequest) {
    return this.service.rfq(request);
  }

  /**
   * Starts the swap: the secret is made and committed to the store first — only then does the service hear
   * of its hash. Answers the stored record, with the trade and its unsigned lock.
   */
  async start(quote: Quote, wallet: WalletRef): Promise<SwapRecord> {
    const record = await this.prepare(quote, wallet);
    await this.settle(record);
    return record;
  }

  /**
   * The first half of `start`: a new secret for the quote, durable in the store, and nothing sent yet. A
   * front end that shows the swap before the settlement answers calls this, then `settle`.
   */
  async prepare(quote: Quote, wallet: WalletRef): Promise<SwapRecord> {
    // Before any secret is made: a swap whose terms this client cannot pin does not start.
    await this.requirePins([quote.input.asset, quote.output.asset]);
    this.agreedMint(quote.input);
    this.agreedMint(quote.output);
    const secret = await newSecret();
    const record: SwapRecord = {
      secretHash: secret.secretHash,
      preimage: secret.preimage,
      wallet: { ...wallet },
      quoteId: quote.quote_id,
      input: quote.input,
      output: quote.output,
      spreadBps: quote.spread_bps,
      createdAt: new Date().toISOString(),
      tradeId: null,
      lockIssuedAt: null,
      lockTransaction: null,
      lockDeadline: null,
      status: null,
      substate: null,
      trade: null,
      lastSeq: 0,
      revealed: null,
    };
    await this.store.put(record);
    return record;
  }

  /**
   * POST wallet-settlement with the record's wallet and secret_hash: the first call creates the trade (201);
   * a retry answers the same trade with a lock on a fresh blockhash (200) — how a lost answer is recovered and
   * an old lock refreshed.
   */
  async settle(record: SwapRecord): Promise<Settlement> {
    let settlement: Settlement;
    try {
      settlement = await this.service.startSettlement(record.quoteId, {
        taker_wallet: record.wallet.address,
        secret_hash: record.secretHash,
      });
    } catch (error) {
      // No lock was ever handed out for this commitment, so nothing of it can be on chain: the swap never
      // started, and its secret may go.
      if (!record.tradeId && isMakerError(error, ...NEVER_STARTED)) {
        record.status = 'failed';
        record.substate = `not started: ${error.message}`;
        await this.store.put(record);
      }
      throw error;
    }
    record.tradeId = settlement.trade_id;
    record.lockTransaction = settlement.taker_lock_transaction.transaction_base64;
    record.lockIssuedAt = Date.now();
    const deadline = Date.parse(settlement.lock_deadline);
    record.lockDeadline = Number.isFinite(deadline) ? Math.floor(deadline / 1000) : null;
    if (record.status === null) {
      record.status = 'pending';
      record.substate = 'pending.awaitingLock';
    }
    await this.store.put(record);
    return settlement;
  }

  // ── Check before signing ─────────────────────────────────────────────────────────────────────

  /**
   * Reviews the service's lock before any wallet sees it: settles first when there is no lock yet or it is
   * older than `lockFreshMs` (a fresh blockhash), decodes it, runs every check against what the taker agreed
   * to (`checkLockTransaction`), then simulates it on the taker's own RPC and holds the balance changes to the
   * agreement (`checkLockSimulation`). A lock that fails any check throws LockRefusedError (`.checks`: the
   * failed ones); nothing is signed or sent. Answers the checks, the simulation and the summary a person must
   * see, all decoded from the transaction's bytes.
   */
  async reviewLock(record: SwapRecord): Promise<LockReview> {
    const info = await this.requirePins([record.input.asset, record.output.asset]);
    if (!record.tradeId || !record.lockTransaction || this.lockIsStale(record)) await this.settle(record);
    const transactionBase64 = record.lockTransaction as string;
    const agreement = await this.lockAgreement(record);
    const check = checkLockTransaction(transactionBase64, agreement);
    if (!check.ok || !check.lock)
      throw new LockRefusedError(
        check.checks.filter((c) => !c.ok),
        check,
      );
    const simulation = await this.simulateChecked(transactionBase64, agreement, check);
    const review: LockReview = {
      transactionBase64,
      agreement,
      check,
      simulation,
      summary: lockSummary({
        lock: check.lock,
        input: record.input,
        output: record.output,
        agreement,
        trust: info.trust,
      }),
      at: Date.now(),
    };
    this.reviews.set(record.secretHash, review);
    return review;
  }

  /**
   * What the taker agreed to lock, from its own record and configuration: the quoted input of the agreed
   * mint, under its own commitment, for the pinned maker and program, with an expiry no earlier than the lock
   * window's end plus the reveal margin (so that a maker lock placed at the window's end still leaves the
   * taker time to redeem) and no later than `maxLockSeconds` from the chain's clock now.
   */
  async lockAgreement(record: SwapRecord): Promise<LockAgreement> {
    await this.requirePins([record.input.asset, record.output.asset]);
    const margin = await this.revealMargin();
    const { clock } = await this.rpc.read([]);
    const windowEnd = BigInt(record.lockDeadline ?? clock.unixTimestamp);
    return lockAgreement({
      programId: this.programId,
      taker: record.wallet.address,
      maker: this.maker,
      inputMint: this.agreedMint(record.input),
      outputMint: this.agreedMint(record.output),
      amountRaw: BigInt(record.input.amount_raw),
      hashlock: await sha256(fromHex(record.preimage)),
      minExpiry: windowEnd + BigInt(margin),
      maxExpiry: clock.unixTimestamp + BigInt(this.maxLockSeconds),
      maxPriorityFeeLamports: this.maxPriorityFeeLamports,
      maxComputeUnitLimit: this.maxComputeUnitLimit,
    });
  }

  private lockIsStale(record: SwapRecord): boolean {
    return Date.now() - (record.lockIssuedAt ?? 0) > this.lockFreshMs;
  }

  /** The reviewed lock to sign: the last review's, unless the record's lock changed or grew old since. */
  private async reviewedLock(record: SwapRecord): Promise<LockReview> {
    const last = this.reviews.get(record.secretHash);
    if (
      last &&
      last.transactionBase64 === record.lockTransaction &&
      record.tradeId &&
      !this.lockIsStale(record)
    )
      return last;
    return this.reviewLock(record);
  }

  /**
   * The lock simulated on the taker's RPC (the wallet, its token accounts and every account the transaction
   * may write watched) and its effects held to the agreement; LockRefusedError when they are not.
   */
  private async simulateChecked(
    transactionBase64: string,
    agreement: LockAgreement,
    check: TransactionCheck,
  ): Promise<LockReview['simulation']> {
    const simulated = await this.rpc.simulate(transactionBase64, watchedAccounts(agreement, check));
    const simulation = checkLockSimulation(agreement, {
      ...simulated,
      baseFeeLamports: check.lock?.baseFeeLamports ?? 0n,
      priorityFeeLamports: check.lock?.priorityFeeLamports ?? 0n,
    });
    if (!simulation.ok)
      throw new LockRefusedError(
        simulation.checks.filter((c) => !c.ok),
        check,
        simulation,
      );
    return { ...simulation, logs: simulated.logs, unitsConsumed: simulated.unitsConsumed };
  }

  /**
   * Has the wallet sign the reviewed bytes, and holds what it hands back to the same checks before anything is
   * sent. The same message signed is posted for the service to send. A wallet that changed what it signed
   * (some add a priority fee) is held to the checks and the simulation again, and its lock is sent here through
   * the taker's RPC and its signature posted: the service takes back only the lock it built.
   */
  private async signedLock(
    review: LockReview,
    wallet: TakerWallet,
  ): Promise<{ transaction_base64: string } | { signature: string }> {
    const signed = await wallet.signTransaction(review.transactionBase64);
    const again = checkLockTransaction(signed, review.agreement);
    if (!again.ok)
      throw new LockRefusedError(
        again.checks.filter((c) => !c.ok),
        again,
      );
    if (sameMessage(signed, review.transactionBase64)) return { transaction_base64: signed };
    await this.simulateChecked(signed, review.agreement, again);
    return { signature: await this.rpc.send(signed) };
  }

  /**
   * The wallet signs the lock — only bytes `reviewLock` passed (reviewed here when the lock to sign is not the
   * reviewed one, also after a re-settle for a fresh blockhash) — the service sends it and answers once it is
   * on chain. `onStep` hears when the wallet is asked and when the service has the signed lock.
   */
  async lock(
    record: SwapRecord,
    wallet: TakerWallet,
    onStep?: (step: 'signing' | 'submitting') => void,
  ): Promise<Trade> {
    if (wallet.address !== record.wallet.address)
      throw new TakerStateError(`this swap is ${record.wallet.address}'s, not ${wallet.address}'s`);
    const review = await this.reviewedLock(record);
    onStep?.('signing');
    let signed = await this.signedLock(review, wallet);
    onStep?.('submitting');
    for (let attempt = 1; ; attempt++) {
      try {
        const trade = await this.service.lock(record.tradeId as string, signed);
        await this.apply(record, trade, null);
        return trade;
      } catch (error) {
        if (!(error instanceof MakerError) || attempt >= 4) throw error;
        if (error.code === 'lock_not_found') continue; // not on chain yet: the same transaction again
        if (error.status !== 400 || attempt > 1) throw error;
        // Refused as sent (its blockhash expired while the wallet was asking): a fresh lock, reviewed and
        // signed again.
        await this.settle(record);
        signed = await this.signedLock(await this.reviewLock(record), wallet);
      }
    }
  }

  /** Abandon before any lock: proven with the commitment, never the preimage. */
  async abandon(record: SwapRecord): Promise<Trade> {
    if (!record.tradeId) await this.settle(record);
    const trade = await this.service.abandon(record.tradeId as string, record.secretHash);
    await this.apply(record, trade, null);
    return trade;
  }

  /** The trade as the service shows it now, stored with the record. */
  async refresh(record: SwapRecord): Promise<Trade> {
    const trade = await this.service.trade(this.tradeId(record));
    await this.apply(record, trade, null);
    return trade;
  }

  // ── Verify before reveal ─────────────────────────────────────────────────────────────────────

  /** The terms the maker's lock must meet, from the taker's own record and configuration. */
  async lockTerms(record: SwapRecord, marginSeconds?: number): Promise<LockTerms> {
    await this.resolveTrust();
    const hashlock = await sha256(fromHex(record.preimage));
    const takerEscrow = await takerEscrowAddress(this.programId, record.wallet.address, hashlock);
    const makerEscrow = await makerEscrowAddress(this.programId, takerEscrow);
    return {
      programId: this.programId,
      taker: record.wallet.address,
      maker: this.maker,
      outputMint: this.agreedMint(record.output),
      minAmount: BigInt(record.output.amount_raw),
      hashlock,
      takerEscrow,
      makerEscrow,
      vault: await vaultAddress(this.programId, makerEscrow),
      marginSeconds: marginSeconds ?? (await this.revealMargin()),
    };
  }

  /** Reads the maker escrow, its vault and the clock through the taker's RPC and runs every check. */
  async verify(record: SwapRecord): Promise<Verification> {
    return (await this.check(record)).verification;
  }

  private async check(
    record: SwapRecord,
    marginSeconds?: number,
  ): Promise<{ terms: LockTerms; verification: Verification }> {
    const terms = await this.lockTerms(record, marginSeconds);
    const read = await this.rpc.read([terms.makerEscrow, terms.vault]);
    return { terms, verification: checkMakerLock(terms, read, record.trade) };
  }

  /**
   * Redeems the maker escrow — only after `verify` passed, else LockNotVerifiedError and the secret stays.
   * The default, `{ via: 'chain', wallet }` or the wallet itself: the client builds the redeem, checks it
   * (`checkRedeemTransaction`) and the wallet signs it; the preimage goes to the chain and nowhere else.
   * `{ via: 'service', fallback }`: POST /redeem with the preimage; the client then watches the maker escrow
   * and, if the service has not redeemed it `serviceRedeemSeconds` after the reveal — or once the escrow has
   * only the reveal margin left — redeems it from `fallback` itself. Once the secret has left, the margin no
   * longer holds the redeem back: redeeming as soon as possible is all that is left to do.
   */
  async redeem(
    record: SwapRecord,
    route: Route | TakerWallet,
    onStep?: (step: RedeemStep) => void,
  ): Promise<RedeemOutcome> {
    const chosen: Route = 'via' in route ? route : { via: 'chain', wallet: route };
    const tradeId = this.tradeId(record);
    const { terms, verification } = await this.check(record, record.revealed ? 1 : undefined);
    if (!verification.ok) {
      // Asked again after its own redeem landed (a crash before the answer, a second click): done already.
      if (await this.redeemLanded(record))
        return {
          via: record.revealed?.signature ? 'chain' : (record.revealed?.via ?? chosen.via),
          fellBack: false,
          signature: record.revealed?.signature ?? null,
          verification,
          trade: await this.refresh(record).catch(() => null),
        };
      throw new LockNotVerifiedError(verification);
    }
    if (chosen.via === 'chain') {
      const signature = await redeemFromWallet(this.steps, record, terms, chosen.wallet, () =>
        onStep?.('revealed'),
      );
      return {
        via: 'chain',
        fellBack: false,
        signature,
        verification,
        trade: await this.refresh(record).catch(() => null),
      };
    }
    // Durable before the preimage may leave: a crash after this still knows where the secret may have gone.
    if (!record.revealed) {
      record.revealed = { via: 'service', at: new Date().toISOString() };
      await this.store.put(record);
    }
    const revealedAt = (await this.rpc.read([])).clock.unixTimestamp;
    try {
      const trade = await this.service.redeem(tradeId, record.preimage);
      await this.apply(record, trade, null);
    } catch {
      // Whatever the service answered, the preimage may have reached it: the watch below decides.
    }
    onStep?.('revealed');
    // The service's time runs out after serviceRedeemSeconds, or when the escrow has only the margin left.
    const margin = BigInt(await this.revealMargin());
    const expiry = verification.escrow?.expiry ?? revealedAt;
    const serviceDeadline = revealedAt + BigInt(this.serviceRedeemSeconds);
    const landed = await watchServiceRedeem(this.steps, {
      record,
      terms,
      fallback: chosen.fallback,
      deadline: serviceDeadline < expiry - margin ? serviceDeadline : expiry - margin,
      pollMs: this.pollMs,
      onFallback: () => onStep?.('fallback'),
    });
    return { ...landed, verification, trade: await this.refresh(record).catch(() => null) };
  }

  /** Whether a redeem of this swap already landed: the taker's own (its signature) or the service's. */
  private async redeemLanded(record: SwapRecord): Promise<boolean> {
    if (!record.revealed) return false;
    if (record.revealed.signature) return this.rpc.landed(record.revealed.signature);
    const trade = await this.refresh(record).catch(() => record.trade);
    return trade?.tx_signature_kinds.some((s) => s.kind === 'taker_redeem') ?? false;
  }

  /**
   * Refunds the taker escrow once the chain's clock passed its expiry. `via: 'chain'`: a refund built here,
   * checked, signed by the wallet, sent through the taker's RPC — the taker needs nothing of the service.
   * NotRefundableError before the expiry, or when nothing is locked.
   */
  async refund(
    record: SwapRecord,
    route: { via: 'chain'; wallet: TakerWallet } | { via: 'service' },
  ): Promise<{ signature: string | null; trade: Trade | null }> {
    if (route.via === 'service') {
      const trade = await this.service.refund(this.tradeId(record));
      await this.apply(record, trade, null);
      return { signature: null, trade };
    }
    const terms = await this.lockTerms(record);
    const signature = await refundFromWallet(this.steps, record, terms, route.wallet);
    return { signature, trade: record.tradeId ? await this.refresh(record).catch(() => null) : null };
  }

  // ── Following and the store ──────────────────────────────────────────────────────────────────

  /**
   * Takes a trade the service showed (an answer, the stream, a poll) into the record, unless it is older than
   * what the record holds; stores it. Answers whether the record changed.
   */
  async apply(record: SwapRecord, trade: Trade, event: TradeEvent | null): Promise<boolean> {
    if (event) record.lastSeq = Math.max(record.lastSeq, event.seq);
    if (record.trade && record.trade.trade_id === trade.trade_id && isOlder(trade, record.trade)) {
      if (event) await this.store.put(record);
      return false;
    }
    record.trade = trade;
    record.status = trade.settlement_status;
    record.substate = trade.substate;
    await this.store.put(record);
    return true;
  }

  /** Follows the trade over its stream (polling where refused), storing each view into the record. */
  follow(
    record: SwapRecord,
    handlers: {
      onTrade?(trade: Trade, event: TradeEvent | null, changed: boolean): void;
      onMode?(mode: FollowMode): void;
      onError?(error: Error): void;
    } = {},
    timing: { refreshMs?: number; pollMs?: number } = {},
  ): Follower {
    return followTrade(this.service, this.tradeId(record), {
      after: record.lastSeq,
      ...timing,
      onTrade: (trade, event) => {
        void this.apply(record, trade, event).then(
          (changed) => handlers.onTrade?.(trade, event, changed),
          (error) => handlers.onError?.(error as Error),
        );
      },
      ...(handlers.onMode ? { onMode: handlers.onMode } : {}),
      ...(handlers.onError ? { onError: handlers.onError } : {}),
    });
  }

  /** Every swap in the store, newest first: what a front end lists after a reload. */
  swaps(): Promise<SwapRecord[]> {
    return this.store.list();
  }

  /** A swap of the store by its commitment (in another process, after a reload, …). */
  async resume(secretHash: string): Promise<SwapRecord> {
    const record = await this.store.get(secretHash.toLowerCase());
    if (!record) throw new TakerStateError(`no swap with secret_hash ${secretHash} in this store`);
    return record;
  }

  /** Drops a swap's record — its secret with it — once nothing of it can still be on chain. */
  async forget(record: SwapRecord): Promise<void> {
    const final = record.status !== null && FINAL_STATUSES.includes(record.status);
    if (record.tradeId && (!final || record.trade?.next_action !== undefined))
      throw new TakerStateError('the swap is not over: its secret is still needed');
    await this.store.delete(record.secretHash);
  }

  /**
   * The mint the taker agreed to for one side: the one it knows the asset by (its config, the cluster's
   * built-in table); on the embedded service's chain, else the quote's. Call after `resolveTrust`.
   */
  private agreedMint(view: AmountView): string {
    const info = this.trustInfo;
    if (!info) throw new TakerStateError('the client has not resolved whom it trusts yet (resolveTrust)');
    const own = knownMints(info, this.mints)[view.asset];
    if (own !== undefined && view.mint !== undefined && view.mint !== own)
      throw new TakerStateError(
        `the quote's ${view.asset} is mint ${view.mint}; this taker knows ${view.asset} as ${own}`,
      );
    if (own === undefined && info.trust !== 'embedded-service')
      throw new TrustNotPinnedError([`mints.${view.asset}`], info.cluster);
    const mint = own ?? view.mint;
    if (mint === undefined) throw new TakerStateError(`the quote names no mint for ${view.asset}`);
    return mint;
  }

  private tradeId(record: SwapRecord): string {
    if (!record.tradeId) throw new TakerStateError('the settlement has not started: no trade yet');
    return record.tradeId;
  }
}
