// RFQ group: POST /v1/rfq (a firm quote or a risk rejection, both 200) and GET /v1/quotes/{quote_id}.
import Type, { type Static } from 'typebox';
import { decodeBase58 } from '../../chain/index.ts';
import { amountView } from '../../money/index.ts';
import { type AcceptedQuote, type RejectedQuote, RfqInputError } from '../../quotes/index.ts';
import { INTEGRATION_STATUS, RISK_CHECKS, SETTLEMENT_MODEL } from '../../vocabulary/index.ts';
import type { TypeBoxApp } from '../app.ts';
import { ApiError, errorResponses } from '../errors.ts';
import {
  AmountViewSchema,
  DateTime,
  DecimalAmount,
  Int64,
  NextActionSchema,
  Uuid,
  WalletAddress,
} from '../schemas.ts';
import type { HttpDeps } from './index.ts';
import { PUBLIC_SECURITY } from './operator.ts';

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
      Type.Integer({ minimum: 1, maximum: 300, description: 'default 30; at most the configured maximum' }),
    ),
  },
  { additionalProperties: false, title: 'RfqRequest' },
);

const RiskCheckName = Type.Enum(RISK_CHECKS);
const PairRefSchema = Type.Object({ input_asset: Type.String(), output_asset: Type.String() });

export const QuoteSchema = Type.Object(
  {
    status: Type.Literal('accepted'),
    quote_id: Uuid,
    quoted_output_amount_raw: Int64,
    spread_bps: Type.Integer({ minimum: 0, maximum: 10000 }),
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

const QuoteLookupSchema = Type.Object(
  {
    state: Type.Union([Type.Literal('open'), Type.Literal('used'), Type.Literal('expired')]),
    quote: QuoteSchema,
  },
  { title: 'QuoteLookup' },
);

export function renderQuote(quote: AcceptedQuote): Static<typeof QuoteSchema> {
  const { pair } = quote;
  return {
    status: 'accepted',
    quote_id: quote.quoteId,
    quoted_output_amount_raw: quote.outputRaw,
    spread_bps: quote.spreadBps,
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

/** A base58 string of the right alphabet and length can still decode to other than 32 bytes. */
export function assertWallet(address: string, field: string): void {
  let bytes: Uint8Array | undefined;
  try {
    bytes = decodeBase58(address);
  } catch {
    bytes = undefined;
  }
  if (bytes?.length !== 32) {
    throw new ApiError('validation_failed', undefined, [`${field}: must be a base58 32-byte address`]);
  }
}

export async function rfqRoutes(app: TypeBoxApp, deps: HttpDeps): Promise<void> {
  app.post(
    '/v1/rfq',
    {
      schema: {
        operationId: 'createRfq',
        tags: ['RFQ'],
        summary: 'Request a firm quote',
        description:
          'Answers 200 with accepted quote terms, or 200 with a risk rejection naming every failing check. ' +
          'An accepted quote reserves its output until it expires or is used; its next_action starts wallet ' +
          'settlement.',
        security: PUBLIC_SECURITY,
        body: RfqRequestSchema,
        response: {
          200: Type.Union([QuoteSchema, RiskRejectionSchema]),
          ...errorResponses('validation_failed', 'payload_too_large', 'unsupported_media_type'),
        },
      },
    },
    async (request) => {
      const started = performance.now();
      const body = request.body;
      assertWallet(body.taker_wallet, 'body.taker_wallet');
      let outcome: AcceptedQuote | RejectedQuote;
      try {
        outcome = await deps.quotes.requestQuote({
          inputAsset: body.input_asset,
          outputAsset: body.output_asset,
          amount: body.amount,
          takerWallet: body.taker_wallet,
          expirySeconds: body.expiry_seconds,
        });
      } catch (error) {
        if (error instanceof RfqInputError) {
          throw new ApiError('validation_failed', undefined, [error.message]);
        }
        throw error;
      }
      deps.metrics.rfqAnswered(outcome, (performance.now() - started) / 1000);
      if (outcome.status === 'rejected') {
        request.log.info(
          { rejection_id: outcome.rejectionId, reasons: outcome.reasons.map((r) => r.check) },
          'rfq rejected',
        );
        return renderRejection(outcome);
      }
      request.log.info({ quote_id: outcome.quoteId }, 'rfq accepted');
      return renderQuote(outcome);
    },
  );

  app.get(
    '/v1/quotes/:quote_id',
    {
      schema: {
        operationId: 'getQuote',
        tags: ['RFQ'],
        summary: 'A quote and whether it is open, used or expired',
        description:
          'The accepted quote as it was answered, with its state: open (settlement can start), used (a trade ' +
          'settles it) or expired. 404 quote_not_found when no accepted quote has the id (a rejection_id is ' +
          'not one).',
        security: PUBLIC_SECURITY,
        params: Type.Object({ quote_id: Uuid }),
        response: { 200: QuoteLookupSchema, ...errorResponses('quote_not_found') },
      },
    },
    async (request) => {
      const found = deps.quotes.getQuote(request.params.quote_id);
      if (!found) throw new ApiError('quote_not_found');
      return { state: found.state, quote: renderQuote(found.quote) };
    },
  );
}
