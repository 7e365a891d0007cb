// A trade's context as the machine holds it at each stage the tests need, without running the machine to
// get there: 1 SOL in, 187.42 USDC out, every deadline distinct. Each builder takes overrides for its case.
import {
  initialContext,
  type TakerLockTerms,
  type TradeContext,
  type TradeInput,
} from '../../machines/index.ts';
import { type Hash32, parseHash32, preimageFromBytes } from '../../src/vocabulary/index.ts';
import { SOL_MINT, USDC_MINT } from './mints.ts';

export const TRADE_ID = '3f0c8a52-6a7e-4c1e-9f6b-0d2a4b8e1c11';
export const QUOTE_ID = '9b1d4e77-2c3a-4f8d-8e5b-6a7c9d0e1f22';
export const CREATING_RUN = 'c7a2e9d4-1b3f-4a6c-8d5e-2f7b9a0c3d33';
export const TAKER_WALLET = 'TakerWa11et1111111111111111111111111111111';
/** A commitment distinctive enough that any occurrence of it in an output is a leak, not a coincidence. */
export const SECRET_HASH = parseHash32(
  '5e3c9a71f02b8d46e1a7c3950b6f2d84a9e1c7305f8b2d6e4a0c9e7f1b3d5a28',
) as Hash32;

export const T0 = 1_700_000_000;
export const LOCK_DEADLINE = T0 + 120;
export const TAKER_EXPIRY = T0 + 900;
export const MAKER_EXPIRY = T0 + 360;
export const LANDING_MARGIN = 30;

/** What the settlement start gives the machine: 1 SOL in, 187.42 USDC out. */
export const tradeInput = (overrides: Partial<TradeInput> = {}): TradeInput => ({
  tradeId: TRADE_ID,
  quoteId: QUOTE_ID,
  runId: CREATING_RUN,
  takerWallet: TAKER_WALLET,
  makerWallet: 'MakerWa11et1111111111111111111111111111111',
  secretHash: SECRET_HASH,
  inputMint: SOL_MINT,
  inputAmountRaw: '1000000000',
  outputMint: USDC_MINT,
  outputAmountRaw: '187420000',
  takerExpiry: TAKER_EXPIRY,
  lockDeadline: LOCK_DEADLINE,
  takerEscrow: 'TakerEscrow111111111111111111111111111111',
  makerEscrow: 'MakerEscrow111111111111111111111111111111',
  makerTimelock: 300,
  safetyMargin: 300,
  minRedeemWindow: 120,
  landingMargin: LANDING_MARGIN,
  sourcing: null,
  ...overrides,
});

/** A trade just started, as the machine begins it: the unsigned lock issued, nothing signed or seen. */
export const tradeContext = (overrides: Partial<TradeContext> = {}): TradeContext => ({
  ...initialContext(tradeInput()),
  ...overrides,
});

/** The terms of a taker lock made exactly as agreed. */
export function lockTermsOf(context: TradeContext): TakerLockTerms {
  return {
    escrow: context.takerEscrow,
    initializer: context.takerWallet,
    recipient: context.makerWallet,
    mint: context.inputMint,
    amountRaw: context.inputAmountRaw,
    hashlock: context.secretHash,
    expiry: context.takerExpiry,
    lockDeadline: context.lockDeadline,
  };
}

/** The taker's signed lock is held by the service but not yet seen on chain. */
export const lockSubmittedContext = (overrides: Partial<TradeContext> = {}): TradeContext =>
  tradeContext({
    lockSignature: 'sig-taker-lock',
    lockSubmissions: [{ signature: 'sig-taker-lock', lastValidBlockHeight: 1_000, transactionBase64: null }],
    ...overrides,
  });

/** The taker lock is final on chain with the agreed terms. */
export function takerLockedContext(overrides: Partial<TradeContext> = {}): TradeContext {
  const base = lockSubmittedContext();
  return {
    ...base,
    signatures: [{ kind: 'taker_lock', signature: 'sig-taker-lock' }],
    takerLockTerms: lockTermsOf(base),
    ...overrides,
  };
}

/** The maker escrow holds the output; the taker may redeem until the maker expiry less the landing margin. */
export function makerLockedContext(overrides: Partial<TradeContext> = {}): TradeContext {
  const base = takerLockedContext();
  return {
    ...base,
    assessment: { available: true, now: T0 + 60, price: null },
    makerExpiry: MAKER_EXPIRY,
    makerLockIntent: {
      makerExpiry: MAKER_EXPIRY,
      signature: 'sig-maker-lock',
      lastValidBlockHeight: 2_000,
      transactionBase64: 'AQID',
      lapsed: false,
    },
    signatures: [...base.signatures, { kind: 'maker_lock', signature: 'sig-maker-lock' }],
    ...overrides,
  };
}

/** Both redeems landed. */
export function redeemedContext(overrides: Partial<TradeContext> = {}): TradeContext {
  const base = makerLockedContext();
  return {
    ...base,
    preimage: preimageFromBytes(Buffer.alloc(32, 0x11)),
    makerEscrowRedeemSeen: true,
    redeemRequested: true,
    signatures: [
      ...base.signatures,
      { kind: 'taker_redeem', signature: 'sig-taker-redeem' },
      { kind: 'maker_redeem', signature: 'sig-maker-redeem' },
    ],
    ...overrides,
  };
}
