// Baseline server for the RFQ row, run as its own pinned process: a bare Fastify POST that validates a
// body of the RFQ's shape and serializes a ~1 KB answer of the quote's shape from its schema.
import Fastify from 'fastify';
import Type from 'typebox';

const Str = Type.String();
const Amount = Type.Object({ asset: Str, amount: Str, amount_raw: Str, decimals: Type.Integer() });
const body = Type.Object(
  {
    input_asset: Type.String({ minLength: 1, maxLength: 64 }),
    output_asset: Type.String({ minLength: 1, maxLength: 64 }),
    amount: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', maxLength: 64 }),
    taker_wallet: Type.String({ pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' }),
    expiry_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 300 })),
  },
  { additionalProperties: false },
);
const answerSchema = Type.Object({
  status: Str,
  quote_id: Str,
  quoted_output_amount_raw: Str,
  spread_bps: Type.Integer(),
  expires_at: Str,
  htlc_terms: Type.Object({
    settlement_model: Str,
    escrow_mint: Str,
    expires_at: Str,
    hashlock: Type.Null(),
  }),
  risk_checks: Type.Array(Str),
  integration_status: Str,
  pair: Type.Object({ input_asset: Str, output_asset: Str }),
  input: Amount,
  output: Amount,
  next_action: Type.Object({ type: Str, method: Str, path: Str }),
  note: Str,
});
const at = new Date().toISOString();
const answer = {
  status: 'accepted',
  quote_id: '6c1f9a52-5c1e-4a8e-9d55-0f8f2b7d4a11',
  quoted_output_amount_raw: '9361882',
  spread_bps: 9,
  expires_at: at,
  htlc_terms: {
    settlement_model: 'solana_htlc',
    escrow_mint: 'So11111111111111111111111111111111111111112',
    expires_at: at,
    hashlock: null,
  },
  risk_checks: [
    'pair_enabled',
    'price_freshness',
    'min_notional',
    'max_notional',
    'inventory',
    'wallet_limits',
  ],
  integration_status: 'runtime_orchestrated',
  pair: {
    input_asset: 'So11111111111111111111111111111111111111112',
    output_asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  },
  input: { asset: 'SOL', amount: '0.05', amount_raw: '50000000', decimals: 9 },
  output: { asset: 'USDC', amount: '9.361882', amount_raw: '9361882', decimals: 6 },
  next_action: {
    type: 'start_wallet_settlement',
    method: 'POST',
    path: '/v1/quotes/6c1f9a52-5c1e-4a8e-9d55-0f8f2b7d4a11/wallet-settlement',
  },
  // Brings the answer to the size of an accepted quote.
  note: 'x'.repeat(Number(process.env.BARE_PADDING ?? 20)),
};

const app = Fastify({ logger: false });
app.post('/baseline', { schema: { body, response: { 200: answerSchema } } }, async () => answer);
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening ${url}\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
