import { createHash } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  bytesOf,
  hash32FromBytes,
  hashOfPreimage,
  parseHash32,
  parsePreimage,
  preimageFromBytes,
  sameHash32,
} from '../../src/vocabulary/index.ts';

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
/** Each character in upper or lower case, as a client may send it. */
const anyCase = (text: string, upper: boolean[]) =>
  Array.from(text, (c, i) => (upper[i % upper.length] ? c.toUpperCase() : c)).join('');

describe('parsing at the boundary', () => {
  test.prop([bytes32, fc.array(fc.boolean(), { minLength: 1 })])(
    '64 hex characters of any case parse to the lower-case form, as a hash and as a preimage',
    (bytes, upper) => {
      const sent = anyCase(hex(bytes), upper);
      expect(parseHash32(sent)).toBe(hex(bytes));
      expect(parsePreimage(sent)).toBe(hex(bytes));
    },
  );

  test.each([
    ['63 characters', 'a'.repeat(63)],
    ['65 characters', 'a'.repeat(65)],
    ['a non-hex character', `${'a'.repeat(63)}g`],
    ['a 0x prefix', `0x${'a'.repeat(62)}`],
    ['surrounding space', ` ${'a'.repeat(64)}`],
    ['nothing', ''],
  ])('refuses %s', (_, text) => {
    expect(parseHash32(text)).toBeUndefined();
    expect(parsePreimage(text)).toBeUndefined();
  });
});

describe('bytes', () => {
  test.prop([bytes32])('bytes → value → bytes is the identity', (bytes) => {
    expect([...bytesOf(hash32FromBytes(bytes))]).toEqual([...bytes]);
    expect([...bytesOf(preimageFromBytes(bytes))]).toEqual([...bytes]);
  });

  test('reads exactly the 32 bytes of a view into a larger buffer', () => {
    const account = new Uint8Array(40).map((_, i) => i);
    expect(hash32FromBytes(account.subarray(4, 36))).toBe(hex(account.subarray(4, 36)));
  });

  test.each([0, 31, 33])('refuses %i bytes', (length) => {
    expect(() => hash32FromBytes(new Uint8Array(length))).toThrow(RangeError);
    expect(() => preimageFromBytes(new Uint8Array(length))).toThrow(RangeError);
  });
});

describe('hashes', () => {
  test.prop([bytes32])('hashOfPreimage is sha256 of the preimage bytes', (bytes) => {
    expect(hashOfPreimage(preimageFromBytes(bytes))).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  test.prop([bytes32, bytes32])('sameHash32 is equality', (a, b) => {
    expect(sameHash32(hash32FromBytes(a), hash32FromBytes(b))).toBe(hex(a) === hex(b));
    expect(sameHash32(hash32FromBytes(a), hash32FromBytes(a))).toBe(true);
  });

  test.prop([bytes32, fc.nat({ max: 31 })])(
    'one differing byte anywhere makes two hashes differ',
    (a, at) => {
      const b = Uint8Array.from(a);
      b[at] = (b[at] as number) ^ 1;
      expect(sameHash32(hash32FromBytes(a), hash32FromBytes(b))).toBe(false);
    },
  );
});
