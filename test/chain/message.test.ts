// Our legacy message compiler against web3.js 1.x itself: the same collation of base58 keys, the same
// message bytes for every settlement transaction, and the same signed wire bytes.

import { fc, test } from '@fast-check/vitest';
import { Keypair, PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';
import { describe, expect } from 'vitest';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import {
  compareBase58,
  compileLegacyMessage,
  transactionMessage,
  unsignedWire,
} from '../../src/chain/message.ts';
import { fastSigner, signWith } from '../../src/chain/signer.ts';
import { NATIVE_MINT } from '../../src/chain/token.ts';
import {
  type MakerContext,
  makerCancelTransaction,
  makerCloseTransaction,
  makerLockTransaction,
  makerRedeemTransaction,
  makerRefundTransaction,
  redeemForTransaction,
  refundForTransaction,
  takerLockTransaction,
  takerRedeemTransaction,
  takerRefundTransaction,
  unsignedBase64,
} from '../../src/chain/transactions.ts';

// ---- factories ----

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const WEB3_COLLATION = {
  localeMatcher: 'best fit',
  usage: 'sort',
  sensitivity: 'variant',
  ignorePunctuation: false,
  numeric: false,
  caseFirst: 'lower',
} as const;
const web3Compare = (a: string, b: string) => a.localeCompare(b, 'en', WEB3_COLLATION);

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const keyArb = bytes32.map((b) => new PublicKey(b));
const mintArb = fc.oneof(fc.constant(NATIVE_MINT), keyArb);
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const lifetimeArb = fc.record({
  blockhash: bytes32.map((b) => bs58.encode(b)),
  lastValidBlockHeight: fc.nat(),
});
const termsArb = fc.record({ amount: u64, hashlock: bytes32, expiry: i64, lockDeadline: i64 });
const priorityFeeArb = fc.option(
  fc.record({
    microLamports: fc.oneof(fc.constant(0), fc.nat()),
    unitLimit: fc.integer({ min: 1, max: 1_400_000 }),
  }),
  { nil: undefined },
);
const makerArb = bytes32.map((seed) => Keypair.fromSeed(seed));
const programId = DEFAULT_HTLC_PROGRAM_ID;

const base58Arb = fc.string({ unit: fc.constantFrom(...ALPHABET), minLength: 32, maxLength: 44 });

/** The string with the case of some letters flipped, where the flipped letter is base58 too. */
function flipCase(s: string, flips: boolean[]): string {
  return [...s]
    .map((c, i) => {
      if (!flips[i % flips.length]) return c;
      const other = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
      return ALPHABET.includes(other) ? other : c;
    })
    .join('');
}

const flipsArb = fc.array(fc.boolean(), { minLength: 1, maxLength: 44 });
const base58PairArb = fc.oneof(
  fc.tuple(base58Arb, base58Arb),
  fc.tuple(base58Arb, flipsArb).map(([s, flips]) => [s, flipCase(s, flips)] as const),
  fc.tuple(base58Arb, fc.nat()).map(([s, n]) => [s, s.slice(0, 32 + (n % (s.length - 31)))] as const),
  fc
    .tuple(base58Arb, flipsArb, fc.nat())
    .map(([s, flips, n]) => [s, flipCase(s.slice(0, 32 + (n % (s.length - 31))), flips)] as const),
);

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Builds twice, so that neither compiler sees the other's traces on the transaction object. */
function expectWeb3Bytes(build: () => Transaction) {
  expect(hex(transactionMessage(build()))).toBe(hex(build().compileMessage().serialize()));
  expect(unsignedBase64(build())).toBe(
    build().serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64'),
  );
}

function expectWeb3Signed(build: () => Transaction, maker: Keypair) {
  const ours = signWith(build(), fastSigner(maker));
  const theirs = build();
  theirs.sign(maker);
  expect(hex(ours.bytes)).toBe(hex(theirs.serialize()));
  expect(ours.signature).toBe(bs58.encode(theirs.signature as Buffer));
}

const makerContext = (
  maker: Keypair,
  lifetime: MakerContext['lifetime'],
  priorityFee?: MakerContext['priorityFee'],
) => {
  const c: MakerContext = { programId, maker: maker.publicKey, lifetime };
  if (priorityFee) c.priorityFee = priorityFee;
  return c;
};

// ---- specifications ----

describe('base58 collation', () => {
  test.prop([base58PairArb], { numRuns: 3_000 })(
    'orders two base58 strings as web3.js’s localeCompare does (equal but for case, prefixes included)',
    ([a, b]) => {
      expect(Math.sign(compareBase58(a, b))).toBe(Math.sign(web3Compare(a, b)));
      expect(Math.sign(compareBase58(b, a))).toBe(Math.sign(web3Compare(b, a)));
    },
  );

  test.prop([fc.array(base58PairArb, { minLength: 1, maxLength: 8 })], { numRuns: 300 })(
    'sorts lists of near-identical keys as web3.js does',
    (pairs) => {
      const strings = pairs.flat();
      expect([...strings].sort(compareBase58)).toEqual([...strings].sort(web3Compare));
    },
  );

  test('digits before letters, letters case-insensitively, then lowercase first, a prefix first', () => {
    const ordered = ['1z', '9A', 'a2', 'A2', 'aB', 'Ab', 'AB', 'ab1', 'b', 'B', 'z'];
    expect([...ordered].reverse().sort(compareBase58)).toEqual(ordered);
    expect([...ordered].reverse().sort(web3Compare)).toEqual(ordered);
  });
});

describe('compileLegacyMessage', () => {
  const pool = fc.array(keyArb, { minLength: 1, maxLength: 6 });
  const scenario = pool.chain((keys) => {
    const pick = fc.constantFrom(...keys);
    const meta = fc.record({ pubkey: pick, isSigner: fc.boolean(), isWritable: fc.boolean() });
    const instruction = fc.record({
      programId: fc.oneof(pick, keyArb),
      keys: fc.array(meta, { maxLength: 6 }),
      data: fc.uint8Array({ maxLength: 40 }),
    });
    return fc.record({
      feePayer: fc.oneof(pick, keyArb),
      recentBlockhash: bytes32.map((b) => bs58.encode(b)),
      instructions: fc.array(instruction, { minLength: 1, maxLength: 4 }),
    });
  });

  test.prop([scenario], { numRuns: 500 })(
    'gives web3.js’s bytes for shared accounts with mixed flags, payers inside or outside the instructions',
    (m) => {
      const tx = new Transaction({ feePayer: m.feePayer, recentBlockhash: m.recentBlockhash });
      for (const ix of m.instructions)
        tx.add(new TransactionInstruction({ ...ix, data: Buffer.from(ix.data) }));
      expect(hex(compileLegacyMessage(m))).toBe(hex(tx.compileMessage().serialize()));
    },
  );

  test('leaves what web3.js refuses to web3.js: no blockhash, no fee payer', () => {
    const payer = new PublicKey(new Uint8Array(32).fill(1));
    const ix = new TransactionInstruction({ programId, keys: [], data: Buffer.alloc(0) });
    expect(() => transactionMessage(new Transaction({ feePayer: payer }).add(ix))).toThrow(
      /recentBlockhash required/,
    );
    expect(() =>
      unsignedWire(new Transaction({ recentBlockhash: bs58.encode(new Uint8Array(32)) }).add(ix)),
    ).toThrow(/fee payer required/);
  });
});

describe('taker transactions are web3.js’s bytes', () => {
  test.prop([keyArb, keyArb, mintArb, mintArb, termsArb, lifetimeArb], { numRuns: 100 })(
    'lock, SOL or token input',
    (maker, taker, inputMint, outputMint, terms, lifetime) => {
      expectWeb3Bytes(() =>
        takerLockTransaction(programId, maker, lifetime, { taker, inputMint, outputMint, ...terms }),
      );
    },
  );

  test.prop([keyArb, keyArb, mintArb, bytes32, lifetimeArb], { numRuns: 100 })(
    'redeem, SOL (unwrapped) or token output',
    (taker, takerEscrow, outputMint, preimage, lifetime) => {
      expectWeb3Bytes(() =>
        takerRedeemTransaction(programId, lifetime, { taker, takerEscrow, outputMint, preimage }),
      );
    },
  );

  test.prop([keyArb, keyArb, mintArb, lifetimeArb], { numRuns: 100 })(
    'refund, SOL (unwrapped) or token input',
    (taker, takerEscrow, inputMint, lifetime) => {
      expectWeb3Bytes(() => takerRefundTransaction(programId, lifetime, { taker, takerEscrow, inputMint }));
    },
  );
});

describe('maker transactions are web3.js’s bytes, unsigned and signed', () => {
  const makerCases = {
    lock: fc.tuple(keyArb, keyArb, mintArb, mintArb, u64, i64, termsArb).map(
      ([takerEscrow, taker, inputMint, outputMint, inputAmount, takerExpiry, terms]) =>
        (c: MakerContext) =>
          makerLockTransaction(c, {
            takerEscrow,
            taker,
            inputMint,
            inputAmount,
            takerExpiry,
            outputMint,
            ...terms,
          }),
    ),
    redeem: fc.tuple(keyArb, mintArb, bytes32).map(
      ([takerEscrow, inputMint, preimage]) =>
        (c: MakerContext) =>
          makerRedeemTransaction(c, { takerEscrow, inputMint, preimage }),
    ),
    refund: fc.tuple(keyArb, mintArb).map(
      ([makerEscrow, outputMint]) =>
        (c: MakerContext) =>
          makerRefundTransaction(c, { makerEscrow, outputMint }),
    ),
    cancel: fc.tuple(keyArb, keyArb, mintArb).map(
      ([takerEscrow, taker, inputMint]) =>
        (c: MakerContext) =>
          makerCancelTransaction(c, { takerEscrow, taker, inputMint }),
    ),
    'redeem for the taker': fc.tuple(keyArb, keyArb, mintArb, bytes32).map(
      ([takerEscrow, taker, outputMint, preimage]) =>
        (c: MakerContext) =>
          redeemForTransaction(c, { takerEscrow, taker, outputMint, preimage }),
    ),
    'refund for the taker': fc.tuple(keyArb, keyArb, mintArb).map(
      ([takerEscrow, taker, inputMint]) =>
        (c: MakerContext) =>
          refundForTransaction(c, { takerEscrow, taker, inputMint }),
    ),
    close: fc.tuple(keyArb, mintArb).map(
      ([escrow, mint]) =>
        (c: MakerContext) =>
          makerCloseTransaction(c, { escrow, mint }),
    ),
  };

  for (const [name, buildArb] of Object.entries(makerCases)) {
    test.prop([makerArb, lifetimeArb, priorityFeeArb, buildArb], { numRuns: 40 })(
      `${name}, with and without a priority fee`,
      (maker, lifetime, priorityFee, build) => {
        const c = makerContext(maker, lifetime, priorityFee);
        expectWeb3Bytes(() => build(c));
        expectWeb3Signed(() => build(c), maker);
      },
    );
  }

  test('signWith refuses a signer that is not the fee payer, as web3.js’s addSignature does', () => {
    const maker = Keypair.fromSeed(new Uint8Array(32).fill(3));
    const stranger = Keypair.fromSeed(new Uint8Array(32).fill(4));
    const lifetime = { blockhash: bs58.encode(new Uint8Array(32).fill(9)), lastValidBlockHeight: 1 };
    const tx = makerCloseTransaction(makerContext(maker, lifetime), {
      escrow: stranger.publicKey,
      mint: NATIVE_MINT,
    });
    expect(() => signWith(tx, fastSigner(stranger))).toThrow(/unknown signer/);
  });
});
