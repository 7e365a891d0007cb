// TradeResponse (docs/interface.md) plus its extensions, rendered by one pure function from a trade's
// reading (its snapshot, the run asking, its ledger summary) and the configured assets; next_action tells
// the taker's front end what to do.
import { describe, expect, test } from 'vitest';
import { commandOutcome, settlementStatusOf, type TradeContext } from '../../machines/index.ts';
import { machineDefinition } from '../../machines/trade.definition.ts';
import { type Asset, AssetRegistry } from '../../src/config/index.ts';
import { nextAction, renderTrade, type TradeResponse } from '../../src/http/trade-response.ts';
import type { LedgerSummary } from '../../src/ledger/index.ts';
import type { TradeReading } from '../../src/runtime/index.ts';
import { type Substate, TRADE_SIGNATURE_KINDS } from '../../src/vocabulary/index.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';
import { SOL_PYTH_PRICE } from '../support/prices.ts';
import {
  CREATING_RUN,
  LANDING_MARGIN,
  LOCK_DEADLINE,
  lockSubmittedContext,
  MAKER_EXPIRY,
  makerLockedContext,
  QUOTE_ID,
  redeemedContext,
  SECRET_HASH,
  T0,
  TAKER_EXPIRY,
  TAKER_WALLET,
  TRADE_ID,
  takerLockedContext,
  tradeContext,
} from '../support/trade-context.ts';

// ── Factories ─────────────────────────────────────────────────────────────────────────────────────

const asset = (mint: string, symbol: string, decimals: number): Asset => ({
  id: mint,
  mint,
  symbol,
  name: symbol,
  decimals,
});
const ASSETS = new AssetRegistry([asset(SOL_MINT, 'SOL', 9), asset(USDC_MINT, 'USDC', 6)]);

const LATER_RUN = 'e4b6c8d0-2a4c-4e6a-9c8e-0a2c4e6a8c44';
const PROGRAM_ID = 'HtLcProgram1111111111111111111111111111111';
const REDEEM_BY = MAKER_EXPIRY - LANDING_MARGIN;

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const LEDGER: LedgerSummary = { balanced: true, entry_count: 8, net_usdc_estimate: '0.420000' };

type StateValue = string | { [key: string]: StateValue };

function reading(
  value: StateValue,
  context: TradeContext,
  overrides: Partial<Omit<TradeReading, 'snapshot'>> = {},
): TradeReading {
  return {
    snapshot: { value, context },
    status: settlementStatusOf({ value }),
    closed: false,
    createdAt: iso(T0),
    ownerRunId: CREATING_RUN,
    currentRunId: CREATING_RUN,
    ledger: LEDGER,
    quotePrices: { input: null, output: null },
    programId: PROGRAM_ID,
    chainNow: T0 + 10,
    hedgeSwaps: [],
    gatewayBurns: [],
    ...overrides,
  };
}

const render = (
  value: StateValue,
  context: TradeContext,
  overrides: Partial<Omit<TradeReading, 'snapshot'>> = {},
) => renderTrade(reading(value, context, overrides), ASSETS);

const json = (view: TradeResponse) =>
  JSON.stringify(view, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));

const AWAITING_LOCK = { pending: 'awaitingLock' };
const LOCK_SUBMITTED = { pending: 'lockSubmitted' };
const LOCK_SEEN = { pending: 'lockSeen' };
const MAKER_LOCKED = { initiated: { redeeming: 'makerLocked' } };
const REDEEMED_CLOSED = { redeemed: 'closed' };

const tradePath = `/v1/trades/${TRADE_ID}`;

// ── Seed fields ───────────────────────────────────────────────────────────────────────────────────

describe('renderTrade: every TradeResponse field of the interface, with its type', () => {
  test('identifiers are the trade, its quote and the run that created it, as UUID strings', () => {
    const view = render(MAKER_LOCKED, makerLockedContext());
    expect(view).toMatchObject({ trade_id: TRADE_ID, quote_id: QUOTE_ID, run_id: CREATING_RUN });
    for (const id of [view.trade_id, view.quote_id, view.run_id]) expect(id).toMatch(UUID);
  });

  test('run_id stays the creating run after another run adopts the trade', () => {
    const context = makerLockedContext({ currentRunId: LATER_RUN, adoptedAt: T0 + 200 });
    const view = render(MAKER_LOCKED, context, { ownerRunId: LATER_RUN, currentRunId: LATER_RUN });
    expect(view.run_id).toBe(CREATING_RUN);
    expect(view.current_run).toBe(true);
  });

  test('current_run is true when the run asking owns the trade', () => {
    const view = render(AWAITING_LOCK, tradeContext(), { ownerRunId: LATER_RUN, currentRunId: LATER_RUN });
    expect(view.current_run).toBe(true);
  });

  test('current_run is false when another run owns the trade', () => {
    const view = render(AWAITING_LOCK, tradeContext(), {
      ownerRunId: CREATING_RUN,
      currentRunId: LATER_RUN,
    });
    expect(view.current_run).toBe(false);
  });

  test('taker_wallet is the attributed wallet', () => {
    expect(render(AWAITING_LOCK, tradeContext()).taker_wallet).toBe(TAKER_WALLET);
  });

  test('expires_at is the taker HTLC expiry as an RFC 3339 UTC date-time', () => {
    const view = render(AWAITING_LOCK, tradeContext());
    expect(view.expires_at).toMatch(RFC3339_UTC);
    expect(view.expires_at).toBe(iso(TAKER_EXPIRY));
    expect(Date.parse(view.expires_at ?? '')).toBe(TAKER_EXPIRY * 1000);
  });

  test('created_at is passed through as given', () => {
    const view = render(AWAITING_LOCK, tradeContext(), { createdAt: '2023-11-14T22:13:20.000Z' });
    expect(view.created_at).toBe('2023-11-14T22:13:20.000Z');
    expect(view.created_at).toMatch(RFC3339_UTC);
  });

  test.each([
    [AWAITING_LOCK, 'pending'],
    [LOCK_SEEN, 'pending'],
    [MAKER_LOCKED, 'initiated'],
    [{ initiated: { redeeming: 'redeemingForTaker' } }, 'initiated'],
    [REDEEMED_CLOSED, 'redeemed'],
    [{ refunded: 'settling' }, 'refunded'],
    [{ failed: 'noLock' }, 'failed'],
  ] as const)('settlement_status is the top-level state of %o: %s', (value, status) => {
    expect(render(value, makerLockedContext()).settlement_status).toBe(status);
  });

  test('a pending trade without any movement has no signatures', () => {
    const view = render(AWAITING_LOCK, tradeContext());
    expect(view.tx_signatures).toEqual([]);
    expect(view.tx_signature_kinds).toEqual([]);
  });

  test('a signed lock the service holds but has not seen on chain is not a movement of funds', () => {
    const view = render(LOCK_SUBMITTED, lockSubmittedContext());
    expect(view.tx_signatures).toEqual([]);
  });

  test('tx_signatures and tx_signature_kinds list the movements in the order they landed', () => {
    const view = render(REDEEMED_CLOSED, redeemedContext(), { closed: true });
    expect(view.tx_signatures).toEqual([
      'sig-taker-lock',
      'sig-maker-lock',
      'sig-taker-redeem',
      'sig-maker-redeem',
    ]);
    expect(view.tx_signature_kinds).toEqual([
      { kind: 'taker_lock', signature: 'sig-taker-lock' },
      { kind: 'maker_lock', signature: 'sig-maker-lock' },
      { kind: 'taker_redeem', signature: 'sig-taker-redeem' },
      { kind: 'maker_redeem', signature: 'sig-maker-redeem' },
    ]);
  });

  test('tx_signatures is exactly the signatures of tx_signature_kinds, and every kind is a kind of the interface', () => {
    const context = redeemedContext({
      signatures: [
        { kind: 'taker_lock', signature: 'b' },
        { kind: 'maker_lock', signature: 'a' },
        { kind: 'maker_refund', signature: 'd' },
        { kind: 'taker_refund', signature: 'c' },
      ],
    });
    const view = render({ refunded: 'closed' }, context, { closed: true });
    expect(view.tx_signature_kinds.map((s) => s.signature)).toEqual(view.tx_signatures);
    expect(view.tx_signatures).toEqual(['b', 'a', 'd', 'c']);
    for (const { kind, signature } of view.tx_signature_kinds) {
      expect(TRADE_SIGNATURE_KINDS).toContain(kind);
      expect(typeof signature).toBe('string');
    }
  });

  test('a maker swap says how it ended: a sourcing swap and a hedge that failed on chain are listed as failed, the others as succeeded; escrow kinds carry no outcome', () => {
    const context = redeemedContext({
      signatures: [
        { kind: 'taker_lock', signature: 'lock' },
        { kind: 'aggregator_swap', signature: 'swap-1', outcome: 'failed' },
        { kind: 'aggregator_swap', signature: 'swap-2' },
        { kind: 'maker_lock', signature: 'maker' },
      ],
    });
    const view = render(REDEEMED_CLOSED, context, {
      closed: true,
      hedgeSwaps: [
        { signature: 'hedge-1', failed: true },
        { signature: 'hedge-2', failed: false },
      ],
    });
    expect(view.tx_signature_kinds).toEqual([
      { kind: 'taker_lock', signature: 'lock' },
      { kind: 'aggregator_swap', signature: 'swap-1', outcome: 'failed' },
      { kind: 'aggregator_swap', signature: 'swap-2', outcome: 'succeeded' },
      { kind: 'maker_lock', signature: 'maker' },
      { kind: 'aggregator_swap', signature: 'hedge-1', outcome: 'failed' },
      { kind: 'aggregator_swap', signature: 'hedge-2', outcome: 'succeeded' },
    ]);
    expect(view.tx_signatures).toEqual(['lock', 'swap-1', 'swap-2', 'maker', 'hedge-1', 'hedge-2']);
  });

  test('the response does not share the context array: editing it leaves the snapshot alone', () => {
    const context = makerLockedContext();
    const view = render(MAKER_LOCKED, context);
    view.tx_signatures.push('extra');
    view.tx_signature_kinds.pop();
    expect(context.signatures).toHaveLength(2);
  });

  test('amounts are TokenAmounts: asset symbol and amount_raw as an exact bigint', () => {
    const context = tradeContext({ inputAmountRaw: '9223372036854775807' });
    const { amounts } = render(AWAITING_LOCK, context);
    expect(amounts).toStrictEqual({
      input: { asset: 'SOL', amount_raw: 9_223_372_036_854_775_807n },
      output: { asset: 'USDC', amount_raw: 187_420_000n },
    });
    expect(typeof amounts.input?.amount_raw).toBe('bigint');
    expect(typeof amounts.output?.amount_raw).toBe('bigint');
  });

  test('input and output are AmountViews with exactly `decimals` fraction digits', () => {
    const view = render(AWAITING_LOCK, tradeContext());
    expect(view.input).toEqual({
      asset: 'SOL',
      amount: '1.000000000',
      amount_raw: '1000000000',
      decimals: 9,
      mint: SOL_MINT,
    });
    expect(view.output).toEqual({
      asset: 'USDC',
      amount: '187.420000',
      amount_raw: '187420000',
      decimals: 6,
      mint: USDC_MINT,
    });
    for (const amount of [view.input, view.output]) {
      const fraction = amount?.amount.split('.')[1] ?? '';
      expect(fraction).toHaveLength(amount?.decimals ?? -1);
      expect(amount?.amount_raw).toMatch(/^[0-9]+$/);
    }
  });

  test('an asset no longer configured renders its amounts as null rather than guessing decimals', () => {
    const view = render(
      AWAITING_LOCK,
      tradeContext({ outputMint: 'Gone111111111111111111111111111111111111111' }),
    );
    expect(view.amounts.output).toBeNull();
    expect(view.output).toBeNull();
    expect(view.amounts.input).not.toBeNull();
  });

  test('ledger_summary is the summary given, unchanged', () => {
    const ledger: LedgerSummary = { balanced: false, entry_count: 3, net_usdc_estimate: '-0.000001' };
    expect(render(MAKER_LOCKED, makerLockedContext(), { ledger }).ledger_summary).toEqual(ledger);
  });

  test("integration_status is always 'runtime_orchestrated'", () => {
    expect(render(AWAITING_LOCK, tradeContext()).integration_status).toBe('runtime_orchestrated');
    expect(render(REDEEMED_CLOSED, redeemedContext(), { closed: true }).integration_status).toBe(
      'runtime_orchestrated',
    );
  });

  test('the whole response serialises to JSON once bigints are written as integers', () => {
    const text = json(render(MAKER_LOCKED, makerLockedContext()));
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(
      expect.arrayContaining([
        'trade_id',
        'quote_id',
        'run_id',
        'current_run',
        'taker_wallet',
        'expires_at',
        'created_at',
        'settlement_status',
        'tx_signatures',
        'tx_signature_kinds',
        'amounts',
        'input',
        'output',
        'ledger_summary',
        'integration_status',
      ]),
    );
  });
});

// ── Extensions ────────────────────────────────────────────────────────────────────────────────────

describe('renderTrade: the extensions', () => {
  test('substate is the status and the state’s own name: the machine’s phases stay inside it', () => {
    expect(render(LOCK_SUBMITTED, lockSubmittedContext()).substate).toBe('pending.lockSubmitted');
    expect(render(MAKER_LOCKED, makerLockedContext()).substate).toBe('initiated.makerLocked');
    expect(render({ initiated: { locking: 'sendingMakerLock' } }, takerLockedContext()).substate).toBe(
      'initiated.sendingMakerLock',
    );
    expect(render({ initiated: { unwinding: 'awaitingTakerExpiry' } }, makerLockedContext()).substate).toBe(
      'initiated.awaitingTakerExpiry',
    );
  });

  test('escrows, program id and lock deadline are shown from the start', () => {
    const view = render(AWAITING_LOCK, tradeContext());
    expect(view).toMatchObject({
      taker_escrow: 'TakerEscrow111111111111111111111111111111',
      maker_escrow: 'MakerEscrow111111111111111111111111111111',
      program_id: PROGRAM_ID,
      lock_deadline: iso(LOCK_DEADLINE),
      failure_reason: null,
    });
  });

  test('quote_prices: each side as its quote recorded it, named by its asset; null where none was recorded', () => {
    const sol = { ...SOL_PYTH_PRICE, publishTime: T0 - 2 };
    const view = render(AWAITING_LOCK, tradeContext(), { quotePrices: { input: sol, output: null } });
    expect(view.quote_prices).toEqual({
      input: {
        asset: 'SOL',
        source: 'pyth',
        feed_account: sol.account,
        feed_id: sol.feedId,
        price: '187.42000000',
        confidence: '0.09371000',
        ema_price: '187.00000000',
        price_raw: '18742000000',
        conf_raw: '9371000',
        exponent: -8,
        publish_time: iso(T0 - 2),
      },
      output: null,
    });
  });

  test('failure_reason names why a trade failed or was refunded', () => {
    const view = render({ failed: 'noLock' }, tradeContext({ failureReason: 'abandoned' }), {
      closed: true,
    });
    expect(view.failure_reason).toBe('abandoned');
  });

  test('before the maker locks there is no maker expiry and no redeem_by', () => {
    const view = render({ initiated: { locking: 'deciding' } }, takerLockedContext());
    expect(view.maker_expires_at).toBeNull();
    expect(view.redeem_by).toBeNull();
  });

  test('redeem_by is the maker expiry less the landing margin, as RFC 3339', () => {
    const view = render(MAKER_LOCKED, makerLockedContext());
    expect(view.maker_expires_at).toBe(iso(MAKER_EXPIRY));
    expect(view.redeem_by).toBe(iso(MAKER_EXPIRY - LANDING_MARGIN));
    expect(view.redeem_by).toMatch(RFC3339_UTC);
  });

  test('hashlock is the commitment once the taker lock is on chain', () => {
    expect(render({ initiated: { locking: 'assessing' } }, takerLockedContext()).hashlock).toBe(SECRET_HASH);
  });

  test.each([
    ['awaiting the lock', AWAITING_LOCK, tradeContext()],
    ['holding a signed lock', LOCK_SUBMITTED, lockSubmittedContext()],
    [
      'having seen the lock, not yet final',
      LOCK_SEEN,
      lockSubmittedContext({ lockSignature: 'sig-taker-lock' }),
    ],
    [
      'abandoned',
      { failed: 'noLock' },
      tradeContext({ abandonedWith: SECRET_HASH, failureReason: 'abandoned' }),
    ],
  ] as const)(
    'the commitment appears nowhere in the view of a trade %s, before lock terms exist',
    (_, value, context) => {
      const view = render(value, context);
      expect(view.hashlock).toBeNull();
      const text = json(view).toLowerCase();
      expect(text).not.toContain(SECRET_HASH.toLowerCase());
    },
  );
});

// ── next_action ───────────────────────────────────────────────────────────────────────────────────

describe('next_action: the taker front end’s next step', () => {
  test('awaiting the lock: submit it', () => {
    expect(render(AWAITING_LOCK, tradeContext()).next_action).toEqual({
      type: 'submit_lock',
      method: 'POST',
      path: `${tradePath}/lock`,
    });
  });

  test.each([
    ['pending.lockSubmitted', LOCK_SUBMITTED, lockSubmittedContext()],
    ['pending.lockSeen', LOCK_SEEN, lockSubmittedContext()],
    ['initiated.locking.assessing', { initiated: { locking: 'assessing' } }, takerLockedContext()],
    ['initiated.locking.deciding', { initiated: { locking: 'deciding' } }, takerLockedContext()],
    [
      'initiated.locking.signingMakerLock',
      { initiated: { locking: 'signingMakerLock' } },
      takerLockedContext(),
    ],
    [
      'initiated.locking.sendingMakerLock',
      { initiated: { locking: 'sendingMakerLock' } },
      takerLockedContext(),
    ],
  ] as const)('%s: wait for the maker lock by reading the trade', (_, value, context) => {
    expect(render(value, context).next_action).toEqual({
      type: 'await_maker_lock',
      method: 'GET',
      path: tradePath,
    });
  });

  describe('initiated.makerLocked', () => {
    const at = (chainNow: number, overrides: Partial<TradeContext> = {}) =>
      render(MAKER_LOCKED, makerLockedContext(overrides), { chainNow }).next_action;

    test('before redeem_by: redeem', () => {
      expect(at(T0 + 100)).toEqual({ type: 'redeem', method: 'POST', path: `${tradePath}/redeem` });
      expect(at(REDEEM_BY - 1)?.type).toBe('redeem');
    });

    test('from redeem_by until the taker expiry: await settlement (too late to redeem safely)', () => {
      expect(at(REDEEM_BY)).toEqual({ type: 'await_settlement', method: 'GET', path: tradePath });
      expect(at(MAKER_EXPIRY)?.type).toBe('await_settlement');
      expect(at(TAKER_EXPIRY - 1)?.type).toBe('await_settlement');
    });

    test('from the taker expiry on, still: await settlement (the runtime reclaims the maker escrow first)', () => {
      expect(at(TAKER_EXPIRY)).toEqual({ type: 'await_settlement', method: 'GET', path: tradePath });
      expect(at(TAKER_EXPIRY + 3_600)?.type).toBe('await_settlement');
    });

    test('once a redeem was requested, it is not offered again', () => {
      expect(at(T0 + 100, { redeemRequested: true })?.type).toBe('await_settlement');
    });
  });

  test.each([
    ['redeemingForTaker', { initiated: { redeeming: 'redeemingForTaker' } }],
    ['takerRedeemLanded', { initiated: { redeeming: 'takerRedeemLanded' } }],
    ['makerRedeeming', { initiated: { redeeming: 'makerRedeeming' } }],
  ] as const)('initiated.%s: await settlement', (_, value) => {
    expect(render(value, redeemedContext(), { chainNow: T0 + 100 }).next_action?.type).toBe(
      'await_settlement',
    );
  });

  // next_action never sends the taker to a refund the machine would refuse (409 not_refundable).
  test('a refund is offered only in states whose machine accepts REFUND_REQUESTED at that time', () => {
    const leaves = machineDefinition().states.filter((st) => st.type === 'atomic' || st.type === 'final');
    const stateValueOf = (path: string): StateValue =>
      path
        .split('.')
        .reduceRight<StateValue | null>((inner, key) => (inner === null ? key : { [key]: inner }), null) ??
      '';
    let offered = 0;
    for (const { path, substate } of leaves) {
      for (const chainNow of [TAKER_EXPIRY - 1, TAKER_EXPIRY, TAKER_EXPIRY + 3_600]) {
        const context = makerLockedContext();
        const value = stateValueOf(path);
        const next = nextAction(substate as Substate, false, context, chainNow, REDEEM_BY);
        if (next?.type !== 'refund') continue;
        offered++;
        const outcome = commandOutcome({ value, context }, { type: 'REFUND_REQUESTED', now: chainNow });
        expect(outcome.outcome, `${path} at ${chainNow}`).toBe('accept');
      }
    }
    expect(offered).toBeGreaterThan(0);
  });

  // Once the maker escrow is reclaimed the taker escrow is still locked: its refund is offered from the
  // taker expiry on, once — exactly where the machine accepts REFUND_REQUESTED (tested below).
  describe('waiting out the taker expiry after the maker escrow is reclaimed', () => {
    const value = { initiated: { unwinding: 'awaitingTakerExpiry' } };
    test('before the taker expiry: await settlement', () => {
      const view = render(value, makerLockedContext(), { chainNow: TAKER_EXPIRY - 1 });
      expect(view.next_action).toEqual({ type: 'await_settlement', method: 'GET', path: tradePath });
    });
    test('from the taker expiry: refund', () => {
      const view = render(value, makerLockedContext(), { chainNow: TAKER_EXPIRY });
      expect(view.next_action).toEqual({ type: 'refund', method: 'POST', path: `${tradePath}/refund` });
    });
    test('once a refund was requested: await settlement', () => {
      const view = render(value, makerLockedContext({ refundRequested: true }), { chainNow: TAKER_EXPIRY });
      expect(view.next_action?.type).toBe('await_settlement');
    });
  });

  test.each([
    ['redeemed', REDEEMED_CLOSED, redeemedContext()],
    ['refunded', { refunded: 'closed' }, makerLockedContext()],
    ['failed', { failed: 'noLock' }, tradeContext({ failureReason: 'abandoned' })],
  ] as const)('a closed %s trade has no next_action at all', (_, value, context) => {
    const view = render(value, context, { closed: true });
    expect(view).not.toHaveProperty('next_action');
  });

  test.each([
    ['redeemed.closingEscrows', { redeemed: 'closingEscrows' }, redeemedContext()],
    ['refunded.settling', { refunded: 'settling' }, makerLockedContext()],
    ['refunded.reclaimingMakerEscrow', { refunded: 'reclaimingMakerEscrow' }, makerLockedContext()],
    ['failed.releasingLateLock', { failed: 'releasingLateLock' }, takerLockedContext()],
  ] as const)('final but not closed (%s): await settlement', (_, value, context) => {
    const view = render(value, context, { chainNow: T0 + 100 });
    expect(view.next_action).toEqual({ type: 'await_settlement', method: 'GET', path: tradePath });
  });

  test('nextAction is the same function renderTrade uses', () => {
    const context = makerLockedContext();
    expect(nextAction('initiated.makerLocked', false, context, T0 + 100, REDEEM_BY)).toEqual(
      render(MAKER_LOCKED, context, { chainNow: T0 + 100 }).next_action,
    );
    expect(nextAction('initiated.makerLocked', true, context, T0 + 100, REDEEM_BY)).toBeUndefined();
  });
});
