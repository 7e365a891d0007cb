// Schemas shared by several routes: identifiers, amounts and next_action. Route-specific schemas live
// beside their routes.
import Type, { type Static } from 'typebox';
import {
  type Hash32,
  NEXT_ACTION_TYPES,
  type Preimage,
  parseHash32,
  parsePreimage,
} from '../vocabulary/index.ts';
import { ApiError } from './errors.ts';

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });
export const WalletAddress = Type.String({
  pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
  description: 'base58 Solana address (32 bytes)',
});
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
export const DateTime = Type.String({ format: 'date-time', description: 'RFC 3339, UTC' });
export const DecimalAmount = Type.String({
  pattern: '^[0-9]+(\\.[0-9]+)?$',
  maxLength: 40,
  description: 'decimal in display units, sent as a string',
});
/** An int64 serialized as an exact JSON integer (also above 2^53); a bigint on the server side. */
export const Int64 = Type.Unsafe<bigint>(
  Type.Integer({ minimum: 0, format: 'int64', description: 'int64, exact' }),
);
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

export const NextActionSchema = Type.Object(
  {
    type: Type.Enum(NEXT_ACTION_TYPES),
    method: Type.Enum(['GET', 'POST']),
    path: Type.String(),
  },
  { title: 'NextAction' },
);
export type NextAction = Static<typeof NextActionSchema>;

export const AssetSchema = Type.Object(
  {
    id: Type.String({ description: 'the mint address' }),
    symbol: Type.String(),
    name: Type.String(),
    decimals: Type.Integer({ minimum: 0, maximum: 18 }),
  },
  { title: 'Asset' },
);
