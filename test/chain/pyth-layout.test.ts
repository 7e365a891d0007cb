// PriceUpdateV2 as the Pyth receiver writes it: our decoder reads what upstream's decoder read from the
// same bytes, our encoder writes what a Borsh writer following the upstream struct writes, and the two
// invert each other. Struct: pyth-network/pyth-crosschain
// target_chains/solana/pyth_solana_receiver_sdk/src/price_update.rs and pythnet/pythnet_sdk/src/messages.rs.

import { createHash } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import {
  decodePriceUpdateV2,
  encodePriceUpdateV2,
  PRICE_UPDATE_V2_DISCRIMINATOR,
  PRICE_UPDATE_V2_LEN,
  type PriceUpdate,
  PythLayoutError,
} from '../../src/chain/pyth/index.ts';
import { UPSTREAM_CASES } from './pyth-upstream.fixture.ts';

const i64 = fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n });
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });

const priceUpdateArb: fc.Arbitrary<PriceUpdate> = fc.record({
  writeAuthority: bytes32.map((b) => new PublicKey(b)),
  verificationLevel: fc.oneof(
    fc.constant({ kind: 'full' as const }),
    fc.integer({ min: 0, max: 255 }).map((numSignatures) => ({ kind: 'partial' as const, numSignatures })),
  ),
  feedId: bytes32.map((b) => Buffer.from(b).toString('hex')),
  price: i64,
  conf: u64,
  exponent: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  publishTime: i64,
  prevPublishTime: i64,
  emaPrice: i64,
  emaConf: u64,
  postedSlot: u64,
});

/** A Borsh writer that follows the Rust struct field by field, independent of the encoder under test. */
function borshPriceUpdateV2(u: PriceUpdate): Buffer {
  const parts: Buffer[] = [
    createHash('sha256').update('account:PriceUpdateV2').digest().subarray(0, 8),
    u.writeAuthority.toBuffer(),
  ];
  const num = (size: number, write: (b: Buffer) => void) => {
    const b = Buffer.alloc(size);
    write(b);
    parts.push(b);
  };
  // enum VerificationLevel { Partial { num_signatures: u8 }, Full }: a u8 variant index, then its fields.
  if (u.verificationLevel.kind === 'partial') parts.push(Buffer.from([0, u.verificationLevel.numSignatures]));
  else parts.push(Buffer.from([1]));
  parts.push(Buffer.from(u.feedId, 'hex'));
  num(8, (b) => b.writeBigInt64LE(u.price));
  num(8, (b) => b.writeBigUInt64LE(u.conf));
  num(4, (b) => b.writeInt32LE(u.exponent));
  num(8, (b) => b.writeBigInt64LE(u.publishTime));
  num(8, (b) => b.writeBigInt64LE(u.prevPublishTime));
  num(8, (b) => b.writeBigInt64LE(u.emaPrice));
  num(8, (b) => b.writeBigUInt64LE(u.emaConf));
  num(8, (b) => b.writeBigUInt64LE(u.postedSlot));
  return Buffer.concat(parts);
}

const plain = (u: PriceUpdate) => ({
  ...u,
  writeAuthority: u.writeAuthority.toBase58(),
  price: String(u.price),
  conf: String(u.conf),
  publishTime: String(u.publishTime),
  prevPublishTime: String(u.prevPublishTime),
  emaPrice: String(u.emaPrice),
  emaConf: String(u.emaConf),
  postedSlot: String(u.postedSlot),
});

const layoutError = (run: () => unknown) => {
  try {
    run();
  } catch (e) {
    return e instanceof PythLayoutError ? e.message : `not a PythLayoutError: ${e}`;
  }
  return 'no error';
};

const sample = (): PriceUpdate => decodePriceUpdateV2(Buffer.from(UPSTREAM_CASES[0]?.hex ?? '', 'hex'));

describe('PriceUpdateV2 layout', () => {
  it('the discriminator is sha256("account:PriceUpdateV2")[0..8] and the account is LEN = 134 bytes', () => {
    expect(Buffer.from(PRICE_UPDATE_V2_DISCRIMINATOR).toString('hex')).toBe('22f123639d7ef4cd');
    expect(PRICE_UPDATE_V2_LEN).toBe(134);
  });

  it.each(UPSTREAM_CASES.map((c, i) => [i, c] as const))(
    'reads case %i as the upstream decoder did, and writes the same bytes back',
    (_i, c) => {
      const bytes = Buffer.from(c.hex, 'hex');
      const decoded = decodePriceUpdateV2(bytes);
      expect(plain(decoded)).toEqual(c.upstream);
      expect(Buffer.from(encodePriceUpdateV2(decoded)).toString('hex')).toBe(c.hex);
    },
  );

  test.prop([priceUpdateArb])(
    'writes what a Borsh writer of the upstream struct writes, padded to LEN',
    (u) => {
      const borsh = borshPriceUpdateV2(u);
      const encoded = Buffer.from(encodePriceUpdateV2(u));
      expect(encoded.length).toBe(PRICE_UPDATE_V2_LEN);
      expect(encoded.subarray(0, borsh.length).equals(borsh)).toBe(true);
      expect(encoded.subarray(borsh.length).every((b) => b === 0)).toBe(true);
      // Anchor reads the serialized prefix and ignores the padding.
      expect(plain(decodePriceUpdateV2(borsh))).toEqual(plain(u));
    },
  );

  test.prop([priceUpdateArb])('decode inverts encode', (u) => {
    expect(plain(decodePriceUpdateV2(encodePriceUpdateV2(u)))).toEqual(plain(u));
  });

  test.prop([priceUpdateArb, fc.integer({ min: 0, max: 7 }), fc.integer({ min: 1, max: 255 })])(
    'a changed discriminator byte is refused',
    (u, at, flip) => {
      const bytes = encodePriceUpdateV2(u);
      bytes[at] = (bytes[at] as number) ^ flip;
      expect(layoutError(() => decodePriceUpdateV2(bytes))).toMatch(/discriminator/);
    },
  );

  test.prop([priceUpdateArb])('data cut short of the serialized fields is refused', (u) => {
    const serialized = u.verificationLevel.kind === 'full' ? PRICE_UPDATE_V2_LEN - 1 : PRICE_UPDATE_V2_LEN;
    const bytes = encodePriceUpdateV2(u);
    for (const length of [0, 7, 8, 40, 41, 42, serialized - 1]) {
      expect(layoutError(() => decodePriceUpdateV2(bytes.subarray(0, length)))).not.toBe('no error');
    }
    expect(decodePriceUpdateV2(bytes.subarray(0, serialized)).postedSlot).toBe(u.postedSlot);
  });

  it('an unknown verification level variant is refused', () => {
    const bytes = encodePriceUpdateV2(sample());
    bytes[40] = 2;
    expect(layoutError(() => decodePriceUpdateV2(bytes))).toMatch(/verification level/);
  });

  it('the encoder refuses values the fields cannot hold', () => {
    const u = sample();
    expect(layoutError(() => encodePriceUpdateV2({ ...u, price: 1n << 63n }))).toMatch(/price/);
    expect(layoutError(() => encodePriceUpdateV2({ ...u, conf: -1n }))).toMatch(/conf/);
    expect(layoutError(() => encodePriceUpdateV2({ ...u, exponent: 2 ** 31 }))).toMatch(/exponent/);
    expect(layoutError(() => encodePriceUpdateV2({ ...u, exponent: -8.5 }))).toMatch(/exponent/);
    expect(layoutError(() => encodePriceUpdateV2({ ...u, postedSlot: 1n << 64n }))).toMatch(/postedSlot/);
    expect(layoutError(() => encodePriceUpdateV2({ ...u, feedId: `0x${u.feedId.slice(2)}` }))).toMatch(
      /feedId/,
    );
    expect(layoutError(() => encodePriceUpdateV2({ ...u, feedId: u.feedId.toUpperCase() }))).toMatch(
      /feedId/,
    );
    expect(
      layoutError(() =>
        encodePriceUpdateV2({ ...u, verificationLevel: { kind: 'partial', numSignatures: 256 } }),
      ),
    ).toMatch(/numSignatures/);
  });
});
