// Schemas of the Trades group: the interface's TradeResponse, with our extensions documented as such
// (docs/interface.md#extensions), the trade commands' bodies, and the pages of trades and of events the
// runtime group shows too.
import Type from 'typebox';
import {
  INTEGRATION_STATUS,
  SETTLEMENT_STATUSES,
  SUBSTATES,
  TRADE_SIGNATURE_KINDS,
} from '../../vocabulary/index.ts';
import {
  AmountViewSchema,
  DateTime,
  ext,
  Int64,
  NextActionSchema,
  Nullable,
  PageCursor,
  PreimageHex,
  SecretHash,
  SeqCursor,
  UnsignedTransactionSchema,
  Uuid,
  WalletAddress,
} from '../schemas.ts';
import { QuotePricesSchema } from './prices.schema.ts';

export const TokenAmountSchema = Type.Object(
  { asset: Type.String(), amount_raw: Int64 },
  { title: 'TokenAmount' },
);

export const LedgerSummarySchema = Type.Object(
  {
    balanced: Type.Boolean(),
    entry_count: Type.Integer({ minimum: 0 }),
    net_usdc_estimate: Type.String({ description: 'the maker’s result in USDC at the quote’s prices' }),
  },
  { title: 'LedgerSummary' },
);

/** TradeResponse.substate and every trade event's: an enum of the contract (docs/interface.md#substates). */
export const SubstateSchema = Type.Enum(SUBSTATES, {
  description:
    'Extension: where the trade is within its settlement_status, `<settlement_status>.<state>`. ' +
    'Values are added or removed only with an entry in CHANGELOG.md',
});

export const TradeResponseSchema = Type.Object(
  {
    trade_id: Uuid,
    quote_id: Uuid,
    run_id: Type.String({ format: 'uuid', description: 'the runtime invocation that created the trade' }),
    current_run: Type.Boolean({ description: 'owned by the running process: created or adopted by it' }),
    taker_wallet: Type.Optional(Nullable(WalletAddress)),
    expires_at: Type.Optional(Nullable(DateTime)),
    created_at: DateTime,
    settlement_status: Type.Enum(SETTLEMENT_STATUSES),
    tx_signatures: Type.Array(Type.String(), { description: 'in chain order' }),
    tx_signature_kinds: Type.Array(
      Type.Object(
        { kind: Type.Enum(TRADE_SIGNATURE_KINDS), signature: Type.String() },
        { title: 'TradeSignature' },
      ),
    ),
    amounts: Type.Object(
      { input: Nullable(TokenAmountSchema), output: Nullable(TokenAmountSchema) },
      { title: 'TradeAmounts' },
    ),
    input: Type.Optional(Nullable(AmountViewSchema)),
    output: Type.Optional(Nullable(AmountViewSchema)),
    ledger_summary: LedgerSummarySchema,
    quote_prices: QuotePricesSchema,
    integration_status: Type.Literal(INTEGRATION_STATUS),
    substate: SubstateSchema,
    failure_reason: Nullable(Type.String(ext('why a trade failed or was refunded'))),
    lock_deadline: Type.String({ format: 'date-time', ...ext('the end of the lock window') }),
    maker_expires_at: Nullable(
      Type.String({ format: 'date-time', ...ext('the maker HTLC expiry, once it locked') }),
    ),
    redeem_by: Nullable(
      Type.String({
        format: 'date-time',
        ...ext('the last moment a taker redeem is accepted: maker expiry − landing margin'),
      }),
    ),
    taker_escrow: Type.String(ext('the taker escrow PDA')),
    maker_escrow: Type.String(ext('the maker escrow PDA')),
    program_id: Type.String(ext('the HTLC program')),
    hashlock: Nullable(Type.String(ext('the secret hash, shown only once the taker lock is on chain'))),
    next_action: Type.Optional(NextActionSchema),
  },
  { title: 'TradeResponse' },
);

export const TradeIdParams = Type.Object({ trade_id: Uuid });

export const TradeStreamQuery = Type.Object({
  after: Type.Optional(
    SeqCursor(
      'replay this trade’s events after this seq first (0: all); Last-Event-ID wins on reconnects; ' +
        'default: new events only',
    ),
  ),
});

export const LockRequestSchema = Type.Union(
  [
    Type.Object(
      {
        transaction_base64: Type.String({
          minLength: 1,
          maxLength: 4096,
          description: 'the wallet-signed lock',
        }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        signature: Type.String({
          pattern: '^[1-9A-HJ-NP-Za-km-z]{64,88}$',
          description: 'the lock’s signature, when the wallet sent it itself',
        }),
      },
      { additionalProperties: false },
    ),
  ],
  { title: 'LockRequest' },
);

export const AbandonRequestSchema = Type.Object({ secret_hash: SecretHash }, { additionalProperties: false });
export const RedeemRequestSchema = Type.Object({ preimage: PreimageHex }, { additionalProperties: false });
export const WalletModeQuery = Type.Object({
  mode: Type.Optional(
    Type.Literal('wallet', { description: 'answer an unsigned transaction for the wallet instead' }),
  ),
});

export const WalletTransactionResponseSchema = Type.Object(
  { trade: TradeResponseSchema, transaction: UnsignedTransactionSchema },
  {
    title: 'WalletTransaction',
    description: 'An unsigned transaction for the taker’s wallet to sign and send.',
  },
);

/** The query parameters of every page of trades: a status filter, the page's size, where it starts. */
export const TradePageQuery = {
  status: Type.Optional(Type.Enum(SETTLEMENT_STATUSES)),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(PageCursor),
};

export const TradeListQuery = Type.Object({ taker_wallet: Type.Optional(WalletAddress), ...TradePageQuery });

export const TradePageSchema = Type.Object(
  { trades: Type.Array(TradeResponseSchema), next_cursor: Nullable(Type.String()) },
  { title: 'TradePage' },
);

export const TradeEventSchema = Type.Object(
  {
    seq: Type.Integer({ minimum: 1 }),
    trade_id: Uuid,
    run_id: Uuid,
    at: DateTime,
    type: Type.String(),
    settlement_status: Type.Enum(SETTLEMENT_STATUSES),
    substate: SubstateSchema,
    payload: Type.Record(Type.String(), Type.Unknown()),
  },
  { title: 'TradeEvent' },
);

export const TradeEventsSchema = Type.Object({ events: Type.Array(TradeEventSchema) });
