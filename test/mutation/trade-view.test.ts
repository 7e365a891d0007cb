// TradeResponse rendering: next_action in the states the main suite does not visit, and the exact shape
// of fields a front end reads.
import { describe, expect, test } from 'vitest';
import type { TradeContext } from '../../machines/index.ts';
import { type Asset, AssetRegistry } from '../../src/config/index.ts';
import { nextAction, renderTrade, type TradeViewInput } from '../../src/runtime/trade-view.ts';

const T0 = 1_700_000_000;
const TAKER_EXPIRY = T0 + 900;
const MAKER_EXPIRY = T0 + 360;
const TRADE_ID = '3f0c8a52-6a7e-4c1e-9f6b-0d2a4b8e1c11';
const trade = `/v1/trades/${TRADE_ID}`;
const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

const asset = (mint: string, symbol: string, decimals: number): Asset => ({
  id: mint,
  mint,
  symbol,
  name: symbol,
  decimals,
});
const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** A trade whose taker lock is final and whose maker lock landed. */
function makerLocked(overrides: Partial<TradeContext> = {}): TradeContext {
  return {
    tradeId: TRADE_ID,
    quoteId: '9b1d4e77-2c3a-4f8d-8e5b-6a7c9d0e1f22',
    runId: 'c7a2e9d4-1b3f-4a6c-8d5e-2f7b9a0c3d33',
    takerWallet: 'TakerWa11et1111111111111111111111111111111',
    makerWallet: 'MakerWa11et1111111111111111111111111111111',
    secretHash: 'ab'.repeat(32),
    inputMint: SOL,
    inputAmountRaw: '1000000000',
    outputMint: USDC,
    outputAmountRaw: '187420000',
    takerExpiry: TAKER_EXPIRY,
    lockDeadline: T0 + 120,
    takerEscrow: 'TakerEscrow111111111111111111111111111111',
    makerEscrow: 'MakerEscrow111111111111111111111111111111',
    makerTimelock: 300,
    safetyMargin: 300,
    minRedeemWindow: 120,
    landingMargin: 30,
    currentRunId: 'c7a2e9d4-1b3f-4a6c-8d5e-2f7b9a0c3d33',
    adoptedAt: null,
    signatures: [
      { kind: 'taker_lock', signature: 'sig-taker-lock' },
      { kind: 'maker_lock', signature: 'sig-maker-lock' },
    ],
    lockSignature: 'sig-taker-lock',
    lockSubmissions: [],
    takerLockTerms: {
      escrow: 'TakerEscrow111111111111111111111111111111',
      initializer: 'TakerWa11et1111111111111111111111111111111',
      recipient: 'MakerWa11et1111111111111111111111111111111',
      mint: SOL,
      amountRaw: '1000000000',
      hashlock: 'ab'.repeat(32),
      expiry: TAKER_EXPIRY,
      lockDeadline: T0 + 120,
    },
    assessment: { available: true, now: T0 + 60 },
    makerExpiry: MAKER_EXPIRY,
    makerLockIntent: null,
    preimage: null,
    makerEscrowRedeemSeen: false,
    abandonedWith: null,
    redeemRequested: false,
    refundRequested: false,
    failureReason: null,
    alert: false,
    effectError: null,
    ...overrides,
  };
}

function input(value: unknown, context: TradeContext, chainNow: number): TradeViewInput {
  return {
    snapshot: { value, context },
    status: 'initiated',
    closed: false,
    createdAt: iso(T0),
    ownerRunId: 'run-a',
    currentRunId: 'run-a',
    assets: new AssetRegistry([asset(SOL, 'SOL', 9), asset(USDC, 'USDC', 6)]),
    ledger: { balanced: true, entry_count: 4, net_usdc_estimate: '0.000000' },
    programId: 'HtLcProgram1111111111111111111111111111111',
    chainNow,
  };
}

describe('next_action while the maker escrow is being refunded', () => {
  const refunding = { initiated: 'refundingMakerEscrow' };

  test('before the taker expiry: await settlement', () => {
    expect(renderTrade(input(refunding, makerLocked(), TAKER_EXPIRY - 1)).next_action).toEqual({
      type: 'await_settlement',
      method: 'GET',
      path: trade,
    });
  });

  test('from the taker expiry: the taker may already refund its own escrow', () => {
    expect(renderTrade(input(refunding, makerLocked(), TAKER_EXPIRY)).next_action).toEqual({
      type: 'refund',
      method: 'POST',
      path: `${trade}/refund`,
    });
  });

  test('once a refund was requested: await settlement', () => {
    const context = makerLocked({ refundRequested: true });
    expect(renderTrade(input(refunding, context, TAKER_EXPIRY)).next_action?.type).toBe('await_settlement');
  });
});

describe('next_action in initiated.makerLocked', () => {
  test('a requested redeem past the taker expiry turns into a refund offer', () => {
    const context = makerLocked({ redeemRequested: true });
    expect(nextAction('initiated.makerLocked', false, context, TAKER_EXPIRY, MAKER_EXPIRY - 30)).toEqual({
      type: 'refund',
      method: 'POST',
      path: `${trade}/refund`,
    });
  });

  test('redeem stays offered up to one second before redeem_by, whatever the taker expiry', () => {
    const context = makerLocked();
    expect(
      nextAction('initiated.makerLocked', false, context, MAKER_EXPIRY - 31, MAKER_EXPIRY - 30)?.type,
    ).toBe('redeem');
  });
});

describe('the rendered view', () => {
  test('lists every signature kind with its signature, in landing order', () => {
    const view = renderTrade(input({ initiated: 'makerLocked' }, makerLocked(), T0 + 100));
    expect(view.tx_signatures).toEqual(['sig-taker-lock', 'sig-maker-lock']);
    expect(view.tx_signature_kinds).toEqual([
      { kind: 'taker_lock', signature: 'sig-taker-lock' },
      { kind: 'maker_lock', signature: 'sig-maker-lock' },
    ]);
  });

  test('current_run compares the owning run with the run asking', () => {
    const base = input({ initiated: 'makerLocked' }, makerLocked(), T0 + 100);
    expect(renderTrade(base).current_run).toBe(true);
    expect(renderTrade({ ...base, ownerRunId: 'run-b' }).current_run).toBe(false);
  });

  test('amounts carry the symbol and the exact raw bigint of each side', () => {
    const view = renderTrade(input({ initiated: 'makerLocked' }, makerLocked(), T0 + 100));
    expect(view.amounts).toStrictEqual({
      input: { asset: 'SOL', amount_raw: 1_000_000_000n },
      output: { asset: 'USDC', amount_raw: 187_420_000n },
    });
    expect(view.input?.amount).toBe('1.000000000');
    expect(view.output?.amount).toBe('187.420000');
  });
});
