// The Pyth receiver's price update account (PriceUpdateV2), byte for byte as Anchor/Borsh writes it.
// Upstream (pyth-network/pyth-crosschain):
//   target_chains/solana/pyth_solana_receiver_sdk/src/price_update.rs — PriceUpdateV2, VerificationLevel, LEN
//   pythnet/pythnet_sdk/src/messages.rs — PriceFeedMessage (the price_message field)
//   target_chains/solana/pyth_solana_receiver_sdk/src/lib.rs — declare_id!(rec5EKMG…) of the receiver
// Layout: discriminator [8] | write_authority [32] | verification_level (Borsh enum: 0 = Partial
// {num_signatures u8}, 1 = Full) | feed_id [32] | price i64 | conf u64 | exponent i32 | publish_time i64 |
// prev_publish_time i64 | ema_price i64 | ema_conf u64 | posted_slot u64, little-endian. The enum is 2 bytes
// for Partial and 1 for Full, so every field after it sits one byte earlier in a fully verified update:
// offsets are read in sequence, never fixed. The account is allocated LEN = 134 bytes either way.

import { createHash } from 'node:crypto';
import type { PublicKey } from '@solana/web3.js';
import { keyBytes, keyFromBytes, publicKey } from '../keys.ts';

/** The Pyth Solana receiver program (mainnet and devnet), owner of every PriceUpdateV2 account. */
export const PYTH_RECEIVER_PROGRAM_ID: PublicKey = publicKey('rec5EKMGg6MxZYaMdyBfgwp4d5rB9T1VQH5pJv5LtFJ');

export type VerificationLevel = { kind: 'partial'; numSignatures: number } | { kind: 'full' };

export interface PriceUpdate {
  writeAuthority: PublicKey;
  verificationLevel: VerificationLevel;
  /** 64 lower-case hex characters, no 0x. */
  feedId: string;
  /** The price is (price ± conf) × 10^exponent. */
  price: bigint;
  conf: bigint;
  exponent: number;
  /** Unix seconds. */
  publishTime: bigint;
  prevPublishTime: bigint;
  emaPrice: bigint;
  emaConf: bigint;
  postedSlot: bigint;
}

export class PythLayoutError extends Error {
  override readonly name = 'PythLayoutError';
}

/** Anchor's account discriminator: sha256("account:PriceUpdateV2")[0..8]. */
export const PRICE_UPDATE_V2_DISCRIMINATOR: Uint8Array = new Uint8Array(
  createHash('sha256').update('account:PriceUpdateV2').digest().subarray(0, 8),
);

/** PriceUpdateV2::LEN, the account's allocated size (room for the longer, Partial, enum variant). */
export const PRICE_UPDATE_V2_LEN = 8 + 32 + 2 + 32 + 8 + 8 + 4 + 8 + 8 + 8 + 8 + 8;

const PARTIAL = 0;
const FULL = 1;
/** Bytes after the verification level: feed_id, price … ema_conf, posted_slot. */
const TAIL = 32 + 8 + 8 + 4 + 8 + 8 + 8 + 8 + 8;

const FEED_ID = /^[0-9a-f]{64}$/;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;
const U64_MAX = (1n << 64n) - 1n;

/** Whether the bytes begin with the PriceUpdateV2 discriminator (cheap pre-check before decoding). */
export function isPriceUpdateV2Data(data: Uint8Array): boolean {
  if (data.length < 8) return false;
  for (let i = 0; i < 8; i++) if (data[i] !== PRICE_UPDATE_V2_DISCRIMINATOR[i]) return false;
  return true;
}

/** Decodes as Anchor's try_deserialize does: discriminator first, then Borsh in order; trailing bytes allowed. */
export function decodePriceUpdateV2(data: Uint8Array): PriceUpdate {
  if (!isPriceUpdateV2Data(data)) throw new PythLayoutError('not a PriceUpdateV2 account: discriminator');
  if (data.length < 8 + 32 + 1) throw new PythLayoutError(`PriceUpdateV2 too short: ${data.length} bytes`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const writeAuthority = keyFromBytes(data.slice(8, 40));
  let at = 40;
  const tag = data[at++];
  let verificationLevel: VerificationLevel;
  if (tag === PARTIAL) {
    if (data.length <= at) throw new PythLayoutError(`PriceUpdateV2 too short: ${data.length} bytes`);
    verificationLevel = { kind: 'partial', numSignatures: data[at++] as number };
  } else if (tag === FULL) {
    verificationLevel = { kind: 'full' };
  } else {
    throw new PythLayoutError(`PriceUpdateV2 verification level: unknown variant ${tag}`);
  }
  if (data.length < at + TAIL) throw new PythLayoutError(`PriceUpdateV2 too short: ${data.length} bytes`);
  const feedId = Buffer.from(data.subarray(at, at + 32)).toString('hex');
  at += 32;
  const i64 = () => {
    const v = view.getBigInt64(at, true);
    at += 8;
    return v;
  };
  const u64 = () => {
    const v = view.getBigUint64(at, true);
    at += 8;
    return v;
  };
  const price = i64();
  const conf = u64();
  const exponent = view.getInt32(at, true);
  at += 4;
  return {
    writeAuthority,
    verificationLevel,
    feedId,
    price,
    conf,
    exponent,
    publishTime: i64(),
    prevPublishTime: i64(),
    emaPrice: i64(),
    emaConf: u64(),
    postedSlot: u64(),
  };
}

/** The account's data as the receiver writes it: LEN bytes, zero-padded after a Full verification level. */
export function encodePriceUpdateV2(update: PriceUpdate): Uint8Array {
  if (!FEED_ID.test(update.feedId))
    throw new PythLayoutError(`feedId: not 64 lower-case hex: ${update.feedId}`);
  const out = new Uint8Array(PRICE_UPDATE_V2_LEN);
  const view = new DataView(out.buffer);
  out.set(PRICE_UPDATE_V2_DISCRIMINATOR, 0);
  out.set(keyBytes(update.writeAuthority), 8);
  let at = 40;
  const level = update.verificationLevel;
  if (level.kind === 'partial') {
    if (!Number.isInteger(level.numSignatures) || level.numSignatures < 0 || level.numSignatures > 255)
      throw new PythLayoutError(`numSignatures: not a u8: ${level.numSignatures}`);
    out[at++] = PARTIAL;
    out[at++] = level.numSignatures;
  } else {
    out[at++] = FULL;
  }
  out.set(Buffer.from(update.feedId, 'hex'), at);
  at += 32;
  const i64 = (field: string, v: bigint) => {
    if (v < I64_MIN || v > I64_MAX) throw new PythLayoutError(`${field}: not an i64: ${v}`);
    view.setBigInt64(at, v, true);
    at += 8;
  };
  const u64 = (field: string, v: bigint) => {
    if (v < 0n || v > U64_MAX) throw new PythLayoutError(`${field}: not a u64: ${v}`);
    view.setBigUint64(at, v, true);
    at += 8;
  };
  i64('price', update.price);
  u64('conf', update.conf);
  if (!Number.isInteger(update.exponent) || update.exponent < -(2 ** 31) || update.exponent >= 2 ** 31)
    throw new PythLayoutError(`exponent: not an i32: ${update.exponent}`);
  view.setInt32(at, update.exponent, true);
  at += 4;
  i64('publishTime', update.publishTime);
  i64('prevPublishTime', update.prevPublishTime);
  i64('emaPrice', update.emaPrice);
  u64('emaConf', update.emaConf);
  u64('postedSlot', update.postedSlot);
  return out;
}
