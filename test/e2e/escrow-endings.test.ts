// Every way an escrow can end, as attacks: a taker ends escrows in every way the HTLC program lets it — cancelling the maker
// escrow it is the recipient of, redeeming the taker escrow for the maker and closing it in one go, donating
// dust to vaults — and the chain itself fails the maker's effects for a while. Each attack runs against the
// real service on the embedded chain; the taker signs its own transactions (test/support/taker-moves.ts).
// Every case checks the final state and how it got there: signature kinds, the ledger against the token
// movements on chain, no false alert, rent reclaimed, and a bounded event history (no retry storm).
import { Keypair, PublicKey } from '@solana/web3.js';
import { afterEach, describe, expect, test } from 'vitest';
import { EFFECT_RETRY } from '../../machines/index.ts';
import {
  ChainError,
  type ChainPort,
  type EmbeddedChain,
  type LandResult,
  vaultAddress,
} from '../../src/chain/index.ts';
import { createService, type Service, type ServiceOptions } from '../../src/service.ts';
import { MINT_SYMBOLS, SOL_MINT as SOL, USDC_MINT as USDC, USDT_MINT as USDT } from '../support/mints.ts';
import { type ConfigDocument, SHORT_SETTLEMENT, startService } from '../support/service.ts';
import { newSecret, type Secret, signAsWallet } from '../support/taker.ts';
import {
  chainAlone,
  type MoveResult,
  submitMoves,
  type TakerMove,
  type TakerSide,
} from '../support/taker-moves.ts';

const SYMBOL = MINT_SYMBOLS;

const SHORT = SHORT_SETTLEMENT;
const POLL_MS = 25;
const CLOSED = ['redeemed.closed', 'refunded.closed', 'failed.released', 'failed.noLock'];
/**
 * The most events one trade may store in these attacks: a whole swap stores 11 to 17 (settlement, lock, the
 * final lock, four or five effects each with its intent, a fact or two, an adoption per restart), and each
 * failed effect attempt two more (the failure, the retry). The old runtime stored hundreds within seconds
 * for a stuck trade.
 */
const eventsBound = (failedAttempts = 0) => 20 + 2 * failedAttempts;

type Json = ReturnType<typeof JSON.parse>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ── the arena: one service (replaceable across restarts), its chain, one taker ───────────────────────

interface Arena {
  service: Service;
  dataDir: string;
  /** Log lines at error level (where "ALERT: maker lost funds" goes). */
  errors: string[];
  dispose(): Promise<void>;
}

const arenas: Arena[] = [];
afterEach(async () => {
  for (const arena of arenas.splice(0)) await arena.dispose();
});

/** pino options that keep error-level lines in `errors` instead of printing them. */
function capturingLogger(errors: string[]): ServiceOptions['logger'] {
  return {
    level: 'error',
    hooks: {
      logMethod(args: unknown[]) {
        errors.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
      },
    },
  };
}

async function arena(
  settlement: Partial<typeof SHORT> | null,
  wrapChain?: (chain: ChainPort) => ChainPort,
  pollIntervalMs = POLL_MS,
): Promise<Arena> {
  const errors: string[] = [];
  const change = (doc: ConfigDocument) => {
    if (settlement) doc.settlement = { ...doc.settlement, ...settlement };
  };
  const service = await startService(change, {
    pollIntervalMs,
    logger: capturingLogger(errors),
    ...(wrapChain ? { wrapChain } : {}),
  });
  const a: Arena = {
    service,
    dataDir: service.dataDir,
    errors,
    // The first service owns the directory; a restarted one is closed first.
    dispose: async () => {
      await a.service.close();
      await service.dispose();
    },
  };
  arenas.push(a);
  return a;
}

/** Stops the arena's service and starts another run on the same DATA_DIR and config. */
async function restart(a: Arena, wrapChain?: (chain: ChainPort) => ChainPort): Promise<void> {
  await a.service.close();
  a.service = await createService({
    dataDir: a.dataDir,
    config: a.service.config,
    pollIntervalMs: POLL_MS,
    logger: capturingLogger(a.errors),
    ...(wrapChain ? { wrapChain } : {}),
  });
}

/** While the service is stopped, the chain alone, opened the way the service opens it. */
const withChainOnly = <T>(a: Arena, fn: (chain: EmbeddedChain) => Promise<T>): Promise<T> =>
  chainAlone(a.dataDir, a.service.config, fn);

const chainOf = (a: Arena) => a.service.chain;
const devOf = (a: Arena) => a.service.devChain as NonNullable<Service['devChain']>;

async function http(a: Arena, method: 'GET' | 'POST', url: string, payload?: unknown) {
  const res = await a.service.app.inject({
    method,
    url,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as Json) : null };
}

const view = async (a: Arena, id: string): Promise<Json> => (await http(a, 'GET', `/v1/trades/${id}`)).body;
const events = async (a: Arena, id: string): Promise<Json[]> =>
  (await http(a, 'GET', `/v1/trades/${id}/events`)).body.events;
const kinds = (v: Json): string[] => v.tx_signature_kinds.map((k: { kind: string }) => k.kind);
const signatureOf = (v: Json, kind: string): string | undefined =>
  v.tx_signature_kinds.find((k: { kind: string }) => k.kind === kind)?.signature;

async function waitFor(a: Arena, id: string, done: (v: Json) => boolean, timeoutMs = 15_000): Promise<Json> {
  const until = Date.now() + timeoutMs;
  let last: Json = null;
  while (Date.now() < until) {
    last = await view(a, id);
    if (done(last)) return last;
    await sleep(30);
  }
  throw new Error(`timed out; the trade is ${JSON.stringify(last)}`);
}

const closed = (v: Json) => CLOSED.includes(v.substate);

/** Advances the chain clock to `at` (chain seconds) if it is not there yet. */
async function advanceTo(a: Arena, at: number): Promise<void> {
  const now = Number(await chainOf(a).now());
  if (now < at) await devOf(a).advanceClock(at - now);
}

// ── a trade up to both locks ───────────────────────────────────────────────────────────────────────

interface Opened {
  id: string;
  secret: Secret;
  side: TakerSide;
  input: { mint: string; raw: bigint };
  output: { mint: string; raw: bigint };
  makerExpiry: number;
  takerExpiry: number;
  before: Balances;
}

type Pair = { input: string; output: string; amount: string; decimals: number };
const USDC_FOR_USDT: Pair = { input: USDC, output: USDT, amount: '40', decimals: 6 };

/** A trade a taker quoted and started settlement of, not locked yet: its wallet-signed lock, and its deadline. */
interface Started extends Omit<Opened, 'makerExpiry' | 'takerExpiry'> {
  signedLock: string;
  lockDeadline: number;
}

/**
 * A taker quotes and starts settlement; the lock is signed, not sent. `spare` raw units of each mint are
 * airdropped on top, for donations. Balances are taken before the lock.
 */
async function startTrade(a: Arena, pair: Pair, spare: bigint): Promise<Started> {
  const taker = Keypair.generate();
  const wallet = taker.publicKey.toBase58();
  const air = await http(a, 'POST', '/v1/dev/airdrop', {
    wallet,
    asset: SYMBOL[pair.input],
    amount: pair.amount,
  });
  expect(air.status, JSON.stringify(air.body)).toBe(200);
  if (spare > 0n) {
    for (const mint of [pair.input, pair.output]) {
      await devOf(a).airdrop({ wallet: taker.publicKey, mint: new PublicKey(mint), amount: spare });
    }
  }
  const rfq = await http(a, 'POST', '/v1/rfq', {
    input_asset: SYMBOL[pair.input],
    output_asset: SYMBOL[pair.output],
    amount: pair.amount,
    taker_wallet: wallet,
  });
  expect(rfq.body.status, JSON.stringify(rfq.body)).toBe('accepted');
  const secret = newSecret();
  const settled = await http(a, 'POST', `/v1/quotes/${rfq.body.quote_id}/wallet-settlement`, {
    taker_wallet: wallet,
    secret_hash: secret.secretHash,
  });
  expect(settled.status, JSON.stringify(settled.body)).toBe(201);
  const id = settled.body.trade_id as string;
  const side: TakerSide = {
    wallet: taker,
    maker: chainOf(a).makerWallet,
    takerEscrow: new PublicKey(settled.body.taker_escrow),
    makerEscrow: new PublicKey(settled.body.maker_escrow),
    inputMint: new PublicKey(pair.input),
    outputMint: new PublicKey(pair.output),
    preimage: secret.preimage,
  };
  return {
    id,
    secret,
    side,
    input: { mint: pair.input, raw: BigInt(rfq.body.input.amount_raw) },
    output: { mint: pair.output, raw: BigInt(rfq.body.output.amount_raw) },
    before: await balances(a, side),
    signedLock: signAsWallet(settled.body.taker_lock_transaction.transaction_base64, taker),
    lockDeadline: Math.round(Date.parse(settled.body.lock_deadline) / 1000),
  };
}

/** A started trade locked through the API, once the maker's lock is on chain. */
async function openTrade(a: Arena, pair = USDC_FOR_USDT, spare = 0n): Promise<Opened> {
  const { signedLock, lockDeadline: _, ...started } = await startTrade(a, pair, spare);
  const lock = await http(a, 'POST', `/v1/trades/${started.id}/lock`, { transaction_base64: signedLock });
  expect(lock.status, JSON.stringify(lock.body)).toBe(202);
  const locked = await waitFor(a, started.id, (v) => v.substate === 'initiated.makerLocked');
  return {
    ...started,
    makerExpiry: Math.round(Date.parse(locked.maker_expires_at) / 1000),
    takerExpiry: Math.round(Date.parse(locked.expires_at) / 1000),
  };
}

/** The taker's moves in one transaction, signed with its key, on the running service's chain. */
const move = (a: Arena, t: Opened, ...moves: TakerMove[]): Promise<MoveResult> =>
  submitMoves(chainOf(a), t.side, moves);

async function landed(result: Promise<MoveResult>): Promise<string> {
  const r = await result;
  if (!r.landed) throw new Error(`the taker's move was refused: ${JSON.stringify(r)}`);
  return r.signature;
}

// ── what the chain shows, and what the service must agree with ─────────────────────────────────────

interface Balances {
  taker: Map<string, bigint>;
  maker: Map<string, bigint>;
  makerLamports: bigint;
}

async function balances(a: Arena, side: TakerSide): Promise<Balances> {
  const chain = chainOf(a);
  const mints = [side.inputMint, side.outputMint];
  const taker = new Map<string, bigint>();
  const maker = new Map<string, bigint>();
  for (const mint of mints) {
    taker.set(mint.toBase58(), await chain.tokenBalance(side.wallet.publicKey, mint));
    maker.set(mint.toBase58(), await chain.tokenBalance(chain.makerWallet, mint));
  }
  return { taker, maker, makerLamports: await chain.solBalance(chain.makerWallet) };
}

interface Adjustments {
  /** Tokens the taker sent to vaults that went to the maker (swept at close). */
  sweptToMaker?: Map<string, bigint>;
  /** Tokens the taker sent to vaults (from its own balance). */
  donatedByTaker?: Map<string, bigint>;
  /** Tokens swept back to the taker when it closed its escrow. */
  sweptToTaker?: Map<string, bigint>;
  /** Lamports the maker received besides rent (a wrapped-SOL vault closes with its dust as lamports). */
  makerLamportsIn?: bigint;
}

/** Per account and mint, what the ledger says moved in or out (network fees apart). */
function ledgerNet(entries: Json[], account: string): Map<string, bigint> {
  const net = new Map<string, bigint>();
  for (const e of entries) {
    if (e.account !== account || e.movement === 'network_fee') continue;
    const amount = BigInt(e.amount_raw) * (e.side === 'debit' ? 1n : -1n);
    net.set(e.mint, (net.get(e.mint) ?? 0n) + amount);
  }
  return net;
}

/**
 * The ledger is balanced and agrees with the chain: the maker's and the taker's token balances moved by
 * exactly what the ledger posted for them (plus donations the test accounts for), and the maker's lamports
 * by exactly the fees of the transactions it sent (the ledger posts those of its movements).
 */
async function expectLedgerMatchesChain(a: Arena, t: Opened, adjust: Adjustments = {}): Promise<void> {
  const v = await view(a, t.id);
  expect(v.ledger_summary.balanced, JSON.stringify(v.ledger_summary)).toBe(true);
  const ledger = (await http(a, 'GET', `/v1/runtime/ledger?trade_id=${t.id}`)).body;
  const entries = ledger.entries as Json[];
  const after = await balances(a, t.side);
  const maker = ledgerNet(entries, 'maker');
  const taker = ledgerNet(entries, 'taker');
  for (const mint of [t.input.mint, t.output.mint]) {
    const makerMoved = (after.maker.get(mint) ?? 0n) - (t.before.maker.get(mint) ?? 0n);
    const swept = adjust.sweptToMaker?.get(mint) ?? 0n;
    expect(makerMoved - swept, `maker ${SYMBOL[mint]}: chain vs ledger`).toBe(maker.get(mint) ?? 0n);
    const takerMoved = (after.taker.get(mint) ?? 0n) - (t.before.taker.get(mint) ?? 0n);
    const donated = adjust.donatedByTaker?.get(mint) ?? 0n;
    const back = adjust.sweptToTaker?.get(mint) ?? 0n;
    expect(takerMoved + donated - back, `taker ${SYMBOL[mint]}: chain vs ledger`).toBe(taker.get(mint) ?? 0n);
  }
  // Lamports: every maker transaction's fee, from the intents it recorded before sending; rent came back.
  const intents = (await events(a, t.id)).filter((e) => e.type === 'TX_INTENT');
  let fees = 0n;
  const feeBySignature = new Map<string, bigint>();
  for (const intent of new Set(intents.map((e) => e.payload.signature as string))) {
    const tx = await chainOf(a).getTransaction(intent, 'finalized');
    if (tx) {
      fees += tx.fee;
      feeBySignature.set(intent, tx.fee);
    }
  }
  const lamportsMoved = after.makerLamports - t.before.makerLamports;
  expect(lamportsMoved, 'maker lamports: only fees of its own transactions').toBe(
    -fees + (adjust.makerLamportsIn ?? 0n),
  );
  for (const e of entries.filter((x) => x.movement === 'network_fee' && x.account === 'maker')) {
    expect(feeBySignature.get(e.signature), `ledger fee of ${e.signature}`).toBe(BigInt(e.amount_raw));
  }
}

/** Neither the trade nor the log says "maker lost funds". */
async function expectNoAlert(a: Arena, v: Json, id: string): Promise<void> {
  expect(v.failure_reason).not.toBe('maker_missed_redeem');
  const found = await a.service.runtime.host.snapshotOf(id);
  expect(found?.snapshot.context.alert).toBe(false);
  expect(a.errors.filter((line) => line.includes('ALERT'))).toEqual([]);
}

/** The maker escrow and its vault are gone: the maker's close reclaimed their rent. */
function expectMakerEscrowClosed(a: Arena, t: Opened): void {
  const ledger = (chainOf(a) as EmbeddedChain).ledger;
  const [vault] = vaultAddress(chainOf(a).programId, t.side.makerEscrow);
  expect(ledger.getAccount(t.side.makerEscrow), 'maker escrow').toBeNull();
  expect(ledger.getAccount(vault), 'maker escrow vault').toBeNull();
}

/**
 * The trade's history stays bounded, and once the trade is closed nothing is added, even with both expiries
 * past and the runtime ticking every POLL_MS for a while.
 */
async function expectQuietHistory(a: Arena, t: Opened, failedAttempts = 0): Promise<void> {
  const first = (await events(a, t.id)).length;
  expect(first).toBeLessThanOrEqual(eventsBound(failedAttempts));
  await advanceTo(a, t.takerExpiry + 5);
  await sleep(800);
  expect((await events(a, t.id)).length).toBe(first);
}

type Method = (...args: never[]) => unknown;

/**
 * The chain with some methods replaced: each override gets the real method (bound) and returns the
 * replacement. Everything else passes through.
 */
function intercept(
  chain: ChainPort,
  overrides: {
    [K in keyof ChainPort]?: ChainPort[K] extends Method ? (real: ChainPort[K]) => ChainPort[K] : never;
  },
): ChainPort {
  return new Proxy(chain, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      const override = overrides[key as keyof ChainPort] as ((real: Method) => Method) | undefined;
      if (override && typeof value === 'function') return override(value.bind(target));
      return value;
    },
  });
}

// ── case 1: the taker cancels the maker escrow ─────────────────────────────────────────────────────

/** The taker cancelled the maker escrow (`cancel`): the output came back and the taker was released. */
function expectTakerCancelled(done: Json, cancel: string): void {
  expect(done.settlement_status).toBe('refunded');
  expect(done.substate).toBe('refunded.closed');
  expect(done.failure_reason).toBe('taker_cancelled');
  expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'maker_refund', 'taker_refund']);
  expect(signatureOf(done, 'maker_refund')).toBe(cancel);
}

describe('case 1: the taker cancels the maker escrow (it is its recipient)', () => {
  test('the maker cancels the taker escrow at once: refunded, taker_cancelled, both sides whole', async () => {
    const a = await arena(SHORT);
    const t = await openTrade(a);
    const cancel = await landed(move(a, t, { kind: 'cancelMakerEscrow' }));

    const done = await waitFor(a, t.id, closed);
    expectTakerCancelled(done, cancel);
    // Released at once, not at the taker expiry.
    expect(Number(await chainOf(a).now())).toBeLessThan(t.makerExpiry);
    expectMakerEscrowClosed(a, t);
    await expectNoAlert(a, done, t.id);
    await expectLedgerMatchesChain(a, t);
    const after = await balances(a, t.side);
    expect(after.taker.get(USDC)).toBe(t.before.taker.get(USDC));
    expect(after.maker.get(USDT)).toBe(t.before.maker.get(USDT));
    await expectQuietHistory(a, t);
  });

  test('cancelled while the service redeems for the taker: the redeem fails on chain, the trade follows the cancel', async () => {
    // The taker's cancel lands just before the service's redeem of the maker escrow reaches the chain.
    const attack: { side: TakerSide | null; redeem: string | null; cancel: MoveResult | null } = {
      side: null,
      redeem: null,
      cancel: null,
    };
    const a = await arena(SHORT, (chain) =>
      intercept(chain, {
        signRedeemFor: (real) => async (args) => {
          const tx = await real(args);
          attack.redeem = tx.signature;
          return tx;
        },
        land: (real) => async (tx, commitment, timeoutMs) => {
          if (tx.signature === attack.redeem && attack.side && attack.cancel === null) {
            attack.cancel = await submitMoves(chain, attack.side, [{ kind: 'cancelMakerEscrow' }]);
          }
          return real(tx, commitment, timeoutMs);
        },
      }),
    );
    const t = await openTrade(a);
    attack.side = t.side;
    const redeem = await http(a, 'POST', `/v1/trades/${t.id}/redeem`, { preimage: t.secret.preimage });
    expect(redeem.status, JSON.stringify(redeem.body)).toBe(202);

    const done = await waitFor(a, t.id, closed);
    expect(attack.cancel).toMatchObject({ landed: true });
    const redeemState = await chainOf(a).signatureState(attack.redeem as string);
    expect(
      redeemState.status !== 'unknown' && redeemState.err,
      'the service redeem failed on chain',
    ).toBeTruthy();
    expectTakerCancelled(done, (attack.cancel as { signature: string }).signature);
    expectMakerEscrowClosed(a, t);
    await expectNoAlert(a, done, t.id);
    await expectLedgerMatchesChain(a, t);
    await expectQuietHistory(a, t);
  });

  test('cancelled while the service is down, then the taker refunds and closes its own escrow after expiry: the next run ends it refunded', async () => {
    const a = await arena(SHORT);
    const t = await openTrade(a);
    await a.service.close();
    const { cancel, refund } = await withChainOnly(a, async (chain) => {
      const cancel = await landed(submitMoves(chain, t.side, [{ kind: 'cancelMakerEscrow' }]));
      await chain.advanceClock(t.takerExpiry - Number(await chain.now()) + 1);
      const refund = await landed(
        submitMoves(chain, t.side, [{ kind: 'refundTakerEscrow' }, { kind: 'closeTakerEscrow' }]),
      );
      return { cancel, refund };
    });
    await restart(a);

    const done = await waitFor(a, t.id, closed);
    expectTakerCancelled(done, cancel);
    expect(signatureOf(done, 'taker_refund')).toBe(refund);
    expectMakerEscrowClosed(a, t);
    await expectNoAlert(a, done, t.id);
    await expectLedgerMatchesChain(a, t);
    await expectQuietHistory(a, t);
  });
});

// ── case 2: retries back off ───────────────────────────────────────────────────────────────────────

/** A chain on which the maker's redeem cannot be signed while `down` (as an unreachable signer looks). */
function failingMakerRedeem(state: { down: boolean; attempts: number }) {
  return (chain: ChainPort) =>
    intercept(chain, {
      signMakerRedeem: (real) => async (args) => {
        state.attempts++;
        if (state.down) throw new ChainError('unavailable', 'maker redeem unavailable (test outage)');
        return real(args);
      },
    });
}

const effectError = async (a: Arena, id: string) =>
  (await a.service.runtime.host.snapshotOf(id))?.snapshot.context.effectError ?? null;

/**
 * A trade the taker asked the service to redeem, on a chain where the maker's redeem cannot be signed:
 * returned once its first attempt failed. `outage.down = false` ends the outage.
 */
async function redeemWhileMakerRedeemFails(settlement: Partial<typeof SHORT> | null) {
  const outage = { down: true, attempts: 0 };
  const a = await arena(settlement, failingMakerRedeem(outage));
  const t = await openTrade(a);
  const redeem = await http(a, 'POST', `/v1/trades/${t.id}/redeem`, { preimage: t.secret.preimage });
  expect(redeem.status).toBe(202);
  await until('the first failure', async () => ((await effectError(a, t.id))?.attempts ?? 0) >= 1);
  return { a, t, outage };
}

async function failingEffects(a: Arena): Promise<Json[]> {
  const res = await http(a, 'GET', '/v1/runtime');
  expect(res.status).toBe(200);
  return res.body.actors.failing_effects;
}

async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('case 2: a failing effect backs off, shows to operators, survives a restart and finishes', () => {
  test('the maker redeem fails for a while: attempts and events follow the backoff, not the tick', async () => {
    const { a, t, outage } = await redeemWhileMakerRedeemFails(null);
    expect((await effectError(a, t.id))?.effect).toBe('makerRedeem');

    // Wall time alone, the runtime ticking every 25 ms: the retries come 1 s, then 2 s apart (+ ≤ 25 %
    // jitter), so 2.5 s hold at most 3 attempts — the old runtime retried on every tick.
    const events0 = (await events(a, t.id)).length;
    const attempts0 = outage.attempts;
    await sleep(2_500);
    const byWallClock = outage.attempts - attempts0;
    expect(byWallClock).toBeLessThanOrEqual(3);
    expect((await events(a, t.id)).length - events0).toBeLessThanOrEqual(3 * byWallClock + 2);

    // Driven by the chain clock: each retry is due when its backoff says (1, 2, 4, 8, 16 s … capped at a
    // minute, + ≤ 25 % jitter, counted from the failure), and runs exactly once.
    let failedAt: number | null = null;
    for (;;) {
      await until('the retry time set', async () => (await effectError(a, t.id))?.retryAt != null);
      const { attempts, retryAt } = (await effectError(a, t.id)) as { attempts: number; retryAt: number };
      if (failedAt !== null) {
        const base = Math.min(
          EFFECT_RETRY.maxDelaySeconds,
          EFFECT_RETRY.firstDelaySeconds * 2 ** (attempts - 1),
        );
        const delay = retryAt - failedAt;
        expect(delay, `backoff after attempt ${attempts}`).toBeGreaterThanOrEqual(base);
        expect(delay, `backoff after attempt ${attempts}`).toBeLessThanOrEqual(Math.round(base * 1.25) + 1);
      }
      const visible = (await failingEffects(a)).find((f) => f.trade_id === t.id);
      if (attempts >= EFFECT_RETRY.visibleAfterAttempts) {
        expect(visible, `listed in failing_effects after ${attempts} attempts`).toMatchObject({
          effect: 'makerRedeem',
          attempts,
          substate: 'initiated.makerRedeeming',
        });
        expect(Date.parse(visible.next_retry_at) / 1000).toBe(retryAt);
      } else {
        expect(visible, `not listed after ${attempts} attempts`).toBeUndefined();
      }
      if (attempts >= 6) break;
      // The failure is seen in memory first; its transition's events are counted once they are on disk.
      await a.service.runtime.host.settled(t.id);
      const calls = outage.attempts;
      const eventsNow = (await events(a, t.id)).length;
      // Nothing happens before the retry time (2 s before it: the chain clock also follows wall time) …
      if (retryAt - Number(await chainOf(a).now()) > 2) {
        await advanceTo(a, retryAt - 2);
        await sleep(150);
        const callsSeen = outage.attempts;
        const eventsSeen = (await events(a, t.id)).length;
        // … judged only while the chain clock, read after those, is still short of it: on a loaded runner the
        // wall time that the clock follows can carry it past the retry time within the pause (CI, Node 22).
        if (Number(await chainOf(a).now()) < retryAt) {
          expect(callsSeen, `no attempt before the retry time (after ${attempts})`).toBe(calls);
          expect(eventsSeen).toBe(eventsNow);
        }
      }
      // … and exactly one once it is due.
      await advanceTo(a, retryAt);
      failedAt = Number(await chainOf(a).now());
      await until(
        `attempt ${attempts + 1}`,
        async () => ((await effectError(a, t.id))?.attempts ?? 0) > attempts,
      );
      await sleep(100);
      expect(outage.attempts).toBe(calls + 1);
      expect((await events(a, t.id)).length - eventsNow, 'events per retry').toBeLessThanOrEqual(3);
    }

    // A restart keeps the failure count and the retry time: no immediate retry, the same schedule.
    const before = await effectError(a, t.id);
    expect(before?.attempts).toBe(6);
    await until('the retry time set', async () => (await effectError(a, t.id))?.retryAt != null);
    const retryAt = (await effectError(a, t.id))?.retryAt as number;
    const nextOutage = { down: true, attempts: 0 };
    await restart(a, failingMakerRedeem(nextOutage));
    const stored = await a.service.store.getTrade(t.id);
    expect(stored?.nextDeadline, 'the wake index holds the retry time').toBe(retryAt);
    expect(await effectError(a, t.id)).toMatchObject({ effect: 'makerRedeem', attempts: 6, retryAt });
    expect((await failingEffects(a)).map((f) => f.trade_id)).toContain(t.id);
    await sleep(500);
    expect(nextOutage.attempts, 'no retry before its time after a restart').toBe(0);
    await advanceTo(a, retryAt);
    await until('attempt 7', async () => ((await effectError(a, t.id))?.attempts ?? 0) === 7);
    expect(nextOutage.attempts).toBe(1);

    // The chain recovers: the next retry redeems, the trade finishes and leaves the failing list.
    nextOutage.down = false;
    await until('the retry time set', async () => (await effectError(a, t.id))?.retryAt != null);
    await advanceTo(a, (await effectError(a, t.id))?.retryAt as number);
    const done = await waitFor(a, t.id, closed);
    expect(done.substate).toBe('redeemed.closed');
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem']);
    expect((await failingEffects(a)).map((f) => f.trade_id)).not.toContain(t.id);
    expectMakerEscrowClosed(a, t);
    await expectNoAlert(a, done, t.id);
    await expectLedgerMatchesChain(a, t);
    // Seven failed attempts in all, each with its failure and its retry.
    await expectQuietHistory(a, t, 7);
  });
});

// ── case 3: the taker escrow is paid to the maker and closed before the service sees its redeem ────

/** The trade ended redeemed, with the maker's payment at `makerRedeem` taken from the chain's history. */
async function expectRedeemedFromHistory(a: Arena, t: Opened, makerRedeem: string): Promise<void> {
  const done = await waitFor(a, t.id, closed);
  expect(done.settlement_status).toBe('redeemed');
  expect(done.substate).toBe('redeemed.closed');
  expect(done.failure_reason).toBeNull();
  expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem']);
  expect(signatureOf(done, 'maker_redeem')).toBe(makerRedeem);
  expect(
    await chainOf(a).readEscrow(t.side.takerEscrow, 'finalized'),
    'the taker closed its escrow',
  ).toBeNull();
  expectMakerEscrowClosed(a, t);
  await expectNoAlert(a, done, t.id);
  await expectLedgerMatchesChain(a, t);
  const after = await balances(a, t.side);
  expect((after.maker.get(t.input.mint) ?? 0n) - (t.before.maker.get(t.input.mint) ?? 0n)).toBe(t.input.raw);
  expect(
    (await events(a, t.id)).some((e) => e.type.startsWith('xstate.error')),
    'no effect failed',
  ).toBe(false);
  await expectQuietHistory(a, t);
}

describe('case 3: the taker escrow is paid to the maker and closed before the service records it', () => {
  test('redeem both escrows and close the taker escrow in one transaction: redeemed, the maker paid, no alert', async () => {
    const a = await arena(SHORT);
    const t = await openTrade(a);
    const all = await landed(
      move(
        a,
        t,
        { kind: 'redeemMakerEscrow' },
        { kind: 'redeemTakerEscrowForMaker' },
        { kind: 'closeTakerEscrow' },
      ),
    );
    await expectRedeemedFromHistory(a, t, all);
    const done = await view(a, t.id);
    expect(signatureOf(done, 'taker_redeem')).toBe(all);
  });

  test('the same moves while the service is down: the next run finds the payment in the history', async () => {
    const a = await arena(SHORT);
    const t = await openTrade(a);
    await a.service.close();
    const paid = await withChainOnly(a, async (chain) => {
      await landed(submitMoves(chain, t.side, [{ kind: 'redeemMakerEscrow' }]));
      const paid = await landed(submitMoves(chain, t.side, [{ kind: 'redeemTakerEscrowForMaker' }]));
      await landed(submitMoves(chain, t.side, [{ kind: 'closeTakerEscrow' }]));
      return paid;
    });
    await restart(a);
    await expectRedeemedFromHistory(a, t, paid);
  });

  test("the maker's own redeem lands, the process stops before recording it, the taker closes its escrow meanwhile", async () => {
    // The first run sees no pushes and ticks once a minute, so only its own effects move the trade; its
    // redeem of the taker escrow lands and then never returns, as if the process died right there.
    const landedRedeem: { signature: string | null } = { signature: null };
    let makerRedeem: string | null = null;
    const a = await arena(
      SHORT,
      (chain) =>
        intercept(chain, {
          watchAccounts: () => () => ({ live: false, generation: 0, close() {} }),
          signMakerRedeem: (real) => async (args) => {
            const tx = await real(args);
            makerRedeem = tx.signature;
            return tx;
          },
          land:
            (real) =>
            async (tx, commitment, timeoutMs): Promise<LandResult> => {
              const result = await real(tx, commitment, timeoutMs);
              if (tx.signature !== makerRedeem) return result;
              landedRedeem.signature = tx.signature;
              return new Promise<never>(() => {});
            },
        }),
      60_000,
    );
    const t = await openTrade(a);
    const redeem = await http(a, 'POST', `/v1/trades/${t.id}/redeem`, { preimage: t.secret.preimage });
    expect(redeem.status).toBe(202);
    await until("the maker's redeem on chain", () => landedRedeem.signature !== null);
    const unrecorded = await view(a, t.id);
    expect(unrecorded.substate).toBe('initiated.makerRedeeming');
    expect(kinds(unrecorded)).not.toContain('maker_redeem');
    await a.service.close();
    await withChainOnly(a, async (chain) => {
      await landed(submitMoves(chain, t.side, [{ kind: 'closeTakerEscrow' }]));
    });
    await restart(a);
    await expectRedeemedFromHistory(a, t, landedRedeem.signature as string);
  });
});

// ── case 4: a lock that comes and goes while no process watches ─────────────────────────────────────

describe('case 4: the taker lock lands and is paid to the maker and closed while the service is down', () => {
  test('the next run finds the lock in the history when the lock window ends: failed, released, the maker paid, books right', async () => {
    const a = await arena(SHORT);
    const t = await startTrade(a, USDC_FOR_USDT, 0n);
    // As a process killed right after sending the taker's lock: the chain has it, the trade knows nothing of it.
    await a.service.close();
    const { lock, paid } = await withChainOnly(a, async (chain) => {
      const { signature: lock } = await chain.submitSigned(t.signedLock);
      const paid = await landed(submitMoves(chain, t.side, [{ kind: 'redeemTakerEscrowForMaker' }]));
      await landed(submitMoves(chain, t.side, [{ kind: 'closeTakerEscrow' }]));
      return { lock, paid };
    });
    await restart(a);
    const before = await view(a, t.id);
    expect(before.substate).toBe('pending.awaitingLock');
    await advanceTo(a, t.lockDeadline + 1);
    const done = await waitFor(a, t.id, closed);
    expect(done.settlement_status).toBe('failed');
    expect(done.substate).toBe('failed.released');
    expect(done.failure_reason).toBe('lock_window_expired');
    expect(kinds(done)).toEqual(['taker_lock', 'maker_redeem']);
    expect(signatureOf(done, 'taker_lock')).toBe(lock);
    expect(signatureOf(done, 'maker_redeem')).toBe(paid);
    // The maker never locked the output, and the books carry the input it received.
    const intents = (await events(a, t.id)).filter((e) => e.type === 'TX_INTENT');
    expect(intents.map((e) => e.payload.kind)).not.toContain('maker_lock');
    await expectLedgerMatchesChain(a, { ...t, makerExpiry: 0, takerExpiry: 0 });
    await expectNoAlert(a, done, t.id);
  });

  test('an adopted trade with no lock at all still fails without one, at the cost of one history read', async () => {
    const a = await arena(SHORT);
    const t = await startTrade(a, USDC_FOR_USDT, 0n);
    const asked: string[] = [];
    await restart(a, (chain) =>
      intercept(chain, {
        signaturesForAddress:
          (real) =>
          (address, ...rest) => {
            asked.push(address.toBase58());
            return real(address, ...rest);
          },
      }),
    );
    await advanceTo(a, t.lockDeadline + 1);
    const done = await waitFor(a, t.id, closed);
    expect(done.substate).toBe('failed.noLock');
    expect(done.failure_reason).toBe('lock_window_expired');
    expect(kinds(done)).toEqual([]);
    expect(asked).toEqual([t.side.takerEscrow.toBase58()]);
  });
});

// ── case 5: dust in a vault ────────────────────────────────────────────────────────────────────────

describe('case 5: tokens donated to the vaults never strand rent', () => {
  test('one unit in each vault: the swap closes, the maker escrow is gone, the maker swept its unit', async () => {
    const a = await arena(SHORT);
    const t = await openTrade(a, undefined, 5n);
    await landed(
      move(
        a,
        t,
        { kind: 'donate', escrow: 'maker', amount: 1n },
        { kind: 'donate', escrow: 'taker', amount: 1n },
      ),
    );
    const redeem = await http(a, 'POST', `/v1/trades/${t.id}/redeem`, { preimage: t.secret.preimage });
    expect(redeem.status).toBe(202);

    const done = await waitFor(a, t.id, closed);
    expect(done.substate).toBe('redeemed.closed');
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem']);
    expectMakerEscrowClosed(a, t);
    await expectNoAlert(a, done, t.id);
    const after = await balances(a, t.side);
    expect((after.maker.get(USDT) ?? 0n) - (t.before.maker.get(USDT) ?? 0n)).toBe(-t.output.raw + 1n);
    // The taker's own escrow keeps its unit until the taker closes it, which sweeps the unit back.
    expect(await chainOf(a).readEscrow(t.side.takerEscrow, 'finalized')).toMatchObject({
      status: 'redeemed',
    });
    await landed(move(a, t, { kind: 'closeTakerEscrow' }));
    await expectLedgerMatchesChain(a, t, {
      sweptToMaker: new Map([[USDT, 1n]]),
      donatedByTaker: new Map([
        [USDT, 1n],
        [USDC, 1n],
      ]),
      sweptToTaker: new Map([[USDC, 1n]]),
    });
    await expectQuietHistory(a, t);
  });

  test('a unit of wrapped SOL in a refunded maker escrow: closed at the end, the unit back to the maker', async () => {
    const a = await arena(SHORT);
    const t = await openTrade(a, { input: USDC, output: SOL, amount: '60', decimals: 6 });
    await landed(move(a, t, { kind: 'donate', escrow: 'maker', amount: 1n }));
    // The taker walks away: the maker escrow comes back at its expiry, the taker's at its own.
    await advanceTo(a, t.makerExpiry);
    await waitFor(a, t.id, (v) => v.substate === 'initiated.awaitingTakerExpiry');
    await advanceTo(a, t.takerExpiry);
    const done = await waitFor(a, t.id, closed);
    expect(done.substate).toBe('refunded.closed');
    expect(done.failure_reason).toBe('maker_escrow_expired');
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'maker_refund', 'taker_refund']);
    expectMakerEscrowClosed(a, t);
    await expectNoAlert(a, done, t.id);
    // A wrapped-SOL vault closes with its dust: the unit reaches the maker as a lamport.
    await expectLedgerMatchesChain(a, t, { makerLamportsIn: 1n });
    await expectQuietHistory(a, t);
  });
});

// ── the alert itself: only on proven loss ─────────────────────────────────────────────────────────

describe('alerts only on proven loss', () => {
  test('the maker cannot redeem until the taker expiry, and the taker escrow goes back: that is a loss, and it alerts', async () => {
    const { a, t } = await redeemWhileMakerRedeemFails(SHORT);
    await advanceTo(a, t.takerExpiry);
    const done = await waitFor(a, t.id, closed);
    expect(done.settlement_status).toBe('refunded');
    expect(done.failure_reason).toBe('maker_missed_redeem');
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'taker_redeem', 'taker_refund']);
    expect((await a.service.runtime.host.snapshotOf(t.id))?.snapshot.context.alert).toBe(true);
    expect(a.errors.some((line) => line.includes('ALERT: maker lost funds'))).toBe(true);
    // Counted for alerting too (ops/prometheus/alerts.yml: MakerLostFunds).
    expect((await a.service.app.inject('/metrics')).body).toMatch(/^rfq_maker_maker_losses_total 1$/m);
    await expectLedgerMatchesChain(a, t);
    const after = await balances(a, t.side);
    expect((after.maker.get(USDT) ?? 0n) - (t.before.maker.get(USDT) ?? 0n)).toBe(-t.output.raw);
    expect(after.maker.get(USDC)).toBe(t.before.maker.get(USDC));
    await expectQuietHistory(a, t, 1);
  });
});
