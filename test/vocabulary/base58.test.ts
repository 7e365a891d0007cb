// Our base58 agrees with the bs58 package web3.js uses, on keys, signatures and odd shapes.
import { fc, test } from '@fast-check/vitest';
import bs58 from 'bs58';
import { describe, expect } from 'vitest';
import { decodeBase58, encodeBase58 } from '../../src/vocabulary/base58.ts';

const bytes = fc.oneof(
  fc.uint8Array({ minLength: 32, maxLength: 32 }),
  fc.uint8Array({ minLength: 64, maxLength: 64 }),
  fc.uint8Array({ minLength: 0, maxLength: 80 }),
  // leading zero bytes become leading '1's
  fc
    .tuple(fc.integer({ min: 0, max: 8 }), fc.uint8Array({ minLength: 0, maxLength: 40 }))
    .map(([zeros, rest]) => Uint8Array.from([...new Array(zeros).fill(0), ...rest])),
);

describe('base58', () => {
  test.prop([bytes])('encodes as bs58 does', (input) => {
    expect(encodeBase58(input)).toBe(bs58.encode(input));
  });

  test.prop([bytes])('decodes what bs58 encodes, byte for byte', (input) => {
    expect(Buffer.from(decodeBase58(bs58.encode(input)))).toEqual(Buffer.from(input));
  });

  test.prop([fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{0,60}$/)])(
    'decodes any base58 string as bs58 does',
    (text) => {
      expect(Buffer.from(decodeBase58(text))).toEqual(Buffer.from(bs58.decode(text)));
    },
  );

  test.prop([fc.string({ minLength: 1, maxLength: 50 }).filter((s) => /[^1-9A-HJ-NP-Za-km-z]/.test(s))])(
    'refuses characters outside the alphabet',
    (text) => {
      expect(() => decodeBase58(text)).toThrow('not base58');
    },
  );
});
