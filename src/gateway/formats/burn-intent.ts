// BurnIntent: the depositor's signed permission for Gateway to burn `value` (plus at most `maxFee`) of its
// balance on the source domain, valid up to `maxBlockHeight` (a slot on Solana). BurnIntentSet: several
// intents signed at once (EVM sources only: Gateway refuses sets from Solana).
// A Solana source signs the encoded BurnIntent with Ed25519, prefixed by 0xff and 15 zero bytes.
//
// Layout (big-endian): Circle Gateway technical guide, "Burn intent"
//   https://developers.circle.com/gateway/references/technical-guide#burn-intent
// circlefin/solana-gateway-contracts tests/burn_intent.ts (BI_*_OFFSET, BURN_INTENT_MAGIC,
// BURN_INTENT_SET_MAGIC) and tests/burn_data.ts (BURN_INTENT_MESSAGE_PREFIX); the Solana signing payload:
// circlefin/skills plugins/circle/skills/use-gateway/references/solana-to-solana.md (signSolanaBurnIntent),
//   https://developers.circle.com/gateway/references/solana

import { createPublicKey, verify } from 'node:crypto';
import { concatBytes, FieldReader, FieldWriter } from './codec.ts';
import { formatFail } from './errors.ts';
import {
  decodeTransferSpec,
  encodeTransferSpec,
  TRANSFER_SPEC_FIXED_LENGTH,
  type TransferSpec,
} from './transfer-spec.ts';

/** bytes4(keccak256("circle.gateway.BurnIntent")). */
export const BURN_INTENT_MAGIC = 0x070afbc2;
/** bytes4(keccak256("circle.gateway.BurnIntentSet")). */
export const BURN_INTENT_SET_MAGIC = 0xe999239b;

export const BURN_INTENT_OFFSETS = {
  magic: 0,
  maxBlockHeight: 4,
  maxFee: 36,
  transferSpecLength: 68,
  transferSpec: 72,
} as const;

export const BURN_INTENT_SET_OFFSETS = { magic: 0, numIntents: 4, intents: 8 } as const;

/** What a Solana signer signs before the encoded BurnIntent: 0xff then 15 zero bytes. */
export const SOLANA_BURN_INTENT_PREFIX: Uint8Array = Uint8Array.from([
  0xff,
  ...new Array<number>(15).fill(0),
]);

export interface BurnIntent {
  /** The last block (slot, on Solana) at which the source burn may happen; u256. */
  maxBlockHeight: bigint;
  /** The most the depositor pays Gateway for this transfer, raw units; u256. */
  maxFee: bigint;
  spec: TransferSpec;
}

export function encodeBurnIntent(intent: BurnIntent): Uint8Array {
  const o = BURN_INTENT_OFFSETS;
  const spec = encodeTransferSpec(intent.spec);
  const w = new FieldWriter(o.transferSpec + spec.length);
  w.u32(o.magic, BURN_INTENT_MAGIC, 'magic');
  w.u256(o.maxBlockHeight, intent.maxBlockHeight, 'maxBlockHeight');
  w.u256(o.maxFee, intent.maxFee, 'maxFee');
  w.u32(o.transferSpecLength, spec.length, 'transferSpecLength');
  w.raw(o.transferSpec, spec);
  return w.bytes;
}

export function decodeBurnIntent(bytes: Uint8Array): BurnIntent {
  const o = BURN_INTENT_OFFSETS;
  if (bytes.length < o.transferSpec + TRANSFER_SPEC_FIXED_LENGTH) {
    formatFail(
      'wrong_length',
      `a BurnIntent is at least ${o.transferSpec + TRANSFER_SPEC_FIXED_LENGTH} bytes`,
    );
  }
  const r = new FieldReader(bytes);
  const magic = r.u32(o.magic);
  if (magic !== BURN_INTENT_MAGIC) {
    formatFail('wrong_magic', `BurnIntent magic 0x${magic.toString(16).padStart(8, '0')}`);
  }
  const specLength = r.u32(o.transferSpecLength);
  if (specLength !== bytes.length - o.transferSpec) {
    formatFail(
      'wrong_length',
      `BurnIntent transferSpecLength ${specLength}, ${bytes.length - o.transferSpec} bytes follow`,
    );
  }
  return {
    maxBlockHeight: r.u256(o.maxBlockHeight),
    maxFee: r.u256(o.maxFee),
    spec: decodeTransferSpec(bytes.subarray(o.transferSpec)),
  };
}

export function encodeBurnIntentSet(intents: readonly BurnIntent[]): Uint8Array {
  const o = BURN_INTENT_SET_OFFSETS;
  if (intents.length === 0) formatFail('empty_set', 'a BurnIntentSet holds at least one intent');
  const header = new FieldWriter(o.intents);
  header.u32(o.magic, BURN_INTENT_SET_MAGIC, 'magic');
  header.u32(o.numIntents, intents.length, 'numIntents');
  return concatBytes([header.bytes, ...intents.map(encodeBurnIntent)]);
}

/** The intents of a set, each one's length read from its own transferSpecLength; no byte may be left over. */
export function decodeBurnIntentSet(bytes: Uint8Array): BurnIntent[] {
  const o = BURN_INTENT_SET_OFFSETS;
  if (bytes.length < o.intents) formatFail('wrong_length', 'a BurnIntentSet is at least 8 bytes');
  const r = new FieldReader(bytes);
  const magic = r.u32(o.magic);
  if (magic !== BURN_INTENT_SET_MAGIC) {
    formatFail('wrong_magic', `BurnIntentSet magic 0x${magic.toString(16).padStart(8, '0')}`);
  }
  const count = r.u32(o.numIntents);
  if (count === 0) formatFail('empty_set', 'the BurnIntentSet holds no intent');
  const intents: BurnIntent[] = [];
  let at: number = o.intents;
  for (let i = 0; i < count; i++) {
    const fixedEnd = at + BURN_INTENT_OFFSETS.transferSpec;
    if (fixedEnd > bytes.length) formatFail('wrong_length', `the set ends inside intent ${i}`);
    const end = fixedEnd + r.u32(at + BURN_INTENT_OFFSETS.transferSpecLength);
    if (end > bytes.length) formatFail('wrong_length', `the set ends inside intent ${i}`);
    intents.push(decodeBurnIntent(bytes.subarray(at, end)));
    at = end;
  }
  if (at !== bytes.length) formatFail('wrong_length', `${bytes.length - at} bytes follow the last intent`);
  return intents;
}

/** The bytes a Solana depositor (the spec's sourceSigner) signs with Ed25519 for Gateway. */
export function solanaBurnIntentPayload(intent: BurnIntent): Uint8Array {
  return concatBytes([SOLANA_BURN_INTENT_PREFIX, encodeBurnIntent(intent)]);
}

// RFC 8410 SubjectPublicKeyInfo prefix of a raw 32-byte ed25519 public key.
const SPKI_ED25519_PREFIX = Uint8Array.from([
  0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
]);

/** Whether `signature` is the spec's sourceSigner's Ed25519 signature of the intent's Solana payload. */
export function verifySolanaBurnIntent(intent: BurnIntent, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  try {
    const key = createPublicKey({
      key: Buffer.from(concatBytes([SPKI_ED25519_PREFIX, intent.spec.sourceSigner])),
      format: 'der',
      type: 'spki',
    });
    return verify(null, solanaBurnIntentPayload(intent), key, signature);
  } catch {
    // 32 bytes that are no ed25519 point: no signature of theirs exists.
    return false;
  }
}
