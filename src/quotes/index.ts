// Quotes: pricing, risk and the desk that issues firm quotes and holds their reservations.
export {
  type AcceptedQuote,
  type InventorySource,
  QuoteDesk,
  type QuoteState,
  type RejectedQuote,
  RfqInputError,
  type RfqRequest,
  type TradeExposure,
} from './desk.ts';
export { type PriceQuote, type PriceSource, StaticPriceSource } from './prices.ts';
export { ReservationBook } from './reservations.ts';
