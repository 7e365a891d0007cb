// Front door of the Pyth price accounts: the PriceUpdateV2 layout, the sponsored feeds' addresses, and
// (embedded chain only) the publisher that keeps them moving.

export { priceUpdateFromAccount } from './account.ts';
export {
  DEFAULT_FEED_SEEDS,
  type FeedSeed,
  PYTH_PUSH_ORACLE_PROGRAM_ID,
  pushOracleFeedAddress,
  SPONSORED_FEEDS,
  SPONSORED_SYMBOLS,
  type SponsoredSymbol,
} from './feeds.ts';
export {
  decodePriceUpdateV2,
  encodePriceUpdateV2,
  isPriceUpdateV2Data,
  PRICE_UPDATE_V2_DISCRIMINATOR,
  PRICE_UPDATE_V2_LEN,
  type PriceUpdate,
  PYTH_RECEIVER_PROGRAM_ID,
  PythLayoutError,
  type VerificationLevel,
} from './layout.ts';
export {
  type FeedMode,
  type PriceAccountWriter,
  type PythFeedSpec,
  PythPublisher,
  type PythPublisherOptions,
  sponsoredFeedSpecs,
} from './publisher.ts';
