// The taker's client: a swap from quote to redeem or refund, with the guarantees the HTLC promises kept on
// the taker's side. The secret is made here and stored durably before the service hears of the swap; the
// maker's lock is read through the taker's own RPC and checked before the secret is revealed; the redeem and
// the refund are built here and sent by the taker's wallet, so the taker never needs the service to finish.
import { getBase58Decoder } from '@solana/kit';
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
import { fromHex, sha256 } from './bytes.ts';
import {
  isMakerError,
  LockNotVerifiedError,
  MakerError,
  NotRefundableError,
  TakerStateError,
} from './errors.ts';
import { type Follower, type FollowMode, followTrade } from './follow.ts';
import {
  DEFAULT_HTLC_PROGRAM_ID,
  decodeEscrow,
  makerEscrowAddress,
  takerEscrowAddress,
  vaultAddress,
} from './htlc.ts';
import { type TakerRpc, takerRpc } from './rpc.ts';
import { newSecret } from './secret.ts';
import type { SwapRecord, SwapStore, WalletRef } from './store.ts';
import { redeemTransaction, refundTransaction, transactionSignature } from './transactions.ts';
import { checkMakerLock, type LockTerms, type Verification } from './verify.ts';
import type { TakerWallet } from './wallet.ts';

export interface TakerClientOptions {
  /** The maker service's origin. */
  serviceUrl: string;
  /** The taker's own Solana JSON-RPC endpoint: what the maker's lock is verified through. */
  rpcUrl: string;
  /** Where secrets live: IndexedDbSwapStore in a browser, FileSwapStore on Node. */
  store: SwapStore;
  /** The HTLC program the taker trusts (default: the repository's program id). */
  programId?: string;
  /** The maker's public key, when known: the maker escrow must then be the maker's own. */
  maker?: string | null;
  /**
   * The mints the taker knows its assets by (symbol → mint, e.g. from its wallet's token list). A quote whose
   * input or output names another mint for the symbol is refused, and the maker's lock must hold this mint.
   * Without it the quote's own mints are taken as the agreed ones.
   */
  mints?: Record<string, string>;
  /** Chain seconds the maker escrow must have left before its expiry for the client to reveal (30). */
  revealMarginSeconds?: number;
  /** What chain reads wait for (default 'finalized': a lock that cannot be rolled back). */
  commitment?: 'processed' | 'confirmed' | 'finalized';
  /** An unsigned lock older than this is rebuilt on a fresh blockhash before signing (30 s). */
  lockFreshMs?: number;
  fetch?: typeof fetch;
  rpcPollMs?: number;
}

/** Settlement refusals after which the quote can never settle with this commitment. */
const NEVER_STARTED = [
  'quote_expired',
  'quote_already_used',
  'quote_not_found',
  'lock_window_closed',
] as const;

const STATUS_RANK = { pending: 0, initiated: 1, redeemed: 2, refunded: 2, failed: 2 } as const;

/**
 * Whether `trade` is an older view than `seen`: answers cross (a command's answer can arrive after the stream
 * has told of later events), and a trade only ever gains signatures and moves forward in status.
 */
export function isOlder(trade: Trade, seen: Trade): boolean {
  const [a, b] = [trade.tx_signature_kinds.length, seen.tx_signature_kinds.length];
  return a < b || (a === b && STATUS_RANK[trade.settlement_status] < STATUS_RANK[seen.settlement_status]);
}

export type Route = { via: 'chain'; wallet: TakerWallet } | { via: 'service' };

export interface RedeemOutcome {
  via: 'chain' | 'service';
  /** The redeem's signature, when the taker sent it. */
  signature: string | null;
  verification: Verification;
  /** The trade as the service shows it afterwards (null when it could not be read). */
  trade: Trade | null;
}

export class TakerClient {
  readonly service: ServiceApi;
  readonly rpc: TakerRpc;
  readonly store: SwapStore;
  readonly programId: string;
  readonly maker: string | null;
  readonly revealMarginSeconds: number;
  private readonly lockFreshMs: number;
  private readonly mints: Record<string, string>;

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
    this.maker = options.maker ?? null;
    this.revealMarginSeconds = options.revealMarginSeconds ?? 30;
    this.lockFreshMs = options.lockFreshMs ?? 30_000;
    this.mints = options.mints ?? {};
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
    if (record.status === null) {
      record.status = 'pending';
      record.substate = 'pending.awaitingLock';
    }
    await this.store.put(record);
    return settlement;
  }

  /**
   * The wallet signs the lock (rebuilt first when old), the service sends it and answers once it is on chain.
   * `onStep` hears when the wallet is asked and when the service has the signed lock.
   */
  async lock(
    record: SwapRecord,
    wallet: TakerWallet,
    onStep?: (step: 'signing' | 'submitting') => void,
  ): Promise<Trade> {
    if (wallet.address !== record.wallet.address)
      throw new TakerStateError(`this swap is ${record.wallet.address}'s, not ${wallet.address}'s`);
    if (
      !record.tradeId ||
      !record.lockTransaction ||
      Date.now() - (record.lockIssuedAt ?? 0) > this.lockFreshMs
    )
      await this.settle(record);
    onStep?.('signing');
    let signed = await wallet.signTransaction(record.lockTransaction as string);
    onStep?.('submitting');
    for (let attempt = 1; ; attempt++) {
      try {
        const trade = await this.service.lock(record.tradeId as string, { transaction_base64: signed });
        await this.apply(record, trade, null);
        return trade;
      } catch (error) {
        if (!(error instanceof MakerError) || attempt >= 4) throw error;
        if (error.code === 'lock_not_found') continue; // not on chain yet: the same transaction again
        if (error.status !== 400 || attempt > 1) throw error;
        // Refused as sent (its blockhash expired while the wallet was asking): a fresh lock, signed again.
        await this.settle(record);
        signed = await wallet.signTransaction(record.lockTransaction as string);
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
  async lockTerms(record: SwapRecord): Promise<LockTerms> {
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
      marginSeconds: this.revealMarginSeconds,
    };
  }

  /** Reads the maker escrow, its vault and the clock through the taker's RPC and runs every check. */
  async verify(record: SwapRecord): Promise<Verification> {
    return (await this.check(record)).verification;
  }

  private async check(record: SwapRecord): Promise<{ terms: LockTerms; verification: Verification }> {
    const terms = await this.lockTerms(record);
    const read = await this.rpc.read([terms.makerEscrow, terms.vault]);
    return { terms, verification: checkMakerLock(terms, read, record.trade) };
  }

  /**
   * Redeems the maker escrow — only after `verify` passed, else LockNotVerifiedError and the secret stays.
   * `via: 'chain'`: the client builds the redeem and the wallet signs it; the preimage goes to the chain and
   * nowhere else. `via: 'service'`: POST /redeem with the preimage, and the service submits it.
   */
  async redeem(record: SwapRecord, route: Route): Promise<RedeemOutcome> {
    const tradeId = this.tradeId(record);
    const { terms, verification } = await this.check(record);
    if (!verification.ok) {
      // Asked again after its own redeem landed (a crash before the answer, a second click): done already.
      if (await this.redeemLanded(record))
        return {
          via: record.revealed?.via ?? route.via,
          signature: record.revealed?.signature ?? null,
          verification,
          trade: await this.refresh(record).catch(() => null),
        };
      throw new LockNotVerifiedError(verification);
    }
    // Durable before the preimage may leave (to the service, or inside a transaction handed to the wallet): a
    // crash after this still knows where the secret may have gone.
    record.revealed = { via: route.via, at: new Date().toISOString() };
    await this.store.put(record);
    if (route.via === 'service') {
      const trade = await this.service.redeem(tradeId, record.preimage);
      await this.apply(record, trade, null);
      return { via: 'service', signature: null, verification, trade };
    }
    const lifetime = await this.rpc.latestBlockhash();
    const unsigned = await redeemTransaction({
      programId: this.programId,
      taker: record.wallet.address,
      makerEscrow: terms.makerEscrow,
      outputMint: terms.outputMint,
      preimage: fromHex(record.preimage),
      lifetime,
    });
    const at = record.revealed.at;
    const signature = await this.sendFromWallet(
      route.wallet,
      record,
      unsigned,
      lifetime.lastValidBlockHeight,
      {
        // The redeem's id, stored before it is sent: a crash while it lands still finds it (redeemLanded).
        onSigned: async (id) => {
          record.revealed = { via: 'chain', at, signature: id };
          await this.store.put(record);
        },
      },
    );
    record.revealed = { via: 'chain', at, signature };
    await this.store.put(record);
    return { via: 'chain', signature, verification, trade: await this.refresh(record).catch(() => null) };
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
   * signed by the wallet, sent through the taker's RPC — the taker needs nothing of the service for it.
   */
  async refund(record: SwapRecord, route: Route): Promise<{ signature: string | null; trade: Trade | null }> {
    if (route.via === 'service') {
      const trade = await this.service.refund(this.tradeId(record));
      await this.apply(record, trade, null);
      return { signature: null, trade };
    }
    const terms = await this.lockTerms(record);
    const read = await this.rpc.read([terms.takerEscrow]);
    const account = read.accounts[0];
    if (!account || account.owner !== this.programId)
      throw new NotRefundableError(`no taker escrow at ${terms.takerEscrow}: nothing is locked to refund`);
    const escrow = decodeEscrow(account.data);
    if (escrow.status !== 'locked')
      throw new NotRefundableError(
        `the taker escrow is ${escrow.status}, not locked`,
        escrow.expiry,
        read.clock.unixTimestamp,
      );
    if (read.clock.unixTimestamp < escrow.expiry)
      throw new NotRefundableError(
        `the taker escrow expires at ${escrow.expiry}; the chain's time is ${read.clock.unixTimestamp}`,
        escrow.expiry,
        read.clock.unixTimestamp,
      );
    const lifetime = await this.rpc.latestBlockhash();
    const unsigned = await refundTransaction({
      programId: this.programId,
      taker: record.wallet.address,
      takerEscrow: terms.takerEscrow,
      inputMint: escrow.mint,
      lifetime,
    });
    const signature = await this.sendFromWallet(
      route.wallet,
      record,
      unsigned,
      lifetime.lastValidBlockHeight,
    );
    return { signature, trade: record.tradeId ? await this.refresh(record).catch(() => null) : null };
  }

  private async sendFromWallet(
    wallet: TakerWallet,
    record: SwapRecord,
    unsigned: string,
    lastValidBlockHeight: bigint,
    hooks: { onSigned?(signature: string): Promise<void> } = {},
  ): Promise<string> {
    if (wallet.address !== record.wallet.address)
      throw new TakerStateError(`this swap is ${record.wallet.address}'s, not ${wallet.address}'s`);
    let signature: string;
    if (wallet.signAndSend) signature = await wallet.signAndSend(unsigned);
    else {
      const signed = await wallet.signTransaction(unsigned);
      signature = getBase58Decoder().decode(transactionSignature(signed));
      await hooks.onSigned?.(signature);
      await this.rpc.send(signed);
    }
    await this.rpc.confirm(signature, lastValidBlockHeight);
    return signature;
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

  /** The mint the taker agreed to for one side: its own for the symbol when it has one, else the quote's. */
  private agreedMint(view: AmountView): string {
    const own = this.mints[view.asset];
    if (own !== undefined && view.mint !== undefined && view.mint !== own)
      throw new TakerStateError(
        `the quote's ${view.asset} is mint ${view.mint}; this taker knows ${view.asset} as ${own}`,
      );
    const mint = own ?? view.mint;
    if (mint === undefined) throw new TakerStateError(`the quote names no mint for ${view.asset}`);
    return mint;
  }

  private tradeId(record: SwapRecord): string {
    if (!record.tradeId) throw new TakerStateError('the settlement has not started: no trade yet');
    return record.tradeId;
  }
}
