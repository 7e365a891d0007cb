// Front door of the money core: exact amounts, prices and USD notionals, all bigint, all pure.

export {
  type AmountView,
  type AssetRef,
  amountView,
  formatAmount,
  formatDecimal,
  INT64_MAX,
  isInt64Raw,
  MAX_DECIMALS,
  parseAmount,
} from './amounts.ts';
export { AMOUNT_ERROR_REASONS, AmountError, type AmountErrorReason } from './errors.ts';
export {
  dividePrices,
  formatScaled,
  mulDivCeil,
  mulDivFloor,
  type Price,
  parsePrice,
  parseRatio,
} from './price.ts';
export { BPS, minimumOut, type Ratio } from './ratio.ts';
export { formatUsd, notionalMicroUsd, parseUsd, USD_DECIMALS } from './usd.ts';
