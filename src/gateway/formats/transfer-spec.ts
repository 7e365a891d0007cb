// TransferSpec: what a burn intent moves, from which depositor on which domain to which recipient on which
// domain. Its keccak256 is the transfer's identity: the attestation carries it and the minter refuses a
// second mint of it.
//
// Layout (big-endian): Circle Gateway technical guide, "Transfer specification"
//   https://developers.circle.com/gateway/references/technical-guide#transfer-specification
// and circlefin/solana-gateway-contracts tests/burn_intent.ts (TS_*_OFFSET, TRANSFER_SPEC_MAGIC).

import { keccak256 } from 'viem';
import { FieldReader, FieldWriter } from './codec.ts';
import { formatFail } from './errors.ts';

/** bytes4(keccak256("circle.gateway.TransferSpec")). */
export const TRANSFER_SPEC_MAGIC = 0xca85def7;

/** Byte offsets of each field from the start of an encoded TransferSpec. */
export const TRANSFER_SPEC_OFFSETS = {
  magic: 0,
  version: 4,
  sourceDomain: 8,
  destinationDomain: 12,
  sourceContract: 16,
  destinationContract: 48,
  sourceToken: 80,
  destinationToken: 112,
  sourceDepositor: 144,
  destinationRecipient: 176,
  sourceSigner: 208,
  destinationCaller: 240,
  value: 272,
  salt: 304,
  hookDataLength: 336,
  hookData: 340,
} as const;

/** The fixed part: a TransferSpec with no hook data is this long. */
export const TRANSFER_SPEC_FIXED_LENGTH = TRANSFER_SPEC_OFFSETS.hookData;

/** The bytes32 address fields, in layout order (eip712.ts checks the same ones, and the salt). */
export const ADDRESS_FIELDS = [
  'sourceContract',
  'destinationContract',
  'sourceToken',
  'destinationToken',
  'sourceDepositor',
  'destinationRecipient',
  'sourceSigner',
  'destinationCaller',
] as const;

/**
 * Addresses are bytes32: a Solana key's 32 bytes, an EVM address left-padded with 12 zero bytes. An
 * all-zero destinationCaller means anyone may submit the mint.
 */
export interface TransferSpec {
  version: number;
  sourceDomain: number;
  destinationDomain: number;
  sourceContract: Uint8Array;
  destinationContract: Uint8Array;
  sourceToken: Uint8Array;
  destinationToken: Uint8Array;
  sourceDepositor: Uint8Array;
  destinationRecipient: Uint8Array;
  sourceSigner: Uint8Array;
  destinationCaller: Uint8Array;
  /** Raw token units, u256. */
  value: bigint;
  salt: Uint8Array;
  hookData: Uint8Array;
}

export function encodeTransferSpec(spec: TransferSpec): Uint8Array {
  const o = TRANSFER_SPEC_OFFSETS;
  const w = new FieldWriter(TRANSFER_SPEC_FIXED_LENGTH + spec.hookData.length);
  w.u32(o.magic, TRANSFER_SPEC_MAGIC, 'magic');
  w.u32(o.version, spec.version, 'version');
  w.u32(o.sourceDomain, spec.sourceDomain, 'sourceDomain');
  w.u32(o.destinationDomain, spec.destinationDomain, 'destinationDomain');
  for (const field of ADDRESS_FIELDS) w.bytes32(o[field], spec[field], field);
  w.u256(o.value, spec.value, 'value');
  w.bytes32(o.salt, spec.salt, 'salt');
  w.u32(o.hookDataLength, spec.hookData.length, 'hookDataLength');
  w.raw(o.hookData, spec.hookData);
  return w.bytes;
}

/** The TransferSpec in `bytes`, all of them: a wrong magic, a short buffer or a hook length that does not
 * account for exactly the remaining bytes is a GatewayFormatError. */
export function decodeTransferSpec(bytes: Uint8Array): TransferSpec {
  const o = TRANSFER_SPEC_OFFSETS;
  if (bytes.length < TRANSFER_SPEC_FIXED_LENGTH) {
    formatFail(
      'wrong_length',
      `a TransferSpec is at least ${TRANSFER_SPEC_FIXED_LENGTH} bytes, not ${bytes.length}`,
    );
  }
  const r = new FieldReader(bytes);
  const magic = r.u32(o.magic);
  if (magic !== TRANSFER_SPEC_MAGIC) {
    formatFail('wrong_magic', `TransferSpec magic 0x${magic.toString(16).padStart(8, '0')}`);
  }
  const hookLength = r.u32(o.hookDataLength);
  if (hookLength !== bytes.length - TRANSFER_SPEC_FIXED_LENGTH) {
    formatFail(
      'hook_length',
      `TransferSpec hook data length ${hookLength}, ${bytes.length - TRANSFER_SPEC_FIXED_LENGTH} bytes follow`,
    );
  }
  return {
    version: r.u32(o.version),
    sourceDomain: r.u32(o.sourceDomain),
    destinationDomain: r.u32(o.destinationDomain),
    sourceContract: r.bytes32(o.sourceContract),
    destinationContract: r.bytes32(o.destinationContract),
    sourceToken: r.bytes32(o.sourceToken),
    destinationToken: r.bytes32(o.destinationToken),
    sourceDepositor: r.bytes32(o.sourceDepositor),
    destinationRecipient: r.bytes32(o.destinationRecipient),
    sourceSigner: r.bytes32(o.sourceSigner),
    destinationCaller: r.bytes32(o.destinationCaller),
    value: r.u256(o.value),
    salt: r.bytes32(o.salt),
    hookData: r.slice(o.hookData, hookLength),
  };
}

/** keccak256 of the encoded TransferSpec: the transferSpecHash the attestation carries and the minter's
 * used-hash account is seeded by. */
export function transferSpecHash(spec: TransferSpec): Uint8Array {
  return keccak256(encodeTransferSpec(spec), 'bytes');
}
