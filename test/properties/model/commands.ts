// The commands of the model-based test. Each picks its trade among those its precondition allows
// (`pick` modulo their number, so shrinking stays meaningful), runs against the real service, checks the
// answer against the model, records the new facts, lets the runtime settle and checks every invariant.

import { randomBytes } from 'node:crypto';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createSyncNativeInstruction,
} from '@solana/spl-token';
import { PublicKey, SystemProgram, Transaction, TransactionInstruction } from '@solana/web3.js';
import fc from 'fast-check';
import { ata, isChainError, lockInstruction } from '../../../src/chain/index.ts';
import { swapInstruction } from '../../../src/venue/instructions.ts';
import { amountInToReach, deviationBps, type Ratio, swapExactIn } from '../../../src/venue/math.ts';
import { TEST_STORE } from '../../support/service.ts';
import { describeMove, submitMoves, type TakerMove, type TakerSide } from '../../support/taker-moves.ts';
import {
  CLOSED_SUBSTATES,
  checkInvariants,
  expected,
  isFinal,
  isoSeconds,
  kindsOf,
  type Model,
  type MTrade,
  rest,
  type Status,
  settle,
  tradeOutcome,
  venueFailing,
} from './model.ts';
import {
  type Json,
  JUP,
  newSecret,
  type Reply,
  SOL,
  SYMBOL,
  TIMING,
  USDC,
  USDT,
  type World,
} from './world.ts';

type Cmd = fc.AsyncCommand<Model, World>;

// ── helpers ───────────────────────────────────────────────────────────────────────────────────────

function signAsWallet(transactionBase64: string, t: MTrade): string {
  const tx = Transaction.from(Buffer.from(transactionBase64, 'base64'));
  tx.partialSign(t.wallet);
  return tx.serialize({ requireAllSignatures: true }).toString('base64');
}

function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

function expectReply(res: Reply, allowed: { status: number; code?: string }[], what: string): void {
  const ok = allowed.some(
    (a) => a.status === res.status && (a.code === undefined || res.body?.error?.code === a.code),
  );
  expect(
    ok,
    `${what}: answered ${res.status} ${JSON.stringify(res.body).slice(0, 400)}; expected one of ${JSON.stringify(allowed)}`,
  );
}

const E = (status: number, code?: string) => (code === undefined ? { status } : { status, code });

/** Trades a command may act on; `pick` chooses one. */
function choose(model: Model, pick: number, eligible: (t: MTrade) => boolean): MTrade | undefined {
  const ts = model.trades.filter(eligible);
  return ts.length === 0 ? undefined : ts[pick % ts.length];
}

/** What the model says a trade is at `now` (for answering commands). */
function statusAt(t: MTrade, now: number): Status | null {
  return expected(t, now)?.status ?? null;
}

/** Runs `fn` between two clock readings; the answer must hold at one of them. */
async function bracketed<T>(
  world: World,
  fn: () => Promise<T>,
): Promise<{ before: number; after: number; value: T }> {
  const before = await world.now();
  const value = await fn();
  const after = await world.now();
  return { before, after, value };
}

/**
 * Events one step may add to one trade's history. The busiest steps store about ten: a lock (submission,
 * the final lock, the maker's assessment, signing, its intent and landing), or a restart after which the
 * trade is adopted and catches up with what the taker did on chain meanwhile (facts, an effect with its
 * intent, the close with its own). A retry storm stores one or two per tick — every 25 ms here.
 */
export const EVENTS_PER_STEP = 16;

/**
 * Every step ends the same way: the trades settle where the model expects them, come to rest, and every
 * invariant holds; and no trade's history grew by more than a step can explain.
 */
export async function finish(model: Model, world: World): Promise<void> {
  await settle(model, world);
  await rest(model, world);
  await checkInvariants(model, world);
  for (const t of model.trades) {
    if (t.tradeId === null) continue;
    const count = (await world.events(t.tradeId)).length;
    expect(
      count - t.eventCount <= EVENTS_PER_STEP,
      `trade #${t.n} stored ${count - t.eventCount} events in one step (${t.eventCount} → ${count})`,
    );
    t.eventCount = count;
  }
}

const started = (t: MTrade) => t.tradeId !== null;
const pendingUnlocked = (t: MTrade) =>
  started(t) && !t.locked && !t.lockSubmitted && !t.abandoned && t.wrongTerms === null && t.seen !== 'failed';

/** A fresh lock transaction for a trade: the settlement retry while the window is open, else the chain's builder. */
async function freshLock(world: World, t: MTrade): Promise<string> {
  const now = await world.now();
  if (t.lockTx && now - t.lockTx.at < 40) return t.lockTx.base64;
  const tx = await world.service.chain.buildTakerLock({
    taker: t.wallet.publicKey,
    inputMint: new PublicKey(t.inputMint),
    outputMint: new PublicKey(t.outputMint),
    amount: t.inputRaw,
    hashlock: Uint8Array.from(Buffer.from(t.secret.secretHash, 'hex')),
    expiry: BigInt(t.takerExpiry),
    lockDeadline: BigInt(t.lockDeadline),
  });
  return tx.transactionBase64;
}

/** Submits a wallet-signed transaction straight to the chain; answers the signature or the chain's refusal. */
async function submit(
  world: World,
  signed: string,
): Promise<{ signature: string } | { error: string; htlc?: string }> {
  try {
    const sent = await world.service.chain.submitSigned(signed);
    // The embedded chain answers bytes it executed before with their signature, also when they failed then.
    const state = await world.service.chain.signatureState(sent.signature);
    if (state.status !== 'unknown' && state.err !== null) return { error: 'rejected', htlc: state.err };
    return sent;
  } catch (error) {
    if (isChainError(error))
      return { error: error.code, ...(error.htlcError ? { htlc: error.htlcError } : {}) };
    throw error;
  }
}

// ── trade setup ───────────────────────────────────────────────────────────────────────────────────

/** Raw units of each (non-SOL) token a taker holds beyond its trade, for donations to vaults. */
const SPARE_UNITS = 5n;

const PAIRS = [
  { input: SOL, output: USDC, amounts: ['0.2', '0.75', '1.5'], decimals: 9 },
  { input: USDC, output: USDT, amounts: ['10', '40', '125'], decimals: 6 },
  { input: USDC, output: SOL, amounts: ['20', '60'], decimals: 6 },
  { input: USDT, output: USDC, amounts: ['5', '75'], decimals: 6 },
  // Some 370 or 740 JUP: beyond the maker's JUP (MAKER_JUP), so the venue sources the rest.
  { input: USDC, output: JUP, amounts: ['300', '600'], decimals: 6 },
] as const;

/** How many pairs NewTrade chooses among (the last sources its output). */
export const PAIR_COUNT = PAIRS.length;

export class NewTrade implements Cmd {
  constructor(
    readonly pair: number,
    readonly size: number,
  ) {}
  check = (m: Model) => m.trades.length < m.maxTrades;
  async run(m: Model, w: World) {
    const pair = PAIRS[this.pair % PAIRS.length] as (typeof PAIRS)[number];
    const amount = pair.amounts[this.size % pair.amounts.length] as string;
    const wallet = w.newTaker();
    const raw = BigInt(Math.round(Number(amount) * 10 ** pair.decimals));
    await w.airdrop(wallet.publicKey, pair.input, amount, raw);
    // A few spare units of each token, for donations to vaults (wrapped SOL is wrapped on the spot).
    for (const mint of [pair.input, pair.output]) {
      if (mint !== SOL)
        await w.chain.airdrop({ wallet: wallet.publicKey, mint: new PublicKey(mint), amount: SPARE_UNITS });
    }
    const res = await w.post('/v1/rfq', {
      input_asset: SYMBOL[pair.input],
      output_asset: SYMBOL[pair.output],
      amount,
      taker_wallet: wallet.publicKey.toBase58(),
    });
    expectReply(res, [E(200)], 'rfq');
    if (res.body.status === 'rejected') {
      // Only a quote that needs the venue, while it fails: refused naming the sourcing check, never a 5xx.
      // On PostgreSQL the store counts an open sourced quote's whole output against the balance, for every
      // instance (docs/quotes-and-ledger.md): a second sourced quote may find no room then.
      const reasons = JSON.stringify(res.body.reasons);
      const acrossInstances =
        TEST_STORE === 'postgres' &&
        (res.body.reasons as { check: string; message: string }[]).some(
          (r) => r.check === 'inventory' && r.message.includes('across every instance'),
        );
      expect(
        pair.output === JUP && ((venueFailing(m) && reasons.includes('sourcing')) || acrossInstances),
        `rfq rejected: ${JSON.stringify(res.body)}`,
      );
      w.note(`rfq ${amount} USDC→JUP refused: ${reasons}`);
      return finish(m, w);
    }
    expect(res.body.status === 'accepted', `rfq: ${JSON.stringify(res.body)}`);
    const sourced = (res.body.risk_checks as string[]).includes('sourcing');
    const outputRaw = BigInt(res.body.output.amount_raw);
    if (pair.output !== JUP)
      expect(!sourced, `a ${SYMBOL[pair.output]} quote sourced: ${JSON.stringify(res.body)}`);
    else if (outputRaw > (await w.tokenBalance(w.makerWallet, JUP)))
      expect(sourced, `a quote beyond the maker's whole JUP was not sourced: ${JSON.stringify(res.body)}`);
    const t: MTrade = {
      n: m.trades.length,
      wallet,
      taker: wallet.publicKey.toBase58(),
      inputMint: pair.input,
      outputMint: pair.output,
      inputRaw: BigInt(res.body.input.amount_raw),
      outputRaw,
      quoteId: res.body.quote_id,
      quotedAtMs: Date.now(),
      dead: false,
      secret: newSecret(),
      tradeId: null,
      lockTx: null,
      takerEscrow: '',
      makerEscrow: '',
      lockDeadline: 0,
      takerExpiry: 0,
      makerExpiry: null,
      locked: false,
      lockSubmitted: false,
      abandoned: false,
      lateLock: false,
      wrongTerms: null,
      redeemRequested: false,
      takerRedeemed: false,
      refundRequested: false,
      chainMoved: false,
      takerClosed: false,
      donated: { maker: 0n, taker: 0n },
      outcome: null,
      eventCount: 0,
      start: {
        input: await w.holding(wallet.publicKey, pair.input),
        output: await w.holding(wallet.publicKey, pair.output),
      },
      seen: null,
      lastView: null,
      sourced,
      sourcing: null,
    };
    expect(t.inputRaw === raw, `quote input ${t.inputRaw} != ${raw}`);
    m.trades.push(t);
    await finish(m, w);
  }
  toString = () => `NewTrade(${this.pair},${this.size})`;
}

export class Settle implements Cmd {
  constructor(readonly pick: number) {}
  private target = (m: Model) => choose(m, this.pick, (t) => t.tradeId === null && !t.dead);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    const { value: res, before } = await bracketed(w, () =>
      w.post(`/v1/quotes/${t.quoteId}/wallet-settlement`, {
        taker_wallet: t.taker,
        secret_hash: t.secret.secretHash,
      }),
    );
    if (
      res.status === 409 &&
      res.body.error?.code === 'quote_expired' &&
      Date.now() - t.quotedAtMs > 25_000
    ) {
      t.dead = true;
      return finish(m, w);
    }
    expectReply(res, [E(201)], 'settlement');
    const body = res.body;
    expect(
      !JSON.stringify(body).toLowerCase().includes(t.secret.secretHash),
      'settlement shows the commitment',
    );
    t.tradeId = body.trade_id;
    t.lockTx = { base64: body.taker_lock_transaction.transaction_base64, at: before };
    t.takerEscrow = body.taker_escrow;
    t.makerEscrow = body.maker_escrow;
    t.lockDeadline = isoSeconds(body.lock_deadline);
    t.takerExpiry = isoSeconds(body.expires_at);
    expect(
      t.takerExpiry - t.lockDeadline === TIMING.taker_timelock_seconds - TIMING.lock_window_seconds,
      `expiries ${t.lockDeadline} / ${t.takerExpiry}`,
    );
    expect(
      Math.abs(t.lockDeadline - before - TIMING.lock_window_seconds) <= 2,
      `lock deadline ${t.lockDeadline} at ${before}`,
    );
    await finish(m, w);
  }
  toString = () => `Settle(${this.pick})`;
}

// ── lock ──────────────────────────────────────────────────────────────────────────────────────────

async function lockOnce(w: World, t: MTrade): Promise<{ res: Reply; before: number; after: number }> {
  const base64 = await freshLock(w, t);
  const body = { transaction_base64: signAsWallet(base64, t) };
  const {
    value: res,
    before,
    after,
  } = await bracketed(w, () => w.post(`/v1/trades/${t.tradeId}/lock`, body));
  return { res, before, after };
}

/** Applies a /lock answer to the model; `before`/`after` bracket it on the chain clock. */
function applyLock(t: MTrade, res: Reply, before: number, after: number, what: string) {
  const open = after <= t.lockDeadline - 1;
  const closed = before > t.lockDeadline;
  if (open) expectReply(res, [E(202)], what);
  else if (closed) expectReply(res, [E(409, 'lock_window_closed')], what);
  else expectReply(res, [E(202), E(409, 'lock_window_closed'), E(400, 'validation_failed')], what);
  if (res.status === 202) {
    expect(res.body.settlement_status === 'initiated', `${what}: 202 with ${res.body.settlement_status}`);
    t.locked = true;
  }
}

export class Lock implements Cmd {
  constructor(readonly pick: number) {}
  private target = (m: Model) => choose(m, this.pick, pendingUnlocked);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    const fate = await sourcingFate(m, w, t);
    const { res, before, after } = await lockOnce(w, t);
    applyLock(t, res, before, after, 'lock');
    if (t.locked) await afterLock(w, t, fate);
    await finish(m, w);
  }
  toString = () => `Lock(${this.pick})`;
}

/**
 * After the taker lock the runtime locks the maker side by itself — a sourced trade once its swap landed —
 * or, when the venue fails (down, or its pool slipped since the quote), declines and releases the taker.
 */
async function afterLock(w: World, t: MTrade, fate: MTrade['sourcing']) {
  if (t.sourcing === null && fate !== null) {
    t.sourcing = fate;
    w.note(`trade #${t.n} sourcing: ${fate}`);
  }
  if (t.sourcing === 'failed') await releasedAtOnce(w, t);
  else await waitMakerLocked(w, t);
}

/**
 * What a sourced trade's lock leads to, read before the lock is sent (the runtime acts on it at once). A
 * sourced trade always buys its sourced part first, even when the maker's balance alone would cover the
 * output by then (the rest of that balance is other quotes' holds).
 */
async function sourcingFate(m: Model, _w: World, t: MTrade): Promise<MTrade['sourcing']> {
  if (!t.sourced) return null;
  return venueFailing(m) ? 'failed' : 'landed';
}

/**
 * Sourcing failed: the trade ends refunded (sourcing_failed) with no swap and no maker lock, the maker having
 * cancelled the taker's escrow at once — the chain's clock still before the escrow's expiry, the taker's
 * input back in its wallet.
 */
async function releasedAtOnce(w: World, t: MTrade) {
  const until = Date.now() + 15_000;
  for (;;) {
    const view = await w.trade(t.tradeId as string);
    const kinds = kindsOf(view);
    expect(
      !kinds.includes('maker_lock') && !kinds.includes('aggregator_swap'),
      `sourcing with the venue failing swapped or locked: ${kinds}`,
    );
    if (isFinal(view.settlement_status)) {
      expect(
        view.settlement_status === 'refunded' && view.failure_reason === 'sourcing_failed',
        `sourcing with the venue failing ended ${view.settlement_status} (${view.failure_reason})`,
      );
      if (kinds.includes('taker_refund')) break;
    }
    expect(Date.now() < until, `the taker was not released: ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 30));
  }
  const outcome = await tradeOutcome(w, t);
  expect(
    outcome.maker.state === 'none' && outcome.taker.state === 'returned' && outcome.taker.how === 'cancelled',
    `sourcing failed: the chain shows ${JSON.stringify(outcome)}`,
  );
  expect((await w.now()) < t.takerExpiry, 'the taker escrow was released only at its expiry');
}

/** After the taker lock the runtime locks the maker side by itself; learn the maker expiry from the view. */
async function waitMakerLocked(w: World, t: MTrade) {
  const until = Date.now() + 15_000;
  for (;;) {
    const view = await w.trade(t.tradeId as string);
    if (view.maker_expires_at && kindsOf(view).includes('maker_lock')) {
      t.makerExpiry = isoSeconds(view.maker_expires_at);
      return;
    }
    expect(
      view.settlement_status === 'initiated',
      `after a good lock the trade is ${view.settlement_status}/${view.substate} (${view.failure_reason})`,
    );
    expect(Date.now() < until, `maker never locked: ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

// ── abandon ───────────────────────────────────────────────────────────────────────────────────────

function abandonExpectations(t: MTrade, now: number) {
  if (t.abandoned) return [E(202)];
  const status = statusAt(t, now);
  if (status === 'pending') return t.lockSubmitted ? [E(409, 'lock_signature_exists')] : [E(202)];
  return [E(409, 'not_abandonable')];
}

export class AbandonRight implements Cmd {
  constructor(
    readonly pick: number,
    readonly upper: boolean,
  ) {}
  private target = (m: Model) => choose(m, this.pick, started);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    const hash = this.upper ? t.secret.secretHash.toUpperCase() : t.secret.secretHash;
    const wasAbandoned = t.abandoned;
    const {
      value: res,
      before,
      after,
    } = await bracketed(w, () => w.post(`/v1/trades/${t.tradeId}/abandon`, { secret_hash: hash }));
    const allowed = [...abandonExpectations(t, before), ...abandonExpectations(t, after)];
    expectReply(res, allowed, 'abandon');
    if (res.status === 202) {
      expect(
        res.body.settlement_status === 'failed' && res.body.failure_reason === 'abandoned',
        `abandon 202: ${JSON.stringify(res.body)}`,
      );
      if (!wasAbandoned) {
        // Abandon succeeds only from pending with no lock on chain.
        const escrow = await w.service.chain.readEscrow(new PublicKey(t.takerEscrow), 'confirmed');
        expect(
          escrow === null && !t.locked && t.wrongTerms === null,
          'abandon accepted with a lock on chain',
        );
      }
      t.abandoned = true;
    }
    await finish(m, w);
  }
  toString = () => `AbandonRight(${this.pick},${this.upper})`;
}

export class AbandonWrong implements Cmd {
  constructor(readonly pick: number) {}
  private target = (m: Model) => choose(m, this.pick, started);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    const res = await w.post(`/v1/trades/${t.tradeId}/abandon`, { secret_hash: newSecret().secretHash });
    expectReply(res, [E(403, 'secret_hash_mismatch')], 'abandon with a wrong hash');
    await finish(m, w);
  }
  toString = () => `AbandonWrong(${this.pick})`;
}

// ── redeem ────────────────────────────────────────────────────────────────────────────────────────

function redeemExpectations(t: MTrade, now: number) {
  if (t.redeemRequested) return [E(202)];
  const e = expected(t, now);
  if (
    e?.substate === 'initiated.makerLocked' &&
    t.makerExpiry !== null &&
    now < t.makerExpiry - TIMING.landing_margin_seconds
  )
    return [E(202)];
  return [E(409, 'not_redeemable')];
}

export class RedeemService implements Cmd {
  constructor(readonly pick: number) {}
  private target = (m: Model) => choose(m, this.pick, started);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    const {
      value: res,
      before,
      after,
    } = await bracketed(w, () => w.post(`/v1/trades/${t.tradeId}/redeem`, { preimage: t.secret.preimage }));
    expectReply(res, [...redeemExpectations(t, before), ...redeemExpectations(t, after)], 'redeem');
    if (res.status === 202) t.redeemRequested = true;
    await finish(m, w);
  }
  toString = () => `RedeemService(${this.pick})`;
}

export class RedeemWrong implements Cmd {
  constructor(
    readonly pick: number,
    readonly wallet: boolean,
  ) {}
  private target = (m: Model) => choose(m, this.pick, started);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    const url = `/v1/trades/${t.tradeId}/redeem${this.wallet ? '?mode=wallet' : ''}`;
    const res = await w.post(url, { preimage: newSecret().preimage });
    expectReply(res, [E(403, 'preimage_mismatch')], 'redeem with a wrong preimage');
    await finish(m, w);
  }
  toString = () => `RedeemWrong(${this.pick},${this.wallet})`;
}

/**
 * The taker redeems the maker escrow on chain itself: ?mode=wallet, sign, submitSigned. `racingService`: the
 * service's own redeem for the taker is in flight at the same time and may land first, after which the
 * escrow is no longer the taker's to redeem (409, or a refused transaction).
 */
async function walletRedeem(
  w: World,
  t: MTrade,
  racingService = false,
): Promise<'landed' | 'refused' | 'unavailable'> {
  const {
    value: res,
    before,
    after,
  } = await bracketed(w, () =>
    w.post(`/v1/trades/${t.tradeId}/redeem?mode=wallet`, { preimage: t.secret.preimage }),
  );
  const redeemable = (now: number) =>
    !t.redeemRequested &&
    !t.takerRedeemed &&
    expected(t, now)?.substate === 'initiated.makerLocked' &&
    t.makerExpiry !== null &&
    now < t.makerExpiry;
  const allowed = [redeemable(before), redeemable(after)].map((ok) =>
    ok ? E(200) : E(409, 'not_redeemable'),
  );
  if (racingService) allowed.push(E(409, 'not_redeemable'));
  expectReply(res, allowed, 'redeem?mode=wallet');
  if (res.status !== 200) return 'unavailable';
  const sent = await bracketed(w, () => submit(w, signAsWallet(res.body.transaction.transaction_base64, t)));
  if ('signature' in sent.value) {
    expect(
      t.makerExpiry !== null && sent.before < t.makerExpiry,
      'the program redeemed an expired maker escrow',
    );
    t.takerRedeemed = true;
    return 'landed';
  }
  if (racingService) return 'refused';
  expect(
    t.makerExpiry !== null && sent.after >= t.makerExpiry - 1,
    `the taker's own redeem was refused before the maker expiry: ${JSON.stringify(sent.value)}`,
  );
  return 'refused';
}

export class RedeemWallet implements Cmd {
  constructor(readonly pick: number) {}
  private target = (m: Model) => choose(m, this.pick, started);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    await walletRedeem(w, t);
    await finish(m, w);
  }
  toString = () => `RedeemWallet(${this.pick})`;
}

// ── refund ────────────────────────────────────────────────────────────────────────────────────────

export class Refund implements Cmd {
  constructor(
    readonly pick: number,
    readonly wallet: boolean,
  ) {}
  private target = (m: Model) => choose(m, this.pick, started);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    const res = await w.post(`/v1/trades/${t.tradeId}/refund${this.wallet ? '?mode=wallet' : ''}`);
    // Once the taker escrow expires the runtime refunds it by itself (and the model has waited for that),
    // so a refund is never due when a client asks: 409, or the replay of one that was accepted.
    expectReply(res, t.refundRequested && !this.wallet ? [E(202)] : [E(409, 'not_refundable')], 'refund');
    await finish(m, w);
  }
  toString = () => `Refund(${this.pick},${this.wallet})`;
}

// ── the clock ─────────────────────────────────────────────────────────────────────────────────────

/** The next chain time at which the model expects some trade to change by itself. */
function nextExpiry(m: Model, now: number): number | null {
  let next: number | null = null;
  const consider = (at: number) => {
    if (at > now && (next === null || at < next)) next = at;
  };
  for (const t of m.trades) {
    if (t.tradeId !== null && t.chainMoved && t.seen !== null && !isFinal(t.seen)) {
      if (t.makerExpiry !== null) consider(t.makerExpiry);
      consider(t.takerExpiry);
      continue;
    }
    const e = expected(t, now);
    if (!e || isFinal(e.status)) continue;
    if (e.status === 'pending') consider(t.lockDeadline + 1);
    if (e.substate === 'initiated.makerLocked' && t.makerExpiry !== null) {
      consider(t.makerExpiry - TIMING.landing_margin_seconds);
      consider(t.makerExpiry);
    }
    if (e.status === 'initiated') consider(t.takerExpiry);
  }
  return next;
}

export class AdvanceToNextExpiry implements Cmd {
  constructor(readonly offset: number) {}
  check = (m: Model) => m.trades.some((t) => t.tradeId !== null && t.seen !== null && !isFinal(t.seen));
  async run(m: Model, w: World) {
    const now = await w.now();
    const next = nextExpiry(m, now);
    if (next !== null) {
      w.note(`advance ${next - now + this.offset}s to ${next + this.offset}`);
      await w.advance(next - now + this.offset);
    }
    await finish(m, w);
  }
  toString = () => `AdvanceToNextExpiry(+${this.offset})`;
}

export class AdvanceBy implements Cmd {
  constructor(readonly seconds: number) {}
  check = () => true;
  async run(m: Model, w: World) {
    await w.advance(this.seconds);
    await finish(m, w);
  }
  toString = () => `AdvanceBy(${this.seconds})`;
}

/** Jumps past the taker expiry and at once refunds on chain as the taker, racing the runtime's own refund. */
export class TakerRefundsItself implements Cmd {
  constructor(readonly pick: number) {}
  private target = (m: Model) =>
    choose(
      m,
      this.pick,
      (t) =>
        started(t) &&
        t.locked &&
        !t.chainMoved &&
        !t.redeemRequested &&
        !t.takerRedeemed &&
        t.seen === 'initiated',
    );
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    const now = await w.now();
    if (now < t.takerExpiry) await w.advance(t.takerExpiry - now);
    const res = await w.post(`/v1/trades/${t.tradeId}/refund?mode=wallet`);
    if (res.status === 200) {
      const sent = await submit(w, signAsWallet(res.body.transaction.transaction_base64, t));
      w.note(`taker refund itself: ${JSON.stringify(sent)}`);
      if (!('signature' in sent)) expect(sent.error === 'rejected', `taker refund: ${JSON.stringify(sent)}`);
    } else {
      // The runtime was faster: the escrow is refunded already.
      expectReply(res, [E(409, 'not_refundable')], 'refund?mode=wallet after the taker expiry');
    }
    await finish(m, w);
    const view = t.lastView as Json;
    const refund = (view.tx_signature_kinds as { kind: string; signature: string }[]).find(
      (k) => k.kind === 'taker_refund',
    );
    const onChain = await w.service.chain.signaturesForAddress(new PublicKey(t.takerEscrow), 'finalized', 20);
    expect(
      refund !== undefined && onChain.some((s) => s.signature === refund.signature && s.err === null),
      'the recorded taker_refund is not the one on chain',
    );
  }
  toString = () => `TakerRefundsItself(${this.pick})`;
}

// ── concurrency ───────────────────────────────────────────────────────────────────────────────────

export type ConcurrentKind =
  | 'lock'
  | 'abandon'
  | 'redeem'
  | 'settleRetry'
  | 'abandonVsLock'
  | 'redeemVsWallet';

/**
 * Several commands on one trade at once. With a scheduler, fast-check chooses the order in which the
 * requests leave the client (each still overlaps the others on the server); the order is part of the
 * printed counterexample and replays with the seed and path.
 */
export class Concurrent implements Cmd {
  constructor(
    readonly pick: number,
    readonly kind: ConcurrentKind,
    readonly copies: number,
    readonly scheduler?: fc.Scheduler,
  ) {}
  /** Starts every call, in the scheduler's order when there is one, and collects the answers in call order. */
  private async race<const T extends readonly (() => Promise<unknown>)[]>(
    calls: T,
  ): Promise<{ -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> }> {
    const s = this.scheduler;
    const answers =
      s === undefined
        ? calls.map((call) => call())
        : calls.map((call, i) => s.schedule(Promise.resolve(), `request ${i}`).then(call));
    if (s !== undefined) await s.waitNext(calls.length);
    return (await Promise.all(answers)) as { -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> };
  }
  private eligible = (t: MTrade) => {
    switch (this.kind) {
      case 'lock':
      case 'settleRetry':
      case 'abandonVsLock':
        return pendingUnlocked(t);
      default:
        return started(t);
    }
  };
  private target = (m: Model) => choose(m, this.pick, this.eligible);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    const id = t.tradeId as string;
    const n = this.copies;
    const fate = await sourcingFate(m, w, t);
    const before = await w.now();
    switch (this.kind) {
      case 'lock': {
        const body = { transaction_base64: signAsWallet(await freshLock(w, t), t) };
        const all = await this.race(
          Array.from({ length: n }, () => () => w.post(`/v1/trades/${id}/lock`, body)),
        );
        const after = await w.now();
        for (const res of all) applyLock(t, res, before, after, 'concurrent lock');
        expect(
          new Set(all.map((r) => r.status)).size === 1,
          `concurrent locks answered ${all.map((r) => r.status)}`,
        );
        if (t.locked) await afterLock(w, t, fate);
        break;
      }
      case 'abandon': {
        const all = await this.race(
          Array.from(
            { length: n },
            () => () => w.post(`/v1/trades/${id}/abandon`, { secret_hash: t.secret.secretHash }),
          ),
        );
        const after = await w.now();
        const allowed = [...abandonExpectations(t, before), ...abandonExpectations(t, after)];
        for (const res of all) expectReply(res, allowed, 'concurrent abandon');
        expect(
          new Set(all.map((r) => r.status)).size === 1,
          `concurrent abandons answered ${all.map((r) => r.status)}`,
        );
        if (all[0]?.status === 202) t.abandoned = true;
        break;
      }
      case 'redeem': {
        const all = await this.race(
          Array.from(
            { length: n },
            () => () => w.post(`/v1/trades/${id}/redeem`, { preimage: t.secret.preimage }),
          ),
        );
        const after = await w.now();
        const allowed = [...redeemExpectations(t, before), ...redeemExpectations(t, after)];
        for (const res of all) expectReply(res, allowed, 'concurrent redeem');
        expect(
          new Set(all.map((r) => r.status)).size === 1,
          `concurrent redeems answered ${all.map((r) => r.status)}`,
        );
        if (all[0]?.status === 202) t.redeemRequested = true;
        break;
      }
      case 'settleRetry': {
        const body = { taker_wallet: t.taker, secret_hash: t.secret.secretHash };
        const all = await this.race(
          Array.from({ length: n }, () => () => w.post(`/v1/quotes/${t.quoteId}/wallet-settlement`, body)),
        );
        const after = await w.now();
        for (const res of all) {
          if (after <= t.lockDeadline) expectReply(res, [E(200)], 'settlement retry');
          else if (before > t.lockDeadline)
            expectReply(res, [E(409, 'lock_window_closed')], 'settlement retry');
          else expectReply(res, [E(200), E(409, 'lock_window_closed')], 'settlement retry');
          if (res.status === 200) {
            expect(
              res.body.trade_id === id && res.body.taker_escrow === t.takerEscrow,
              'retry answered another trade',
            );
            expect(isoSeconds(res.body.expires_at) === t.takerExpiry, 'retry changed the expiry');
            t.lockTx = { base64: res.body.taker_lock_transaction.transaction_base64, at: after };
          }
        }
        break;
      }
      case 'abandonVsLock': {
        const body = { transaction_base64: signAsWallet(await freshLock(w, t), t) };
        const [abandon, lock] = await this.race([
          () => w.post(`/v1/trades/${id}/abandon`, { secret_hash: t.secret.secretHash }),
          () => w.post(`/v1/trades/${id}/lock`, body),
        ]);
        const after = await w.now();
        w.note(`abandon ${abandon.status} vs lock ${lock.status}`);
        expect(!(abandon.status === 202 && lock.status === 202), 'abandon and lock both accepted');
        if (abandon.status === 202) {
          t.abandoned = true;
          expectReply(
            lock,
            [E(409, 'lock_window_closed'), E(409, 'not_abandonable')],
            'lock after a concurrent abandon',
          );
        } else {
          expectReply(
            abandon,
            [E(409, 'not_abandonable'), E(409, 'lock_signature_exists')],
            'abandon racing a lock',
          );
          applyLock(t, lock, before, after, 'lock racing an abandon');
          if (lock.status !== 202) t.lockSubmitted = true;
          if (t.locked) await afterLock(w, t, fate);
        }
        break;
      }
      case 'redeemVsWallet': {
        // What the service may answer is fixed before the wallet's redeem changes the model.
        const allowedBefore = redeemExpectations(t, before);
        const [service, wallet] = await this.race([
          () => w.post(`/v1/trades/${id}/redeem`, { preimage: t.secret.preimage }),
          () => walletRedeem(w, t, true),
        ]);
        const after = await w.now();
        // The wallet's redeem may land first: then the trade reached redeemed another way (409).
        expectReply(
          service,
          [
            ...allowedBefore,
            ...redeemExpectations({ ...t, takerRedeemed: false }, after),
            E(409, 'not_redeemable'),
          ],
          'redeem racing the wallet',
        );
        w.note(`service redeem ${service.status} vs wallet ${wallet}`);
        if (service.status === 202) t.redeemRequested = true;
        break;
      }
    }
    await finish(m, w);
    if (t.lastView) {
      for (const kind of ['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem']) {
        expect(
          kindsOf(t.lastView).filter((k) => k === kind).length <= 1,
          `two ${kind} after concurrent ${this.kind}`,
        );
      }
    }
  }
  toString = () =>
    `Concurrent(${this.pick},${this.kind}x${this.copies}${this.scheduler ? `,${this.scheduler}` : ''})`;
}

// ── restart ───────────────────────────────────────────────────────────────────────────────────────

export class Restart implements Cmd {
  check = (m: Model) => m.trades.some(started);
  async run(m: Model, w: World) {
    const before = new Map<string, { status: Status; seqs: number[] }>();
    for (const t of m.trades) {
      if (t.tradeId === null) continue;
      const view = await w.trade(t.tradeId);
      before.set(t.tradeId, {
        status: view.settlement_status,
        seqs: (await w.events(t.tradeId)).map((e) => e.seq),
      });
    }
    await w.restart();
    // A new process serves the venue's API anew.
    m.venueDown = false;
    for (const [id, was] of before) {
      const res = await w.get(`/v1/trades/${id}`);
      expect(
        res.status === 200,
        `after restart trade ${id} answers ${res.status} ${JSON.stringify(res.body)}`,
      );
      const status = res.body.settlement_status as Status;
      if (isFinal(was.status))
        expect(status === was.status, `restart moved ${id} from ${was.status} to ${status}`);
      const rank = { pending: 0, initiated: 1, redeemed: 2, refunded: 2, failed: 2 } as const;
      expect(rank[status] >= rank[was.status], `restart took ${id} back from ${was.status} to ${status}`);
      const seqs = new Set((await w.events(id)).map((e) => e.seq));
      const lost = was.seqs.filter((s) => !seqs.has(s));
      expect(lost.length === 0, `restart lost events ${lost} of ${id}`);
      const closed = CLOSED_SUBSTATES.includes(res.body.substate);
      expect(
        closed || res.body.current_run === true,
        `after restart a ${res.body.substate} trade is not owned by the new run`,
      );
    }
    await finish(m, w);
  }
  toString = () => 'Restart';
}

/**
 * What a run killed between an intent and its send leaves behind (the kill -9 property meets it by timing,
 * mostly on a loaded machine): the maker's redeem of the taker escrow signed with the trade's preimage, its
 * intent durably recorded as the runtime records one (signature, last valid block height), and the
 * transaction never sent. The next run signs that redeem again; until the chain passes the first one's last
 * valid block height it could still land (a fee the books must show), so the trade closes only then.
 */
export class IntentNeverSent implements Cmd {
  constructor(readonly pick: number) {}
  private target = (m: Model) =>
    choose(m, this.pick, (t) => started(t) && t.locked && t.makerExpiry !== null && !t.chainMoved);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    const tx = await w.service.chain.signMakerRedeem({
      takerEscrow: new PublicKey(t.takerEscrow),
      inputMint: new PublicKey(t.inputMint),
      preimage: Buffer.from(t.secret.preimage, 'hex'),
    });
    await w.service.runtime.host.note(t.tradeId as string, 'TX_INTENT', {
      kind: 'maker_redeem',
      signature: tx.signature,
      last_valid_block_height: tx.lastValidBlockHeight,
    });
    w.note(
      `trade #${t.n}: maker_redeem ${tx.signature} recorded, never sent (valid to ${tx.lastValidBlockHeight})`,
    );
    await finish(m, w);
  }
  toString = () => `IntentNeverSent(${this.pick})`;
}

// ── the adversarial taker ─────────────────────────────────────────────────────────────────────────

/** Locks after its window: the program must refuse the lock, and the trade stays failed. */
export class LateLock implements Cmd {
  constructor(
    readonly pick: number,
    readonly extra: number,
  ) {}
  private target = (m: Model) => choose(m, this.pick, pendingUnlocked);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    const signedEarlier = signAsWallet((t.lockTx as { base64: string }).base64, t);
    const now = await w.now();
    if (now <= t.lockDeadline) await w.advance(t.lockDeadline - now + 1 + this.extra);
    await settle(m, w);
    let sent = await submit(w, signedEarlier);
    w.note(`late lock (held): ${JSON.stringify(sent)}`);
    if ('error' in sent && sent.error === 'blockhash_expired') {
      // Its blockhash is gone too: the taker rebuilds the same lock on a fresh one.
      sent = await submit(w, signAsWallet(await freshLock(w, t), t));
      w.note(`late lock (rebuilt): ${JSON.stringify(sent)}`);
      expect(
        'error' in sent && sent.htlc === 'LockDeadlinePassed',
        `rebuilt late lock: ${JSON.stringify(sent)}`,
      );
    }
    expect('error' in sent, 'the program accepted a lock after its deadline');
    expect(
      (await w.service.chain.readEscrow(new PublicKey(t.takerEscrow), 'confirmed')) === null,
      'a taker escrow exists after a refused late lock',
    );
    // The service refuses it too.
    const res = await w.post(`/v1/trades/${t.tradeId}/lock`, {
      transaction_base64: signAsWallet(await freshLock(w, t), t),
    });
    expectReply(res, [E(409, 'lock_window_closed')], 'late lock through the service');
    await finish(m, w);
  }
  toString = () => `LateLock(${this.pick},+${this.extra})`;
}

/** Abandons, then sends the lock it held while the window is still open: the runtime must release it. */
export class LockAfterAbandon implements Cmd {
  constructor(readonly pick: number) {}
  private target = (m: Model) => choose(m, this.pick, (t) => t.abandoned && !t.lateLock && t.lockTx !== null);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    // A usable lock for a failed trade is never handed out.
    const retry = await w.post(`/v1/quotes/${t.quoteId}/wallet-settlement`, {
      taker_wallet: t.taker,
      secret_hash: t.secret.secretHash,
    });
    expectReply(retry, [E(409, 'lock_window_closed')], 'settlement retry after abandon');
    const signed = signAsWallet(await freshLock(w, t), t);
    const { value: sent, before, after } = await bracketed(w, () => submit(w, signed));
    w.note(`lock after abandon: ${JSON.stringify(sent)}`);
    if ('signature' in sent) {
      expect(before <= t.lockDeadline, 'the program accepted a lock after its deadline');
      t.lateLock = true;
    } else {
      expect(after > t.lockDeadline - 1, `a lock inside the window was refused: ${JSON.stringify(sent)}`);
    }
    await finish(m, w);
  }
  toString = () => `LockAfterAbandon(${this.pick})`;
}

/** Locks this trade's escrow with a transaction it built itself, with other terms. */
export class WrongTerms implements Cmd {
  constructor(
    readonly pick: number,
    readonly variant: 'amount' | 'expiry',
    readonly viaService: boolean,
  ) {}
  private target = (m: Model) => choose(m, this.pick, pendingUnlocked);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    const { chain } = w.service;
    const taker = t.wallet.publicKey;
    const inputMint = new PublicKey(t.inputMint);
    const amount = this.variant === 'amount' ? t.inputRaw - 1n : t.inputRaw;
    const expiry = BigInt(this.variant === 'expiry' ? t.takerExpiry + 7 : t.takerExpiry);
    const inputAccount = ata(taker, inputMint);
    const tx = new Transaction();
    tx.add(
      createAssociatedTokenAccountIdempotentInstruction(
        taker,
        ata(taker, new PublicKey(t.outputMint)),
        taker,
        new PublicKey(t.outputMint),
      ),
    );
    if (t.inputMint === SOL) {
      tx.add(
        createAssociatedTokenAccountIdempotentInstruction(taker, inputAccount, taker, inputMint),
        SystemProgram.transfer({ fromPubkey: taker, toPubkey: inputAccount, lamports: amount }),
        createSyncNativeInstruction(inputAccount),
      );
    }
    tx.add(
      lockInstruction({
        programId: chain.programId,
        initializer: taker,
        recipient: chain.makerWallet,
        mint: inputMint,
        initializerTokenAccount: inputAccount,
        hashlock: Uint8Array.from(Buffer.from(t.secret.secretHash, 'hex')),
        amount,
        expiry,
        lockDeadline: BigInt(t.lockDeadline),
      }),
    );
    const { blockhash, lastValidBlockHeight } = await chain.latestBlockhash();
    tx.recentBlockhash = blockhash;
    tx.lastValidBlockHeight = lastValidBlockHeight;
    tx.feePayer = taker;
    tx.sign(t.wallet);
    const signed = tx.serialize().toString('base64');
    const before = await w.now();
    let landed: boolean;
    if (this.viaService) {
      const res = await w.post(`/v1/trades/${t.tradeId}/lock`, { transaction_base64: signed });
      w.note(
        `wrong-terms lock via service: ${res.status} ${res.body?.settlement_status ?? JSON.stringify(res.body?.error)}`,
      );
      expectReply(res, [E(400, 'lock_mismatch'), E(202), E(409, 'lock_window_closed')], 'wrong-terms lock');
      expect(
        !(res.status === 202 && res.body.settlement_status !== 'failed'),
        `the service accepted a lock with another ${this.variant} as the trade's: ${res.status} ${res.body.settlement_status}`,
      );
      landed = (await chain.readEscrow(new PublicKey(t.takerEscrow), 'confirmed')) !== null;
    } else {
      const sent = await submit(w, signed);
      w.note(`wrong-terms lock on chain: ${JSON.stringify(sent)}`);
      landed = 'signature' in sent;
    }
    if (landed) t.wrongTerms = this.variant;
    // Through /lock the service may refuse it before sending it (400): then nothing landed. Sent on chain by
    // the taker itself inside the window, the program takes it (it is the taker's own escrow).
    else if (!this.viaService)
      expect(before >= t.lockDeadline - 1, 'a wrong-terms lock inside the window did not land');
    await finish(m, w);
  }
  toString = () => `WrongTerms(${this.pick},${this.variant},${this.viaService ? 'service' : 'chain'})`;
}

// ── the adversarial taker on chain ─────────────────────────────────────────────────────────────────

/** What a taker may sign besides the API's transactions (programs/htlc/README.md). */
export type MoveKind =
  | 'cancel'
  | 'redeemMaker'
  | 'redeemTaker'
  | 'refund'
  | 'close'
  | 'donateMaker'
  | 'donateTaker';

const MOVES: Record<MoveKind, TakerMove> = {
  cancel: { kind: 'cancelMakerEscrow' },
  redeemMaker: { kind: 'redeemMakerEscrow' },
  redeemTaker: { kind: 'redeemTakerEscrowForMaker' },
  refund: { kind: 'refundTakerEscrow' },
  close: { kind: 'closeTakerEscrow' },
  donateMaker: { kind: 'donate', escrow: 'maker', amount: 1n },
  donateTaker: { kind: 'donate', escrow: 'taker', amount: 1n },
};

/**
 * The moves of one taker transaction: mostly combinations a taker would send (each way the program lets a taker end an escrow,
 * the one-transaction exit that redeems both escrows and closes its own, dust in the vaults), sometimes any
 * one to three moves in any order (the chain refuses most of those, atomically).
 */
export const moveListArbitrary: fc.Arbitrary<MoveKind[]> = fc.oneof(
  {
    arbitrary: fc.constantFrom<MoveKind[]>(
      ['cancel'],
      ['redeemMaker'],
      ['redeemTaker'],
      ['refund'],
      ['close'],
      ['donateMaker'],
      ['donateTaker'],
      ['donateMaker', 'donateTaker'],
      ['redeemMaker', 'redeemTaker'],
      ['redeemMaker', 'redeemTaker', 'close'],
      ['redeemTaker', 'close'],
      ['cancel', 'close'],
      ['refund', 'close'],
      ['cancel', 'refund', 'close'],
    ),
    weight: 4,
  },
  {
    arbitrary: fc.array(fc.constantFrom(...(Object.keys(MOVES) as MoveKind[])), {
      minLength: 1,
      maxLength: 3,
    }),
    weight: 1,
  },
);

function sideOf(maker: PublicKey, t: MTrade): TakerSide {
  return {
    wallet: t.wallet,
    maker,
    takerEscrow: new PublicKey(t.takerEscrow),
    makerEscrow: new PublicKey(t.makerEscrow),
    inputMint: new PublicKey(t.inputMint),
    outputMint: new PublicKey(t.outputMint),
    preimage: t.secret.preimage,
  };
}

/** A taker escrow was locked at some point (else every move is refused and nothing is learnt). */
const everLocked = (t: MTrade) => started(t) && (t.locked || t.lateLock || t.wrongTerms !== null);

/**
 * Signs and submits the moves in one transaction on `chain`; records what landed in the model. A refusal
 * changes nothing (the program's checks are atomic) and must be the chain's or the program's own.
 */
export async function takerMoves(
  chain: Parameters<typeof submitMoves>[0] & { makerWallet: PublicKey },
  t: MTrade,
  kinds: readonly MoveKind[],
  note: (line: string) => void,
): Promise<void> {
  const moves = kinds.map((k) => MOVES[k]);
  const result = await submitMoves(chain, sideOf(chain.makerWallet, t), moves);
  note(`taker #${t.n}: ${moves.map(describeMove).join('+')} → ${JSON.stringify(result)}`);
  if (!result.landed) {
    expect(
      result.error !== 'unavailable',
      `the chain was unavailable to the taker: ${JSON.stringify(result)}`,
    );
    return;
  }
  for (const move of moves) {
    switch (move.kind) {
      case 'cancelMakerEscrow':
      case 'redeemMakerEscrow':
      case 'redeemTakerEscrowForMaker':
      case 'refundTakerEscrow':
        t.chainMoved = true;
        break;
      case 'closeTakerEscrow':
        t.takerClosed = true;
        break;
      case 'donate':
        t.donated[move.escrow] += move.amount;
        break;
    }
  }
}

/**
 * The taker signs instructions of the program itself, with the service running — perhaps the moment an
 * expiry comes, racing what the runtime does then.
 */
export class TakerChainMove implements Cmd {
  constructor(
    readonly pick: number,
    readonly kinds: MoveKind[],
    readonly clock: ClockJump = 'none',
  ) {}
  private target = (m: Model) => choose(m, this.pick, everLocked);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    const to = expiryOf(t, this.clock);
    const now = await w.now();
    if (to !== null && now < to) {
      w.note(`advance ${to - now}s to the ${this.clock}`);
      await w.advance(to - now);
    }
    await takerMoves(w.service.chain, t, this.kinds, (line) => w.note(`on chain, ${line}`));
    await finish(m, w);
  }
  toString = () =>
    `TakerChainMove(${this.pick},${this.kinds.join('+')}${this.clock === 'none' ? '' : `,${this.clock}`})`;
}

const expiryOf = (t: MTrade, clock: ClockJump): number | null =>
  clock === 'makerExpiry' ? t.makerExpiry : clock === 'takerExpiry' ? t.takerExpiry : null;

export type ClockJump = 'none' | 'makerExpiry' | 'takerExpiry';

/**
 * The service stops; meanwhile the chain clock may move past an expiry and the taker makes its moves
 * (e.g. redeems the maker escrow and closes its own escrow, or cancels and later refunds); then a new run
 * starts on the same DATA_DIR and must find out how everything ended.
 */
export class MoveWhileStopped implements Cmd {
  constructor(
    readonly pick: number,
    readonly before: MoveKind[],
    readonly clock: ClockJump,
    readonly after: MoveKind[],
  ) {}
  private target = (m: Model) => choose(m, this.pick, everLocked);
  check = (m: Model) => this.target(m) !== undefined;
  async run(m: Model, w: World) {
    const t = this.target(m) as MTrade;
    const note = (line: string) => w.note(`while stopped, ${line}`);
    await w.whileStopped(async (chain) => {
      await takerMoves(chain, t, this.before, note);
      const to =
        this.clock === 'makerExpiry' ? t.makerExpiry : this.clock === 'takerExpiry' ? t.takerExpiry : null;
      const now = Number(await chain.now());
      if (to !== null && now < to) {
        w.note(`advance ${to - now}s while stopped`);
        await chain.advanceClock(to - now);
      }
      if (this.after.length > 0) await takerMoves(chain, t, this.after, note);
    });
    m.venueDown = false;
    await finish(m, w);
  }
  toString = () =>
    `MoveWhileStopped(${this.pick},${this.before.join('+')},${this.clock},${this.after.join('+') || '-'})`;
}

// ── the venue ─────────────────────────────────────────────────────────────────────────────────────

/**
 * The venue's API goes down: its server closes, so the aggregator's base URL no longer answers (a real
 * fault of the path the production client takes). Until the service starts again, a sourced quote is refused
 * and a sourced trade whose taker locks is released at once.
 */
export class VenueDown implements Cmd {
  check = (m: Model) => m.venueDown !== true;
  async run(m: Model, w: World) {
    await w.venue.close();
    m.venueDown = true;
    w.note('the venue’s API is down');
    await finish(m, w);
  }
  toString = () => 'VenueDown';
}

/** SPL Memo v2 (preloaded on the embedded chain). */
const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** USDC raw units the model's trader swaps into the JUP pool: 5% of its side, its JUP dearer by some 10%. */
const SLIP_RAW = 100_000n * 10n ** 6n;

/** The pool's price of A in B at the reference prices (no Pyth publisher: the venue has no keeper). */
function referenceRatio(w: World, x: string, y: string): Ratio {
  const pool = w.pool(x, y);
  const a = pool.assetA;
  const b = pool.assetB;
  // (usdA / 10^dA) / (usdB / 10^dB), in B raw per A raw.
  return {
    num: a.referenceUsd.num * b.referenceUsd.den * 10n ** BigInt(b.decimals),
    den: a.referenceUsd.den * b.referenceUsd.num * 10n ** BigInt(a.decimals),
  };
}

/** The model's trader swaps exact-in on the venue's pool directly on chain (its own transaction). */
async function traderSwap(
  w: World,
  inputMint: string,
  outputMint: string,
  amountIn: bigint,
): Promise<string> {
  const pool = w.pool(inputMint, outputMint);
  const trader = w.trader.publicKey;
  const held = await w.tokenBalance(trader, inputMint);
  if (held < amountIn) {
    await w.chain.airdrop({ wallet: trader, mint: new PublicKey(inputMint), amount: amountIn - held });
    w.traderFunded.set(inputMint, (w.traderFunded.get(inputMint) ?? 0n) + amountIn - held);
  }
  const aIn = pool.mintA.toBase58() === inputMint;
  const tx = new Transaction().add(
    createAssociatedTokenAccountIdempotentInstruction(
      trader,
      ata(trader, new PublicKey(outputMint)),
      trader,
      new PublicKey(outputMint),
    ),
    swapInstruction({
      programId: w.venue.programId,
      user: trader,
      pool: pool.pool,
      vaultIn: aIn ? pool.vaultA : pool.vaultB,
      vaultOut: aIn ? pool.vaultB : pool.vaultA,
      userSource: ata(trader, new PublicKey(inputMint)),
      userDestination: ata(trader, new PublicKey(outputMint)),
      amountIn,
      minOut: 1n,
    }),
    // A nonce: the same swap again on a frozen clock would otherwise be the same bytes, a duplicate.
    new TransactionInstruction({
      programId: MEMO_PROGRAM_ID,
      keys: [],
      data: Buffer.from(`model trader ${randomBytes(8).toString('hex')}`),
    }),
  );
  const { blockhash, lastValidBlockHeight } = await w.service.chain.latestBlockhash();
  tx.recentBlockhash = blockhash;
  tx.lastValidBlockHeight = lastValidBlockHeight;
  tx.feePayer = trader;
  tx.sign(w.trader);
  const sent = await submit(w, tx.serialize().toString('base64'));
  expect('signature' in sent, `the trader's swap was refused: ${JSON.stringify(sent)}`);
  return sent.signature;
}

/** How far the JUP pool's price is from the reference, in bps. */
function jupPoolDeviation(w: World): bigint {
  const now = w.venue.snapshot(w.pool(USDC, JUP));
  if (now === null) throw new Error('no JUP pool on chain');
  return deviationBps({ num: now.reserveB, den: now.reserveA }, referenceRatio(w, USDC, JUP));
}

/**
 * A large swap straight against the JUP pool (no keeper brings it back): its route now pays far below the
 * mid less the slippage limit, so a sourced quote settled before is released when its taker locks, and a
 * new one is refused.
 */
export class VenueSlip implements Cmd {
  check = (m: Model) => m.slipped !== true;
  async run(m: Model, w: World) {
    const signature = await traderSwap(w, USDC, JUP, SLIP_RAW);
    const deviation = jupPoolDeviation(w);
    w.note(`the JUP pool slipped ${deviation} bps (${signature})`);
    expect(deviation > 500n, `the slip moved the pool only ${deviation} bps`);
    m.slipped = true;
    await finish(m, w);
  }
  toString = () => 'VenueSlip';
}

/** The trader arbitrages the JUP pool back to the reference price, as the venue's keeper would. */
export class VenueRestore implements Cmd {
  check = () => true;
  async run(m: Model, w: World) {
    const pool = w.pool(USDC, JUP);
    const now = w.venue.snapshot(pool);
    if (now === null) throw new Error('no JUP pool on chain');
    const target = referenceRatio(w, USDC, JUP);
    // A is dear in the pool: sell A down to the target; else sell B (the inverse target).
    const sellA = now.reserveB * target.den > target.num * now.reserveA;
    const reserves = sellA
      ? { reserveIn: now.reserveA, reserveOut: now.reserveB }
      : { reserveIn: now.reserveB, reserveOut: now.reserveA };
    const goal = sellA ? target : { num: target.den, den: target.num };
    const amountIn = amountInToReach(reserves, goal, now.feeBps, reserves.reserveIn);
    if (amountIn > 0n && swapExactIn(reserves, amountIn, now.feeBps).ok) {
      const [input, output] = sellA ? [pool.mintA, pool.mintB] : [pool.mintB, pool.mintA];
      await traderSwap(w, input.toBase58(), output.toBase58(), amountIn);
    }
    const deviation = jupPoolDeviation(w);
    w.note(`the JUP pool restored to ${deviation} bps from the reference`);
    expect(deviation <= 1n, `the JUP pool is still ${deviation} bps away`);
    m.slipped = false;
    await finish(m, w);
  }
  toString = () => 'VenueRestore';
}

// ── the command set ───────────────────────────────────────────────────────────────────────────────

export function commandArbitraries() {
  const pick = fc.nat(7);
  return [
    fc.tuple(fc.nat(PAIR_COUNT - 1), fc.nat(2)).map(([p, s]) => new NewTrade(p, s)),
    // A sourced trade more often than one pair in five, so the venue's faults meet sourced trades.
    fc.nat(1).map((s) => new NewTrade(PAIR_COUNT - 1, s)),
    pick.map((p) => new Settle(p)),
    pick.map((p) => new Settle(p)),
    pick.map((p) => new Lock(p)),
    pick.map((p) => new Lock(p)),
    pick.map((p) => new Lock(p)),
    fc.tuple(pick, fc.boolean()).map(([p, u]) => new AbandonRight(p, u)),
    pick.map((p) => new AbandonWrong(p)),
    pick.map((p) => new RedeemService(p)),
    fc.tuple(pick, fc.boolean()).map(([p, wallet]) => new RedeemWrong(p, wallet)),
    pick.map((p) => new RedeemWallet(p)),
    fc.tuple(pick, fc.boolean()).map(([p, wallet]) => new Refund(p, wallet)),
    fc.nat(2).map((o) => new AdvanceToNextExpiry(o)),
    fc.nat(2).map((o) => new AdvanceToNextExpiry(o)),
    fc.integer({ min: 1, max: 25 }).map((s) => new AdvanceBy(s)),
    pick.map((p) => new TakerRefundsItself(p)),
    fc
      .tuple(
        pick,
        fc.constantFrom<ConcurrentKind>(
          'lock',
          'abandon',
          'redeem',
          'settleRetry',
          'abandonVsLock',
          'redeemVsWallet',
        ),
        fc.integer({ min: 2, max: 4 }),
        fc.scheduler(),
      )
      .map(([p, k, n, s]) => new Concurrent(p, k, n, s)),
    fc.constant(new Restart()),
    // The venue fails: down until the next start, or slipped until restored.
    fc.constant(new VenueDown()),
    fc.constant(new VenueDown()),
    fc.constant(new VenueSlip()),
    fc.constant(new VenueSlip()),
    fc.constant(new VenueRestore()),
    fc.tuple(pick, fc.nat(3)).map(([p, e]) => new LateLock(p, e)),
    pick.map((p) => new LockAfterAbandon(p)),
    fc
      .tuple(pick, fc.constantFrom('amount' as const, 'expiry' as const), fc.boolean())
      .map(([p, v, s]) => new WrongTerms(p, v, s)),
    fc.tuple(pick, moveListArbitrary).map(([p, k]) => new TakerChainMove(p, k)),
    fc.tuple(pick, moveListArbitrary).map(([p, k]) => new TakerChainMove(p, k)),
    fc
      .tuple(pick, moveListArbitrary, fc.constantFrom<ClockJump>('makerExpiry', 'takerExpiry'))
      .map(([p, k, c]) => new TakerChainMove(p, k, c)),
    fc
      .tuple(
        pick,
        moveListArbitrary,
        fc.constantFrom<ClockJump>('none', 'makerExpiry', 'takerExpiry'),
        fc.oneof(fc.constant<MoveKind[]>([]), moveListArbitrary),
      )
      .map(([p, b, c, a]) => new MoveWhileStopped(p, b, c, a)),
  ];
}
