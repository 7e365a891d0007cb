// Circle Gateway API's JSON, as TypeBox schemas: the one definition the client (circle-api.ts) validates answers
// with and the dev Gateway (dev/server.ts) serves. Byte fields are 0x-hex (bytes32: 64 digits), amounts and
// heights decimal strings (u256 does not fit a JSON number).
//
// Sources: https://developers.circle.com/api-reference/gateway/all/create-transfer-attestation (POST /v1/transfer:
// an array of { burnIntent, signature }, answered { transferId, attestation, signature, fees, expirationBlock }),
// …/get-token-balances (POST /v1/balances: { token, sources: [{ domain, depositor }] } → { token, balances }),
// …/estimate-transfer (POST /v1/estimate), …/get-transfer-by-id (GET /v1/transfer/{id}); the stored OpenAPI
// document developers.circle.com/openapi/gateway.yaml; circlefin/skills use-gateway (the request bodies).

import Type, { type Static } from 'typebox';
import { type Hex, toBytes, toHex } from 'viem';
import type { BurnIntent, TransferSpec } from './formats/index.ts';

const Bytes32 = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' });
const HexBytes = Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', maxLength: 2 + 2 * 65_536 });
/** A u256 as a decimal string (no sign, no leading zeros but "0", at most 78 digits). */
const Uint = Type.String({ pattern: '^(0|[1-9][0-9]{0,77})$' });
const Domain = Type.Integer({ minimum: 0, maximum: 4_294_967_295 });

export const TransferSpecJson = Type.Object(
  {
    version: Type.Integer({ minimum: 0, maximum: 4_294_967_295 }),
    sourceDomain: Domain,
    destinationDomain: Domain,
    sourceContract: Bytes32,
    destinationContract: Bytes32,
    sourceToken: Bytes32,
    destinationToken: Bytes32,
    sourceDepositor: Bytes32,
    destinationRecipient: Bytes32,
    sourceSigner: Bytes32,
    destinationCaller: Bytes32,
    value: Uint,
    salt: Bytes32,
    hookData: HexBytes,
  },
  { additionalProperties: false },
);

export const BurnIntentJson = Type.Object(
  { maxBlockHeight: Uint, maxFee: Uint, spec: TransferSpecJson },
  { additionalProperties: false },
);

export const TransferRequestJson = Type.Array(
  Type.Object({ burnIntent: BurnIntentJson, signature: HexBytes }, { additionalProperties: false }),
  { minItems: 1, maxItems: 16 },
);

export const TransferResponseJson = Type.Object({
  transferId: Type.String({ minLength: 1, maxLength: 128 }),
  attestation: HexBytes,
  signature: HexBytes,
  fees: Type.Object({ total: Uint, token: Type.String() }),
  expirationBlock: Uint,
});

export const BalancesRequestJson = Type.Object(
  {
    token: Type.Literal('USDC'),
    sources: Type.Array(
      Type.Object(
        { domain: Domain, depositor: Type.String({ minLength: 1, maxLength: 66 }) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 32 },
    ),
  },
  { additionalProperties: false },
);

/** Circle answers balances in display units ("12.5" USDC); raw units are balance × 10^6. */
const DisplayAmount = Type.String({ pattern: '^(0|[1-9][0-9]{0,30})(\\.[0-9]{1,6})?$' });

export const BalancesResponseJson = Type.Object({
  token: Type.Literal('USDC'),
  balances: Type.Array(Type.Object({ domain: Domain, depositor: Type.String(), balance: DisplayAmount })),
});

/** The estimate takes the intents unsigned, maxFee and maxBlockHeight left for Gateway to fill. */
export const EstimateRequestJson = Type.Array(
  Type.Object({ spec: TransferSpecJson }, { additionalProperties: false }),
  { minItems: 1, maxItems: 16 },
);

export const EstimateResponseJson = Type.Object({
  body: Type.Array(Type.Object({ burnIntent: BurnIntentJson })),
  fees: Type.Object({
    total: Uint,
    token: Type.String(),
    perIntent: Type.Array(Type.Object({ transferSpecHash: Bytes32, fee: Uint })),
  }),
});

export const TransferStateJson = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 128 }),
  status: Type.Union([
    Type.Literal('attested'),
    Type.Literal('minted'),
    Type.Literal('burned'),
    Type.Literal('expired'),
  ]),
  burnTxHash: Type.Union([Type.Null(), Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' })]),
});

export const ErrorJson = Type.Object({ message: Type.String() });

export type TransferSpecWire = Static<typeof TransferSpecJson>;
export type BurnIntentWire = Static<typeof BurnIntentJson>;
export type TransferRequestWire = Static<typeof TransferRequestJson>;
export type TransferResponseWire = Static<typeof TransferResponseJson>;
export type BalancesRequestWire = Static<typeof BalancesRequestJson>;
export type BalancesResponseWire = Static<typeof BalancesResponseJson>;
export type EstimateRequestWire = Static<typeof EstimateRequestJson>;
export type EstimateResponseWire = Static<typeof EstimateResponseJson>;
export type TransferStateWire = Static<typeof TransferStateJson>;

const hex = (b: Uint8Array): Hex => toHex(b);

export const specToWire = (s: TransferSpec): TransferSpecWire => ({
  version: s.version,
  sourceDomain: s.sourceDomain,
  destinationDomain: s.destinationDomain,
  sourceContract: hex(s.sourceContract),
  destinationContract: hex(s.destinationContract),
  sourceToken: hex(s.sourceToken),
  destinationToken: hex(s.destinationToken),
  sourceDepositor: hex(s.sourceDepositor),
  destinationRecipient: hex(s.destinationRecipient),
  sourceSigner: hex(s.sourceSigner),
  destinationCaller: hex(s.destinationCaller),
  value: s.value.toString(),
  salt: hex(s.salt),
  hookData: hex(s.hookData),
});

export const specFromWire = (s: TransferSpecWire): TransferSpec => ({
  version: s.version,
  sourceDomain: s.sourceDomain,
  destinationDomain: s.destinationDomain,
  sourceContract: toBytes(s.sourceContract as Hex),
  destinationContract: toBytes(s.destinationContract as Hex),
  sourceToken: toBytes(s.sourceToken as Hex),
  destinationToken: toBytes(s.destinationToken as Hex),
  sourceDepositor: toBytes(s.sourceDepositor as Hex),
  destinationRecipient: toBytes(s.destinationRecipient as Hex),
  sourceSigner: toBytes(s.sourceSigner as Hex),
  destinationCaller: toBytes(s.destinationCaller as Hex),
  value: BigInt(s.value),
  salt: toBytes(s.salt as Hex),
  hookData: toBytes(s.hookData as Hex),
});

export const intentToWire = (i: BurnIntent): BurnIntentWire => ({
  maxBlockHeight: i.maxBlockHeight.toString(),
  maxFee: i.maxFee.toString(),
  spec: specToWire(i.spec),
});

export const intentFromWire = (i: BurnIntentWire): BurnIntent => ({
  maxBlockHeight: BigInt(i.maxBlockHeight),
  maxFee: BigInt(i.maxFee),
  spec: specFromWire(i.spec),
});

/** USDC's 6 decimals: raw units as Circle's display string and back, exactly. */
export const USDC_DECIMALS = 6;
export function displayUsdc(raw: bigint): string {
  const unit = 10n ** BigInt(USDC_DECIMALS);
  const whole = raw / unit;
  const frac = (raw % unit).toString().padStart(USDC_DECIMALS, '0').replace(/0+$/, '');
  return frac === '' ? whole.toString() : `${whole}.${frac}`;
}
export function rawUsdc(display: string): bigint {
  const [whole = '0', frac = ''] = display.split('.');
  return BigInt(whole) * 10n ** BigInt(USDC_DECIMALS) + BigInt(frac.padEnd(USDC_DECIMALS, '0') || '0');
}
