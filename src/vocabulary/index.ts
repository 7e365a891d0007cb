// The project's one vocabulary: every status, kind and name the interface fixes (docs/), defined once and
// imported by schemas, machines, runtime and tests alike.

/** Top-level states of a trade actor, exactly the interface's SettlementStatus values (docs/lifecycle.md). */
export const SETTLEMENT_STATUSES = ['pending', 'initiated', 'redeemed', 'refunded', 'failed'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

/** Once a trade reaches one of these, its settlement_status never changes again. */
export const FINAL_SETTLEMENT_STATUSES = [
  'redeemed',
  'refunded',
  'failed',
] as const satisfies readonly SettlementStatus[];

/**
 * The interface's TradeSignatureKind values. Kinds name the escrow and the movement, not who signed
 * (docs/lifecycle.md#signature-kinds).
 */
export const TRADE_SIGNATURE_KINDS = [
  'taker_lock',
  'taker_redeem',
  'taker_refund',
  'maker_lock',
  'maker_redeem',
  'maker_refund',
  'gateway_burn',
  'gateway_mint',
  'aggregator_swap',
] as const;
export type TradeSignatureKind = (typeof TRADE_SIGNATURE_KINDS)[number];

export const INTEGRATION_STATUS = 'runtime_orchestrated' as const;
export const SETTLEMENT_MODEL = 'solana_htlc' as const;

/** Risk checks an RFQ runs; each passed one is named in risk_checks (docs/quotes-and-ledger.md#risk-checks). */
export const RISK_CHECKS = [
  'pair_enabled',
  'price_freshness',
  'price_confidence',
  'price_deviation',
  'min_notional',
  'max_notional',
  'inventory',
  'reservation_budget',
  'wallet_limits',
  // Only for an output the free inventory does not cover: the rest can be bought through the aggregator.
  'sourcing',
] as const;
export type RiskCheck = (typeof RISK_CHECKS)[number];

/** next_action.type values, in the order a taker meets them (docs/interface.md#nextaction). */
export const NEXT_ACTION_TYPES = [
  'start_wallet_settlement',
  'submit_lock',
  'await_maker_lock',
  'redeem',
  'await_settlement',
  'refund',
] as const;
export type NextActionType = (typeof NEXT_ACTION_TYPES)[number];

export { decodeBase58, encodeBase58 } from './base58.ts';
export {
  bytesOf,
  type Hash32,
  hash32FromBytes,
  hashOfPreimage,
  isPreimage,
  type Preimage,
  parseHash32,
  parsePreimage,
  preimageFromBytes,
  sameHash32,
} from './hash.ts';
export { isSubstate, publicSubstate, SUBSTATES, type Substate } from './substates.ts';
