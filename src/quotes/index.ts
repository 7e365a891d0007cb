// Quotes: pricing, risk and the desk that issues firm quotes and holds their reservations.
export { QuoteDesk } from './desk.ts';
export {
  type AcceptedQuote,
  type DeskSourcing,
  type InventorySource,
  InventoryUnknown,
  type LivePairs,
  type OptionLegTerm,
  type QuoteDeskDeps,
  type QuoteState,
  type RejectedQuote,
  RfqInputError,
  type RfqRequest,
  type SpreadBreakdown,
  type TradeExposure,
} from './desk-api.ts';
export {
  FEED_STATUSES,
  type FeedState,
  type FeedStatus,
  feedStates,
  limitsOf,
  type PriceLimits,
} from './feeds.ts';
export { optionTermBps } from './option.ts';
export {
  confidenceBps,
  deviationBps,
  type FeedReading,
  type FeedView,
  isDeviating,
  isWide,
  type ObservablePriceSource,
  type PriceQuote,
  type PriceSource,
  StaticPriceSource,
  usdOf,
} from './prices.ts';
export { type PriceUpdateFields, type PriceUpdateReader, PythPriceSource } from './pyth-source.ts';
export { type RepriceInput, repriceCheck } from './reprice.ts';
export { type Holder, type Reservation, ReservationBook } from './reservations.ts';
export { annualised, logPrice, perSqrtSecond, SECONDS_PER_YEAR, VolatilityEstimate } from './volatility.ts';
