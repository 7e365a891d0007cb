// checkLockTransaction, the check of the wallet-signed lock handed to POST /lock, as properties over random
// trades: the lock the chain's builder hands out, signed, passes on any blockhash — with the shape this run
// remembers and by rebuilding it from the trade's terms alike — and the same bytes with any one byte of the
// message changed never do. What the refusals say, and that nothing is sent, is test/http/lock-tampering.
import { randomUUID } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { Keypair, PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';
import { describe, expect } from 'vitest';
import { initialSnapshot, type SignMakerLockInput, type TradeContext } from '../../machines/index.ts';
import { blockhashRange, wireParts } from '../../src/chain/built-message.ts';
import { makerEscrowAddress, takerEscrowAddress } from '../../src/chain/htlc/index.ts';
import { makerLockTransaction, takerLockTransaction, unsignedBase64 } from '../../src/chain/transactions.ts';
import { isRuntimeError, type RuntimeError } from '../../src/runtime/errors.ts';
import { checkLockTransaction, issuedLockShape, makerLockDifferences } from '../../src/runtime/lock-check.ts';
import { bytesOf, hash32FromBytes } from '../../src/vocabulary/index.ts';
import { SOL_MINT, USDC_MINT, USDT_MINT } from '../support/mints.ts';

const PROGRAM = Keypair.generate().publicKey;
const MAKER = Keypair.generate().publicKey;
const TAKER = Keypair.generate();

type MakerLockArgs = Parameters<typeof makerLockTransaction>[1];

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const terms = fc.record({
  mints: fc.constantFrom([SOL_MINT, USDC_MINT], [USDC_MINT, SOL_MINT], [USDC_MINT, USDT_MINT]),
  amount: fc.bigInt({ min: 1n, max: 2n ** 63n }),
  hashlock: bytes32,
  lockDeadline: fc.integer({ min: 1_700_000_000, max: 2_000_000_000 }),
  timelock: fc.integer({ min: 60, max: 86_400 }),
  blockhash: bytes32.map((b) => new PublicKey(b).toBase58()),
});
type Terms = typeof terms extends fc.Arbitrary<infer T> ? T : never;

/** The trade's context for these terms, as settlement start makes it. */
function contextOf(t: Terms): TradeContext {
  const [inputMint, outputMint] = t.mints as [string, string];
  const [takerEscrow] = takerEscrowAddress(PROGRAM, TAKER.publicKey, t.hashlock);
  const snapshot = initialSnapshot({
    tradeId: randomUUID(),
    quoteId: randomUUID(),
    runId: randomUUID(),
    takerWallet: TAKER.publicKey.toBase58(),
    makerWallet: MAKER.toBase58(),
    secretHash: hash32FromBytes(t.hashlock),
    inputMint,
    inputAmountRaw: t.amount.toString(),
    outputMint,
    outputAmountRaw: '1',
    takerExpiry: t.lockDeadline + t.timelock,
    lockDeadline: t.lockDeadline,
    takerEscrow: takerEscrow.toBase58(),
    makerEscrow: makerEscrowAddress(PROGRAM, takerEscrow)[0].toBase58(),
    makerTimelock: 30,
    safetyMargin: 10,
    minRedeemWindow: 10,
    landingMargin: 5,
    sourcing: null,
  });
  return snapshot.context as TradeContext;
}

/** The unsigned lock as the chain's builder hands it out (settlementBuilders' buildTakerLock). */
function handedOut(context: TradeContext, blockhash: string): string {
  const tx = takerLockTransaction(
    PROGRAM,
    MAKER,
    { blockhash, lastValidBlockHeight: 1 },
    {
      taker: new PublicKey(context.takerWallet),
      inputMint: new PublicKey(context.inputMint),
      outputMint: new PublicKey(context.outputMint),
      amount: BigInt(context.inputAmountRaw),
      hashlock: bytesOf(context.secretHash),
      expiry: BigInt(context.takerExpiry),
      lockDeadline: BigInt(context.lockDeadline),
    },
  );
  return unsignedBase64(tx);
}

/** A wallet's signature, without the cost of ed25519: the check reads that the slot is filled, the chain verifies it. */
function signed(unsigned: string): Buffer {
  const wire = Buffer.from(unsigned, 'base64');
  wire.fill(7, 1, 65);
  return wire;
}

function refusal(check: () => unknown): RuntimeError {
  try {
    check();
  } catch (error) {
    if (isRuntimeError(error)) return error;
    throw error;
  }
  throw new Error('the lock was accepted');
}

/** What the check answers for a lock `signed` filled the signature of. */
const answerFor = (blockhash: string) => ({
  signature: bs58.encode(Buffer.alloc(64, 7)),
  recentBlockhash: blockhash,
});

describe('checkLockTransaction', () => {
  test.prop([terms, bytes32], { numRuns: 40 })(
    'the lock handed out, signed, passes on its own blockhash and any other, remembered or rebuilt',
    (t, other) => {
      const context = contextOf(t);
      const shape = issuedLockShape(handedOut(context, t.blockhash));
      expect(shape).not.toBeNull();
      for (const blockhash of [t.blockhash, new PublicKey(other).toBase58()]) {
        const lock = signed(handedOut(context, blockhash)).toString('base64');
        expect(checkLockTransaction(context, lock, PROGRAM, shape as string)).toEqual(answerFor(blockhash));
        expect(checkLockTransaction(context, lock, PROGRAM)).toEqual(answerFor(blockhash));
      }
    },
  );

  test.prop([terms, fc.nat(), fc.integer({ min: 1, max: 255 })], { numRuns: 200 })(
    'any one byte of the message changed (the blockhash aside) is refused, remembered or rebuilt',
    (t, pick, flip) => {
      const context = contextOf(t);
      const unsigned = handedOut(context, t.blockhash);
      const shape = issuedLockShape(unsigned) as string;
      const wire = signed(unsigned);
      const message = wireParts(wire)?.message as Uint8Array;
      const [from, to] = blockhashRange(message) as [number, number];
      // A position of the message outside its blockhash (the message starts after 1 + 64 signature bytes).
      const at = pick % (message.length - (to - from));
      const position = 65 + (at < from ? at : at + (to - from));
      wire[position] = (wire[position] as number) ^ flip;
      const lock = wire.toString('base64');
      for (const issued of [shape, undefined]) {
        const error = refusal(() => checkLockTransaction(context, lock, PROGRAM, issued));
        // Bytes that still decode are another message: lock_mismatch; the rest is not a transaction.
        expect(['lock_mismatch', 'invalid_input']).toContain(error.code);
        expect(error.invalid?.input).toBe('transaction');
      }
    },
  );

  test('the lock signed by web3.js as a wallet signs it passes, and answers its signature', () => {
    const t = fc.sample(terms, 1)[0] as Terms;
    const context = contextOf(t);
    const unsigned = handedOut(context, t.blockhash);
    const tx = Transaction.from(Buffer.from(unsigned, 'base64'));
    tx.partialSign(TAKER);
    const lock = tx.serialize().toString('base64');
    const answer = { signature: bs58.encode(tx.signature as Buffer), recentBlockhash: t.blockhash };
    expect(checkLockTransaction(context, lock, PROGRAM, issuedLockShape(unsigned) as string)).toEqual(answer);
    expect(checkLockTransaction(context, lock, PROGRAM)).toEqual(answer);
  });

  test('the lock as handed out, unsigned, is refused as not signed by the taker', () => {
    const t = fc.sample(terms, 1)[0] as Terms;
    const context = contextOf(t);
    const unsigned = handedOut(context, t.blockhash);
    for (const issued of [issuedLockShape(unsigned) as string, undefined]) {
      const error = refusal(() => checkLockTransaction(context, unsigned, PROGRAM, issued));
      expect(error.code).toBe('invalid_input');
      expect(error.invalid).toEqual({ input: 'transaction', problem: 'is not signed by taker_wallet' });
    }
  });

  test('another trade’s lock, signed by its taker, is not this trade’s, even with this trade’s shape', () => {
    const [a, b] = fc.sample(terms, 2) as [Terms, Terms];
    const mine = contextOf(a);
    const shape = issuedLockShape(handedOut(mine, a.blockhash)) as string;
    const theirs = signed(handedOut(contextOf(b), b.blockhash)).toString('base64');
    for (const issued of [shape, undefined]) {
      const error = refusal(() => checkLockTransaction(mine, theirs, PROGRAM, issued));
      expect(error.code).toBe('lock_mismatch');
      expect(error.invalid?.problem).toMatch(/changes instruction \d \(htlc\)/);
    }
  });
});

// The maker's own lock, decoded from its signed bytes before it becomes the intent: the program holds the taker
// escrow to the amount, mint and expiry the lock names, so a lock naming other ones must never be kept or sent.
describe('makerLockDifferences', () => {
  const maker = Keypair.generate();
  const lifetime = { blockhash: Keypair.generate().publicKey.toBase58(), lastValidBlockHeight: 1 };

  /** What the machine hands signMakerLock for the trade of these terms. */
  function inputOf(t: Terms): SignMakerLockInput {
    const context = contextOf(t);
    return {
      tradeId: context.tradeId,
      takerEscrow: context.takerEscrow,
      makerEscrow: makerEscrowAddress(PROGRAM, new PublicKey(context.takerEscrow))[0].toBase58(),
      initializer: maker.publicKey.toBase58(),
      recipient: context.takerWallet,
      mint: context.outputMint,
      amountRaw: '7',
      hashlock: context.secretHash,
      expiry: context.takerExpiry - 10,
      takerMint: context.inputMint,
      takerAmountRaw: context.inputAmountRaw,
      takerExpiry: context.takerExpiry,
    };
  }

  /** The maker lock as the chain's builder makes it, with `change` applied to its arguments, signed. */
  function signedLock(input: SignMakerLockInput, change: Partial<MakerLockArgs> = {}): string {
    const tx = makerLockTransaction(
      { programId: PROGRAM, maker: maker.publicKey, lifetime },
      {
        takerEscrow: new PublicKey(input.takerEscrow),
        taker: new PublicKey(input.recipient),
        inputMint: new PublicKey(input.takerMint),
        inputAmount: BigInt(input.takerAmountRaw),
        takerExpiry: BigInt(input.takerExpiry),
        outputMint: new PublicKey(input.mint),
        amount: BigInt(input.amountRaw),
        hashlock: bytesOf(input.hashlock),
        expiry: BigInt(input.expiry),
        lockDeadline: BigInt(input.expiry - 5),
        ...change,
      },
    );
    tx.sign(maker);
    return tx.serialize().toString('base64');
  }

  test.prop([terms], { numRuns: 30 })('the lock the builder signs for the trade says nothing else', (t) => {
    const input = inputOf(t);
    expect(makerLockDifferences(input, signedLock(input), PROGRAM)).toEqual([]);
  });

  test.prop([terms], { numRuns: 30 })(
    'a lock holding the taker escrow to another amount or mint is named for it',
    (t) => {
      const input = inputOf(t);
      const amount = BigInt(input.takerAmountRaw);
      expect(makerLockDifferences(input, signedLock(input, { inputAmount: amount - 1n }), PROGRAM)).toEqual([
        `taker escrow amount ${amount - 1n}, not ${amount}`,
      ]);
      const other = USDT_MINT; // never an input of these terms
      const differences = makerLockDifferences(
        input,
        signedLock(input, { inputMint: new PublicKey(other) }),
        PROGRAM,
      );
      expect(differences).toEqual([`taker escrow mint ${other}, not ${input.takerMint}`]);
    },
  );

  test.prop([terms], { numRuns: 30 })(
    'a lock holding the taker escrow to another expiry, a second either side, is named for it',
    (t) => {
      const input = inputOf(t);
      for (const other of [input.takerExpiry + 1, input.takerExpiry - 1]) {
        const lock = signedLock(input, { takerExpiry: BigInt(other) });
        expect(makerLockDifferences(input, lock, PROGRAM)).toEqual([
          `taker escrow expiry ${other}, not ${input.takerExpiry}`,
        ]);
      }
    },
  );

  test('a lock in a layout before the taker escrow’s terms (90 bytes) or its expiry (130) is no maker lock at all', () => {
    const input = inputOf(fc.sample(terms, 1)[0] as Terms);
    for (const size of [90, 130]) {
      const tx = Transaction.from(Buffer.from(signedLock(input), 'base64'));
      const lock = tx.instructions.at(-1) as TransactionInstruction;
      lock.data = lock.data.subarray(0, size);
      tx.sign(maker);
      expect(makerLockDifferences(input, tx.serialize().toString('base64'), PROGRAM)).toEqual([
        'carries 0 HTLC locks, not one',
      ]);
    }
  });

  test('unsigned, or signed for another escrow, it is refused', () => {
    const input = inputOf(fc.sample(terms, 1)[0] as Terms);
    const unsigned = Transaction.from(Buffer.from(signedLock(input), 'base64'));
    const bare = unsignedBase64(
      new Transaction({ feePayer: maker.publicKey, ...lifetime }).add(...unsigned.instructions),
    );
    expect(makerLockDifferences(input, bare, PROGRAM)).toEqual(['signature none, not maker']);
    const elsewhere = Keypair.generate().publicKey;
    expect(makerLockDifferences(input, signedLock(input, { takerEscrow: elsewhere }), PROGRAM)).toEqual([
      `escrow ${makerEscrowAddress(PROGRAM, elsewhere)[0].toBase58()}, not ${input.makerEscrow}`,
      `taker escrow ${elsewhere.toBase58()}, not ${input.takerEscrow}`,
    ]);
  });
});
