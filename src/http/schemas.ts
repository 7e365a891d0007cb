// Schemas shared by several route groups, each defined once: identifiers, wallets, the swap's secrets,
// amounts, unsigned transactions and next_action, with the checks a schema cannot make (a wallet's bytes, a
// secret's parse). A schema of one group lives beside it, in routes/<group>.schema.ts.
import Type, { type Static } from 'typebox';
import { decodeBase58, type UnsignedTransaction } from '../chain/index.ts';
import {
  type Hash32,
  NEXT_ACTION_TYPES,
  type Preimage,
  parseHash32,
  parsePreimage,
} from '../vocabulary/index.ts';
import { ApiError } from './errors.ts';

/** A field this service adds to the interface, described as such in the document (docs/interface.md#extensions). */
export const ext = (description: string) => ({ description: `Extension: ${description}` });

/** The schema, or null. */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });
export const DateTime = Type.String({ format: 'date-time', description: 'RFC 3339, UTC' });

// ── Wallets ─────────────────────────────────────────────────────────────────────────────────────

export const WalletAddress = Type.String({
  pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
  description: 'base58 Solana address (32 bytes)',
});

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

// ── The swap's secrets ──────────────────────────────────────────────────────────────────────────

const HEX_32_BYTES = '^[0-9a-fA-F]{64}$';
export const SecretHash = Type.String({
  pattern: HEX_32_BYTES,
  description: 'hex SHA-256 commitment, either case',
});
export const PreimageHex = Type.String({ pattern: HEX_32_BYTES, description: '32 bytes, hex, either case' });

/**
 * The boundary of the swap's two secrets: a field its schema held to 64 hex characters becomes the
 * Hash32 or Preimage everything past the route takes (lower case from here on). Refuses as the schema
 * would, should a route ever lack it.
 */
export function hash32Field(text: string, field: string): Hash32 {
  const hash = parseHash32(text);
  if (hash === undefined)
    throw new ApiError('validation_failed', undefined, [`${field}: must be 64 hex characters`]);
  return hash;
}

export function preimageField(text: string, field: string): Preimage {
  const preimage = parsePreimage(text);
  if (preimage === undefined)
    throw new ApiError('validation_failed', undefined, [`${field}: must be 64 hex characters`]);
  return preimage;
}

// ── Amounts ─────────────────────────────────────────────────────────────────────────────────────

export const DecimalAmount = Type.String({
  pattern: '^[0-9]+(\\.[0-9]+)?$',
  maxLength: 40,
  description: 'decimal in display units, sent as a string',
});
/** An int64 serialized as an exact JSON integer (also above 2^53); a bigint on the server side. */
export const Int64 = Type.Unsafe<bigint>(
  Type.Integer({ minimum: 0, format: 'int64', description: 'int64, exact' }),
);
/** An amount in smallest units as a string of digits, so that it survives every JSON parser. */
export const RawAmountString = Type.String({
  pattern: '^[0-9]+$',
  description: 'integer count of smallest units',
});

export const AmountViewSchema = Type.Object(
  {
    asset: Type.String({ description: 'asset symbol' }),
    amount: Type.String({
      description: 'decimal in display units, with as many fraction digits as decimals',
    }),
    amount_raw: RawAmountString,
    decimals: Type.Integer({ minimum: 0, maximum: 18 }),
    mint: Type.Optional(Type.String({ description: 'mint address' })),
  },
  { title: 'AmountView' },
);
export type AmountView = Static<typeof AmountViewSchema>;

// ── Transactions for the taker's wallet ─────────────────────────────────────────────────────────

export const UnsignedTransactionSchema = Type.Object(
  {
    transaction_base64: Type.String({ description: 'unsigned legacy transaction, base64' }),
    recent_blockhash: Type.String(),
    last_valid_block_height: Type.Integer({ minimum: 0, ...ext('the blockhash’s last valid block height') }),
  },
  { title: 'UnsignedTransaction' },
);

export const unsignedTransaction = (tx: UnsignedTransaction): Static<typeof UnsignedTransactionSchema> => ({
  transaction_base64: tx.transactionBase64,
  recent_blockhash: tx.recentBlockhash,
  last_valid_block_height: tx.lastValidBlockHeight,
});

// ── What the client does next ───────────────────────────────────────────────────────────────────

export const NextActionSchema = Type.Object(
  {
    type: Type.Enum(NEXT_ACTION_TYPES),
    method: Type.Enum(['GET', 'POST']),
    path: Type.String(),
  },
  { title: 'NextAction' },
);
export type NextAction = Static<typeof NextActionSchema>;

// ── Cursors and sequence numbers ────────────────────────────────────────────────────────────────

/**
 * The largest event seq a client may name: exact as a JavaScript number, and within PostgreSQL's bigint
 * (an unbounded integer, 1e300 say, would pass `type: integer` and fail in the database).
 */
export const MAX_SEQ = Number.MAX_SAFE_INTEGER;

/** An event log position a client names (?after=). */
export const SeqCursor = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_SEQ, description });

/** A page cursor this service issued: base64url, so anything else is refused by the schema. */
export const PageCursor = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,200}$',
  maxLength: 200,
  description: 'next_cursor of the previous page (opaque)',
});

/** The Last-Event-ID header EventSource sends on a reconnect: the seq of the last message it received. */
export const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    // At most 15 digits: below MAX_SEQ, so Number() of it is exact.
    Type.String({ pattern: '^[0-9]{1,15}$', description: 'the last seq received; sent by EventSource' }),
  ),
});

/** A Server-Sent Events answer, for the OpenAPI document. */
export const eventStreamResponse = (description: string) => ({
  description,
  content: { 'text/event-stream': { schema: Type.String() } },
});
