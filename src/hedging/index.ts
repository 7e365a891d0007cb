// Front door of hedging: inventory targets and bands kept by swapping through the aggregator once trades are
// redeemed (hedger.ts), one clip planned at the live mid and signed (clip.ts), a hedge's record as it is
// stored (record.ts), the exact band and clip arithmetic (plan.ts), and the operator's view of the inventory
// (view.ts). Landing, booking and the slippage of any aggregator swap are the aggregator's (src/aggregator/).
export { HEDGE_FAILURE_REASONS, type HedgeFailureReason } from './clip.ts';
export { type AssetHedgingState, type HedgeObserver, Hedger, type HedgerOptions } from './hedger.ts';
export {
  type Band,
  type ClipPlan,
  deviation,
  type HedgeSide,
  type Holdings,
  outsideBand,
  planClip,
} from './plan.ts';
export { parseRatio, ratioText } from './record.ts';
export {
  hedgeSlippage,
  type InventoryAsset,
  type InventoryReading,
  type InventorySources,
  positions,
  readInventory,
} from './view.ts';
