// RFQ group (/v1): POST /v1/rfq (a firm quote or a risk rejection, both 200) and GET /v1/quotes/{quote_id},
// answered by the quote desk.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { ServiceMetrics } from '../../metrics/index.ts';
import { amountView } from '../../money/index.ts';
import {
  type AcceptedQuote,
  InventoryUnknown,
  type OptionLegTerm,
  type QuoteDesk,
  type RejectedQuote,
  RfqInputError,
  type SpreadBreakdown,
} from '../../quotes/index.ts';
import { INTEGRATION_STATUS, SETTLEMENT_MODEL } from '../../vocabulary/index.ts';
import { ApiError, errorResponses } from '../errors.ts';
import { assertWallet } from '../schemas.ts';
import type { TypeBoxHandler } from '../typebox-app.ts';
import { PUBLIC_SECURITY } from './operator.ts';
import { renderQuotePrices } from './prices.ts';
import {
  QuoteLookupSchema,
  QuoteParams,
  type QuoteSchema,
  RfqRequestSchema,
  RfqResponseSchema,
  type RiskRejectionSchema,
  type SpreadBreakdownSchema,
} from './rfq.schema.ts';
import { assertWritable } from './writable.ts';

export interface RfqRoutesOptions {
  quotes: QuoteDesk;
  metrics: ServiceMetrics;
  /** False until every configured mint is checked on the chain: no quote is given meanwhile. */
  tradable: () => boolean;
  /** False while the store cannot write (its disk is full): no quote is given meanwhile. Default: always true. */
  writable?: () => boolean;
  /**
   * The client a request comes from, as the rate limit counts it (src/http/app.ts): its unfunded holds are
   * budgeted. Default: the connection's address (or X-Forwarded-For's, per http.trust_proxy).
   */
  clientOf?: (request: FastifyRequest) => string;
}

/**
 * No new quote or settlement before every configured mint has been checked on the chain (the check fails
 * closed: an unreachable chain at start leaves it pending, never skipped). 503 with Retry-After.
 */
export function assertTradable(
  tradable: () => boolean,
  reply: { header(name: string, value: string): unknown },
) {
  if (tradable()) return;
  reply.header('retry-after', '5');
  throw new ApiError(
    'chain_unavailable',
    'The configured mints have not been checked on the chain yet (it has not answered since the service ' +
      'started): no quote or settlement starts until they are. Retry.',
  );
}

export function renderQuote(quote: AcceptedQuote): Static<typeof QuoteSchema> {
  const { pair } = quote;
  return {
    status: 'accepted',
    quote_id: quote.quoteId,
    quoted_output_amount_raw: quote.outputRaw,
    spread_bps: quote.spreadBps,
    ...(quote.spread ? { spread_breakdown: renderSpread(quote.spread) } : {}),
    expires_at: quote.expiresAt.toISOString(),
    htlc_terms: {
      settlement_model: SETTLEMENT_MODEL,
      escrow_mint: pair.input.mint,
      expires_at: quote.htlcExpiresAt.toISOString(),
      hashlock: null,
    },
    risk_checks: quote.riskChecks,
    integration_status: INTEGRATION_STATUS,
    pair: { input_asset: pair.input.symbol, output_asset: pair.output.symbol },
    input: amountView(quote.inputRaw, pair.input),
    output: amountView(quote.outputRaw, pair.output),
    next_action: {
      type: 'start_wallet_settlement',
      method: 'POST',
      path: `/v1/quotes/${quote.quoteId}/wallet-settlement`,
    },
    prices: renderQuotePrices({ input: pair.input.symbol, output: pair.output.symbol }, quote.prices),
  };
}

const renderLeg = (leg: OptionLegTerm) => ({
  asset: leg.symbol,
  volatility_annual: leg.volatilityAnnual === null ? null : Number(leg.volatilityAnnual.toFixed(4)),
  bps: leg.bps,
});

function renderSpread(spread: SpreadBreakdown): Static<typeof SpreadBreakdownSchema> {
  return {
    base_bps: spread.baseBps,
    confidence_bps: spread.confidenceBps,
    option_bps: spread.optionBps,
    size_and_skew_bps: spread.sizeAndSkewBps,
    ...(spread.sourcingBps === undefined ? {} : { sourcing_bps: spread.sourcingBps }),
    option:
      spread.option === null
        ? null
        : {
            window_seconds: spread.option.windowSeconds,
            input: renderLeg(spread.option.input),
            output: renderLeg(spread.option.output),
          },
  };
}

export function renderRejection(rejection: RejectedQuote): Static<typeof RiskRejectionSchema> {
  const { pair } = rejection;
  return {
    status: 'rejected',
    rejection_id: rejection.rejectionId,
    reasons: rejection.reasons,
    risk_checks: rejection.riskChecks,
    pair: { input_asset: pair.input.symbol, output_asset: pair.output.symbol },
    input: amountView(rejection.inputRaw, pair.input),
    integration_status: INTEGRATION_STATUS,
  };
}

export const rfqRoutes: FastifyPluginAsyncTypebox<RfqRoutesOptions> = async (app, opts) => {
  const ctx: RfqContext = {
    quotes: opts.quotes,
    metrics: opts.metrics,
    tradable: opts.tradable,
    writable: opts.writable ?? (() => true),
    clientOf: opts.clientOf ?? ((request: FastifyRequest) => request.ip),
  };
  app.post('/rfq', { schema: createRfqSchema }, createRfqHandler(ctx));
  app.get('/quotes/:quote_id', { schema: getQuoteSchema }, getQuoteHandler(ctx));
};

/** What the RFQ handlers read: the options, their defaults filled in. */
type RfqContext = Required<
  Pick<RfqRoutesOptions, 'quotes' | 'metrics' | 'tradable' | 'writable' | 'clientOf'>
>;

const createRfqSchema = {
  operationId: 'createRfq',
  tags: ['RFQ'],
  summary: 'Request a firm quote',
  description:
    'Answers 200 with accepted quote terms, or 200 with a risk rejection naming every failing check. ' +
    'An accepted quote reserves its output until it expires or is used, within the budget of unfunded ' +
    'holds (per client address and wallet: reservation_budget); its next_action starts wallet ' +
    'settlement. Its spread_breakdown shows the option term the taker’s redeem window costs.',
  security: PUBLIC_SECURITY,
  body: RfqRequestSchema,
  response: {
    200: RfqResponseSchema,
    ...errorResponses(
      'validation_failed',
      'payload_too_large',
      'unsupported_media_type',
      'chain_unavailable',
      'storage_full',
    ),
  },
};

const createRfqHandler = ({
  quotes,
  metrics,
  tradable,
  writable,
  clientOf,
}: RfqContext): TypeBoxHandler<typeof createRfqSchema> =>
  async function createRfq(request, reply) {
    const started = performance.now();
    const body = request.body;
    assertWallet(body.taker_wallet, 'body.taker_wallet');
    assertTradable(tradable, reply);
    assertWritable(writable);
    let outcome: AcceptedQuote | RejectedQuote;
    try {
      outcome = await quotes.requestQuote({
        inputAsset: body.input_asset,
        outputAsset: body.output_asset,
        amount: body.amount,
        takerWallet: body.taker_wallet,
        expirySeconds: body.expiry_seconds,
        client: clientOf(request),
      });
    } catch (error) {
      if (error instanceof RfqInputError) {
        throw new ApiError('validation_failed', undefined, [error.message]);
      }
      if (error instanceof InventoryUnknown) throw new ApiError('chain_unavailable', error.message);
      throw error;
    }
    metrics.rfqAnswered(outcome, (performance.now() - started) / 1000);
    if (outcome.status === 'rejected') {
      request.log.info(
        { rejection_id: outcome.rejectionId, reasons: outcome.reasons.map((r) => r.check) },
        'rfq rejected',
      );
      return renderRejection(outcome);
    }
    request.log.info({ quote_id: outcome.quoteId }, 'rfq accepted');
    return renderQuote(outcome);
  };

const getQuoteSchema = {
  operationId: 'getQuote',
  tags: ['RFQ'],
  summary: 'A quote and whether it is open, used or expired',
  description:
    'The accepted quote as it was answered, with its state: open (settlement can start), used (a trade ' +
    'settles it) or expired, and the two prices it was priced from (prices). 404 quote_not_found when ' +
    'no accepted quote has the id (a rejection_id is not one).',
  security: PUBLIC_SECURITY,
  params: QuoteParams,
  response: { 200: QuoteLookupSchema, ...errorResponses('quote_not_found') },
};

const getQuoteHandler = ({ quotes }: RfqContext): TypeBoxHandler<typeof getQuoteSchema> =>
  async function getQuote(request) {
    const found = await quotes.getQuote(request.params.quote_id);
    if (!found) throw new ApiError('quote_not_found');
    return { state: found.state, quote: renderQuote(found.quote) };
  };
