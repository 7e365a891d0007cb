// Schemas of the RFQ group: the request, the two 200 answers (a firm quote or a risk rejection) and a
// quote's lookup (docs/interface.md#quote-post-v1rfq-status-accepted).
import Type from 'typebox';
import { INTEGRATION_STATUS, RISK_CHECKS, SETTLEMENT_MODEL } from '../../vocabulary/index.ts';
import {
  AmountViewSchema,
  DateTime,
  DecimalAmount,
  ext,
  Int64,
  NextActionSchema,
  Nullable,
  Uuid,
  WalletAddress,
} from '../schemas.ts';
import { QuotePricesSchema } from './prices.schema.ts';

export const RfqRequestSchema = Type.Object(
  {
    input_asset: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'asset id (mint) or symbol, case-insensitive',
    }),
    output_asset: Type.String({ minLength: 1, maxLength: 64, description: 'asset id (mint) or symbol' }),
    amount: DecimalAmount,
    taker_wallet: WalletAddress,
    expiry_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 300,
        description: 'default 30; at most the configured maximum, which a pair may set lower',
      }),
    ),
  },
  { additionalProperties: false, title: 'RfqRequest' },
);

const RiskCheckName = Type.Enum(RISK_CHECKS);
const Bps = Type.Integer({ minimum: 0, maximum: 10000 });

const OptionLegSchema = Type.Object({
  asset: Type.String({ description: 'asset symbol' }),
  volatility_annual: Nullable(
    Type.Number({
      minimum: 0,
      description:
        'the asset’s volatility the term was priced with, annualised (0.8 = 80 %): an EWMA of its feed’s ' +
        'squared log returns; null without an estimate (a static price source, a feed not yet published twice)',
    }),
  ),
  bps: Type.Integer({ minimum: 0, description: '⌈k · σ · √T⌉, capped' }),
});

export const SpreadBreakdownSchema = Type.Object(
  {
    base_bps: Bps,
    confidence_bps: Type.Integer({ minimum: 0, description: 'each price’s ⌈conf / price⌉, summed' }),
    option_bps: Type.Integer({
      minimum: 0,
      description: 'the option term: what the taker’s option during its redeem window is worth, both legs',
    }),
    size_and_skew_bps: Type.Integer({
      minimum: 0,
      description: 'the size and inventory-skew terms together, rounded up with them',
    }),
    sourcing_bps: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'a quote whose output the free inventory does not cover (risk_checks names sourcing): what the ' +
          'aggregator route’s minimum out costs the sourced part beyond the spread, in bps of the whole ' +
          'quote’s mid value; absent otherwise',
      }),
    ),
    option: Nullable(
      Type.Object(
        {
          window_seconds: Type.Integer({
            minimum: 1,
            description:
              'T: the lock window plus the pair’s maker timelock, the longest the taker holds the option',
          }),
          input: OptionLegSchema,
          output: OptionLegSchema,
        },
        { description: 'null while the maker prices no option term' },
      ),
    ),
  },
  ext(
    'how spread_bps is made up: base_bps + confidence_bps + option_bps + size_and_skew_bps (+ sourcing_bps, ' +
      'when present) = spread_bps. ' +
      'Present on the RFQ answer and on lookups while the quote is fresh in this instance (the store keeps ' +
      'no breakdown)',
  ),
);
const PairRefSchema = Type.Object({ input_asset: Type.String(), output_asset: Type.String() });

export const QuoteSchema = Type.Object(
  {
    status: Type.Literal('accepted'),
    quote_id: Uuid,
    quoted_output_amount_raw: Int64,
    spread_bps: Type.Integer({ minimum: 0, maximum: 10000 }),
    spread_breakdown: Type.Optional(SpreadBreakdownSchema),
    expires_at: DateTime,
    htlc_terms: Type.Object({
      settlement_model: Type.Literal(SETTLEMENT_MODEL),
      escrow_mint: Type.String({ description: 'mint of the escrowed (input) asset' }),
      expires_at: DateTime,
      hashlock: Type.Null({ description: 'null in a fresh quote: the commitment comes at settlement start' }),
    }),
    risk_checks: Type.Array(RiskCheckName),
    integration_status: Type.Literal(INTEGRATION_STATUS),
    pair: PairRefSchema,
    input: AmountViewSchema,
    output: AmountViewSchema,
    next_action: NextActionSchema,
    prices: QuotePricesSchema,
  },
  { title: 'Quote' },
);

export const RiskRejectionSchema = Type.Object(
  {
    status: Type.Literal('rejected'),
    rejection_id: Uuid,
    reasons: Type.Array(Type.Object({ check: RiskCheckName, message: Type.String() }), { minItems: 1 }),
    risk_checks: Type.Array(RiskCheckName, { description: 'the checks that passed' }),
    pair: PairRefSchema,
    input: AmountViewSchema,
    integration_status: Type.Literal(INTEGRATION_STATUS),
  },
  { title: 'RiskRejection', description: 'A normal RFQ outcome, not an error.' },
);

export const RfqResponseSchema = Type.Union([QuoteSchema, RiskRejectionSchema]);

export const QuoteParams = Type.Object({ quote_id: Uuid });

export const QuoteLookupSchema = Type.Object(
  {
    state: Type.Union([Type.Literal('open'), Type.Literal('used'), Type.Literal('expired')]),
    quote: QuoteSchema,
  },
  { title: 'QuoteLookup' },
);
