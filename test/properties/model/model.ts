// The reference model: what each trade should look like, derived from the facts the commands established
// (locked, abandoned, redeem requested, ...) and the chain clock; and the invariants checked against the
// real service after every command.
import type { Keypair } from '@solana/web3.js';
import { PublicKey } from '@solana/web3.js';
import { type Json, type Secret, SOL, SOL_FEE_TOLERANCE, TIMING, type World } from './world.ts';

export type Status = 'pending' | 'initiated' | 'redeemed' | 'refunded' | 'failed';
const FINAL: readonly Status[] = ['redeemed', 'refunded', 'failed'];
export const isFinal = (s: Status) => FINAL.includes(s);
const RANK: Record<Status, number> = { pending: 0, initiated: 1, redeemed: 2, refunded: 2, failed: 2 };

/** Substates in which a trade is closed: final, nothing left in any escrow (the runtime drops its actor). */
export const CLOSED_SUBSTATES = ['redeemed.closed', 'refunded.closed', 'failed.noLock', 'failed.released'];

export interface MTrade {
  n: number;
  wallet: Keypair;
  taker: string;
  inputMint: string;
  outputMint: string;
  inputRaw: bigint;
  outputRaw: bigint;
  quoteId: string;
  quotedAtMs: number;
  /** The quote expired before settlement: the trade never started. */
  dead: boolean;
  secret: Secret;
  tradeId: string | null;
  lockTx: { base64: string; at: number } | null;
  takerEscrow: string;
  makerEscrow: string;
  lockDeadline: number;
  takerExpiry: number;
  makerExpiry: number | null;
  // Facts the commands established.
  /** The service answered 202 to /lock: the agreed lock is final on chain. */
  locked: boolean;
  /** The service holds a lock signature for the still-pending trade (lock answered other than 202). */
  lockSubmitted: boolean;
  abandoned: boolean;
  /** A lock the taker sent after abandoning landed on chain. */
  lateLock: boolean;
  /** A lock with other terms landed in this trade's escrow. */
  wrongTerms: 'amount' | 'expiry' | null;
  redeemRequested: boolean;
  /** The taker's own redeem of the maker escrow landed on chain. */
  takerRedeemed: boolean;
  refundRequested: boolean;
  /** Taker holdings (SOL: lamports + wrapped) right after its airdrop. */
  start: { input: bigint; output: bigint };
  /** Highest status seen; a final one never changes. */
  seen: Status | null;
  lastView: Json | null;
}

export interface Model {
  trades: MTrade[];
  maxTrades: number;
}

export interface Expected {
  status: Status;
  /** Allowed substates (the first is the one the model expects; others are equivalent namings). */
  substate: string | string[];
  reasons: (string | null)[];
  /** Allowed orders of tx_signature_kinds. */
  kinds: string[][];
}

/** The settled (quiescent) state a trade must reach, given the facts and the chain clock. */
export function expected(t: MTrade, now: number): Expected | null {
  if (t.tradeId === null) return null;
  if (t.wrongTerms !== null)
    return {
      status: 'failed',
      substate: 'failed.released',
      reasons: ['lock_terms_mismatch'],
      kinds: [['taker_lock', 'taker_refund']],
    };
  if (t.abandoned)
    return t.lateLock
      ? {
          status: 'failed',
          substate: 'failed.released',
          reasons: ['abandoned'],
          kinds: [['taker_lock', 'taker_refund']],
        }
      : {
          status: 'failed',
          // While the window is open the runtime keeps watching the escrow (a lock may still land).
          substate: now > t.lockDeadline ? 'failed.noLock' : ['failed.lockWindowOpen', 'failed.noLock'],
          reasons: ['abandoned'],
          kinds: [[]],
        };
  if (!t.locked) {
    if (now > t.lockDeadline)
      return {
        status: 'failed',
        substate: 'failed.noLock',
        reasons: ['lock_window_expired', 'lock_not_landed'],
        kinds: [[]],
      };
    return {
      status: 'pending',
      substate: t.lockSubmitted ? 'pending.lockSubmitted' : 'pending.awaitingLock',
      reasons: [null],
      kinds: [[]],
    };
  }
  if (t.redeemRequested || t.takerRedeemed)
    return {
      status: 'redeemed',
      substate: 'redeemed.closed',
      reasons: [null],
      kinds: [['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem']],
    };
  if (t.makerExpiry === null) throw new Error(`trade ${t.n} locked without a maker expiry`);
  if (now >= t.takerExpiry)
    return {
      status: 'refunded',
      substate: 'refunded.closed',
      // The taker may refund itself before the runtime reclaims the maker escrow (no reason then).
      reasons: ['maker_escrow_expired', null],
      kinds: [
        ['taker_lock', 'maker_lock', 'maker_refund', 'taker_refund'],
        ['taker_lock', 'maker_lock', 'taker_refund', 'maker_refund'],
      ],
    };
  if (now >= t.makerExpiry)
    return {
      status: 'initiated',
      substate: 'initiated.awaitingTakerExpiry',
      reasons: ['maker_escrow_expired'],
      kinds: [['taker_lock', 'maker_lock', 'maker_refund']],
    };
  return {
    status: 'initiated',
    substate: 'initiated.makerLocked',
    reasons: [null],
    kinds: [['taker_lock', 'maker_lock']],
  };
}

function matches(view: Json, e: Expected): boolean {
  const kinds = (view.tx_signature_kinds as { kind: string }[]).map((k) => k.kind);
  return (
    view.settlement_status === e.status &&
    (Array.isArray(e.substate) ? e.substate.includes(view.substate) : view.substate === e.substate) &&
    e.reasons.includes(view.failure_reason) &&
    e.kinds.some((k) => JSON.stringify(kinds) === JSON.stringify(k))
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls every started trade until it shows what the model expects at the current chain time (the runtime
 * acts on its own timer), then records the views. Fails with the trades that never got there.
 */
export async function settle(model: Model, world: World, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const before = await world.now();
    const pending: string[] = [];
    for (const t of model.trades) {
      if (t.tradeId === null) continue;
      const view = await world.trade(t.tradeId);
      const after = await world.now();
      const ok = [before, after].some((now) => {
        const e = expected(t, now);
        return e !== null && matches(view, e);
      });
      if (ok) {
        t.lastView = view;
        if (t.makerExpiry === null && view.maker_expires_at)
          t.makerExpiry = isoSeconds(view.maker_expires_at);
      } else {
        pending.push(
          `trade #${t.n}: is ${view.settlement_status}/${view.substate} reason=${view.failure_reason} kinds=${kindsOf(view).join(',')}; ` +
            `expected ${JSON.stringify(expected(t, after))} (now=${after}, lockDeadline=${t.lockDeadline}, makerExpiry=${t.makerExpiry}, takerExpiry=${t.takerExpiry})`,
        );
      }
    }
    if (pending.length === 0) return;
    if (Date.now() > until)
      throw new Error(`trades did not settle as the model expects:\n${pending.join('\n')}`);
    await sleep(40);
  }
}

export const kindsOf = (view: Json): string[] =>
  (view.tx_signature_kinds as { kind: string }[]).map((k) => k.kind);
export const isoSeconds = (iso: string) => Math.round(Date.parse(iso) / 1000);

function fail(message: string): never {
  throw new Error(`invariant: ${message}`);
}

/** Every invariant, on the views `settle` just recorded and on the chain. */
export async function checkInvariants(model: Model, world: World): Promise<void> {
  const { chain } = world;
  const maker = world.makerWallet.toBase58();
  const started = model.trades.filter((t) => t.tradeId !== null && t.lastView !== null);

  for (const t of started) {
    const view = t.lastView as Json;
    const status = view.settlement_status as Status;
    // settlement_status never leaves a final status, and never goes back.
    if (t.seen !== null) {
      if (isFinal(t.seen) && status !== t.seen) fail(`trade #${t.n} left ${t.seen} for ${status}`);
      if (RANK[status] < RANK[t.seen]) fail(`trade #${t.n} went back from ${t.seen} to ${status}`);
    }
    t.seen = status;

    // Every ledger balanced.
    if (view.ledger_summary?.balanced !== true)
      fail(`trade #${t.n} ledger not balanced: ${JSON.stringify(view.ledger_summary)}`);

    // No maker lock without a final matching taker lock before it.
    const kinds = kindsOf(view);
    const makerLockAt = kinds.indexOf('maker_lock');
    if (kinds.filter((k) => k === 'maker_lock').length > 1) fail(`trade #${t.n} has two maker locks`);
    if (kinds.filter((k) => k === 'taker_lock').length > 1) fail(`trade #${t.n} has two taker locks`);
    if (makerLockAt >= 0) {
      const takerLockAt = kinds.indexOf('taker_lock');
      if (takerLockAt < 0 || takerLockAt > makerLockAt)
        fail(`trade #${t.n} maker_lock before taker_lock: ${kinds}`);
      const escrow = await chain.readEscrow(new PublicKey(t.takerEscrow), 'finalized');
      if (!escrow) fail(`trade #${t.n} maker locked but the taker escrow is absent`);
      const terms = {
        initializer: escrow.initializer.toBase58(),
        recipient: escrow.recipient.toBase58(),
        mint: escrow.mint.toBase58(),
        amount: escrow.amount,
        hashlock: Buffer.from(escrow.hashlock).toString('hex'),
        expiry: Number(escrow.expiry),
        lockDeadline: Number(escrow.lockDeadline),
      };
      const agreed = {
        initializer: t.taker,
        recipient: maker,
        mint: t.inputMint,
        amount: t.inputRaw,
        hashlock: t.secret.secretHash,
        expiry: t.takerExpiry,
        lockDeadline: t.lockDeadline,
      };
      for (const k of Object.keys(agreed) as (keyof typeof agreed)[]) {
        if (terms[k] !== agreed[k])
          fail(`trade #${t.n} maker locked against taker escrow ${k}=${terms[k]} (agreed ${agreed[k]})`);
      }
      const makerEscrow = await chain.readEscrow(new PublicKey(t.makerEscrow), 'finalized');
      if (makerEscrow) {
        if (makerEscrow.recipient.toBase58() !== t.taker)
          fail(`trade #${t.n} maker escrow pays ${makerEscrow.recipient.toBase58()}`);
        if (makerEscrow.amount !== t.outputRaw)
          fail(`trade #${t.n} maker escrow amount ${makerEscrow.amount}`);
        if (Buffer.from(makerEscrow.hashlock).toString('hex') !== t.secret.secretHash)
          fail(`trade #${t.n} maker hashlock`);
        if (Number(makerEscrow.expiry) > t.takerExpiry - TIMING.safety_margin_seconds)
          fail(`trade #${t.n} maker expiry ${makerEscrow.expiry} leaves less than the safety margin`);
      }
    }
    if (kinds.length > 0 && kinds[0] !== 'taker_lock') fail(`trade #${t.n} first movement is ${kinds[0]}`);

    // Neither side ends with less than it started unless it received the other side's asset.
    const taker = t.wallet.publicKey;
    const input = await world.holding(taker, t.inputMint);
    const output = await world.holding(taker, t.outputMint);
    const tol = (mint: string) => (mint === SOL ? SOL_FEE_TOLERANCE : 0n);
    const quiet = [
      'redeemed.closed',
      'refunded.closed',
      'failed.noLock',
      'failed.lockWindowOpen',
      'failed.released',
    ].includes(view.substate);
    if (status === 'redeemed' && quiet) {
      if (output < t.start.output + t.outputRaw - tol(t.outputMint))
        fail(
          `trade #${t.n} redeemed but the taker holds ${output} of output (start ${t.start.output} + ${t.outputRaw})`,
        );
      if (input < t.start.input - t.inputRaw - tol(t.inputMint))
        fail(
          `trade #${t.n} taker paid more than its input: ${input} (start ${t.start.input} - ${t.inputRaw})`,
        );
    } else if (isFinal(status) && quiet) {
      if (input < t.start.input - tol(t.inputMint))
        fail(`trade #${t.n} ${status} but the taker's input is ${input} (started with ${t.start.input})`);
      if (output < t.start.output - tol(t.outputMint))
        fail(`trade #${t.n} ${status} but the taker's output is ${output} (started with ${t.start.output})`);
    } else {
      // In flight: at most the agreed input sits in escrow.
      if (input < t.start.input - t.inputRaw - tol(t.inputMint))
        fail(`trade #${t.n} taker input ${input} below start ${t.start.input} - escrowed ${t.inputRaw}`);
    }
  }

  // The maker: its balance plus what it escrowed equals its start plus what it redeemed minus what it paid.
  const vaults = new Map<string, bigint>();
  const makerVaults = new Map<string, bigint>();
  for (const t of model.trades) {
    if (t.tradeId === null) continue;
    for (const [escrow, own] of [
      [t.takerEscrow, false],
      [t.makerEscrow, true],
    ] as const) {
      const v = await world.vaultBalance(escrow);
      if (!v) continue;
      vaults.set(v.mint, (vaults.get(v.mint) ?? 0n) + v.amount);
      if (own) makerVaults.set(v.mint, (makerVaults.get(v.mint) ?? 0n) + v.amount);
    }
  }
  const makerNow = new Map<string, bigint>();
  for (const mint of world.makerStart.keys()) {
    const balance = await world.tokenBalance(world.makerWallet, mint);
    makerNow.set(mint, balance);
    let expectedBalance = world.makerStart.get(mint) ?? 0n;
    for (const t of started) {
      const kinds = kindsOf(t.lastView);
      if (t.inputMint === mint && kinds.includes('maker_redeem')) expectedBalance += t.inputRaw;
      if (t.outputMint === mint && kinds.includes('taker_redeem')) expectedBalance -= t.outputRaw;
    }
    const escrowed = makerVaults.get(mint) ?? 0n;
    if (balance + escrowed !== expectedBalance)
      fail(`maker ${mint}: holds ${balance} + escrowed ${escrowed}, expected ${expectedBalance}`);
    // Reserved inventory never exceeds inventory.
    const reserved = world.service.quotes.reservations.reserved(mint);
    if (reserved > balance) fail(`reserved ${reserved} of ${mint} exceeds the maker's ${balance}`);
  }

  // Funds conserved on chain: takers + maker + vaults, per mint, against what the test put in.
  for (const mint of world.makerStart.keys()) {
    let total = (makerNow.get(mint) ?? 0n) + (vaults.get(mint) ?? 0n);
    let baseline = world.makerStart.get(mint) ?? 0n;
    let takers = 0n;
    for (const t of model.trades) {
      const pk = t.wallet.publicKey;
      if (t.inputMint === mint) {
        total += await world.holding(pk, mint);
        baseline += t.start.input;
        takers++;
      } else if (t.outputMint === mint) {
        total += await world.holding(pk, mint);
        baseline += t.start.output;
        takers++;
      }
    }
    const slack = mint === SOL ? SOL_FEE_TOLERANCE * takers : 0n;
    if (total > baseline + slack || total < baseline - slack)
      fail(`${mint} not conserved: ${total} on chain, ${baseline} put in (slack ${slack})`);
  }
}
