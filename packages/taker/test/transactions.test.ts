// The client's transactions against web3.js and the service's own builders: the wire-format signer puts
// exactly the bytes web3.js's partialSign would, in the same slot; the redeem and refund the client builds
// with @solana/kit carry the instructions the service hands out for `?mode=wallet`, account for account.
import { createPrivateKey, sign } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction } from '@solana/web3.js';
import { describe, expect } from 'vitest';
import { takerEscrowAddress } from '../../../src/chain/htlc/index.ts';
import { takerRedeemTransaction, takerRefundTransaction } from '../../../src/chain/transactions.ts';
import { SOL_MINT, USDC_MINT } from '../../../test/support/mints.ts';
import {
  DEFAULT_HTLC_PROGRAM_ID,
  fromBase64,
  isSignedBy,
  makerEscrowAddress,
  parseTransaction,
  redeemTransaction,
  refundTransaction,
  signTransactionBytes as signTransaction,
  toBase64,
} from '../src/index.ts';

/** ed25519 over the message with the keypair's seed, as WebCrypto or a wallet would. */
function signer(keypair: Keypair) {
  const pkcs8 = Buffer.concat([
    Buffer.from('302e020100300506032b657004220420', 'hex'),
    Buffer.from(keypair.secretKey.subarray(0, 32)),
  ]);
  const key = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  return async (message: Uint8Array) => new Uint8Array(sign(null, message, key));
}

const seeds = fc.uint8Array({ minLength: 32, maxLength: 32 });

/** A legacy transaction with a fee payer and, once it has an instruction of its own, a second signer; unsigned. */
function unsigned(payer: Keypair, other: Keypair, instructions: number, blockhash: Uint8Array): Transaction {
  const tx = new Transaction({
    feePayer: payer.publicKey,
    recentBlockhash: new PublicKey(blockhash).toBase58(),
  });
  tx.add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: other.publicKey, lamports: 1 }));
  for (let i = 0; i < instructions; i++) {
    tx.add(
      new TransactionInstruction({
        programId: new PublicKey(blockhash),
        keys: [{ pubkey: other.publicKey, isSigner: true, isWritable: i % 2 === 0 }],
        data: Buffer.from([i]),
      }),
    );
  }
  return tx;
}

describe('the client signs a transaction as web3.js does', () => {
  test.prop([seeds, seeds, seeds, fc.integer({ min: 1, max: 4 }), fc.boolean()])(
    'the signer’s slot holds web3.js’s signature and nothing else changes',
    async (payerSeed, otherSeed, blockhash, instructions, signAsOther) => {
      const payer = Keypair.fromSeed(payerSeed);
      const other = Keypair.fromSeed(otherSeed);
      fc.pre(!payer.publicKey.equals(other.publicKey));
      const who = signAsOther ? other : payer;
      const wire = unsigned(payer, other, instructions, blockhash).serialize({ requireAllSignatures: false });
      expect(isSignedBy(wire, who.publicKey.toBytes())).toBe(false);

      const signed = await signTransaction(new Uint8Array(wire), who.publicKey.toBytes(), signer(who));

      const expected = Transaction.from(wire);
      expected.partialSign(who);
      expect(Buffer.from(signed).equals(expected.serialize({ requireAllSignatures: false }))).toBe(true);
      expect(isSignedBy(signed, who.publicKey.toBytes())).toBe(true);
      expect(isSignedBy(signed, (signAsOther ? payer : other).publicKey.toBytes())).toBe(false);
      expect(parseTransaction(signed).signers.map((k: Uint8Array) => new PublicKey(k).toBase58())).toEqual(
        [payer, other].map((k) => k.publicKey.toBase58()),
      );
    },
  );

  test('refuses a transaction the wallet need not sign, and a versioned one', async () => {
    const payer = Keypair.generate();
    const stranger = Keypair.generate();
    const wire = unsigned(payer, Keypair.generate(), 0, new Uint8Array(32).fill(7)).serialize({
      requireAllSignatures: false,
    });
    await expect(
      signTransaction(new Uint8Array(wire), stranger.publicKey.toBytes(), signer(stranger)),
    ).rejects.toThrow('not one of its signers');
    const versioned = new Uint8Array(wire);
    versioned[65] = 0x80; // the message's first byte: a version prefix
    expect(() => parseTransaction(versioned)).toThrow('versioned');
  });

  test('base64 both ways', () => {
    const bytes = new Uint8Array(300).map((_, i) => (i * 37) % 256);
    expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    expect(fromBase64(toBase64(bytes))).toEqual(bytes);
  });
});

/** A transaction's instructions as web3.js reads them from the wire: program, accounts with flags, data. */
function instructions(wire: Uint8Array | Buffer) {
  return Transaction.from(wire).instructions.map((ix) => ({
    program: ix.programId.toBase58(),
    keys: ix.keys.map((k) => `${k.pubkey.toBase58()}:${k.isSigner ? 's' : ''}${k.isWritable ? 'w' : ''}`),
    data: Buffer.from(ix.data).toString('hex'),
  }));
}

describe('the client’s redeem and refund are the service’s', () => {
  const programId = new PublicKey(DEFAULT_HTLC_PROGRAM_ID);
  const lifetime = {
    blockhash: new PublicKey(new Uint8Array(32).fill(9)).toBase58(),
    lastValidBlockHeight: 100,
  };

  test.each([USDC_MINT, SOL_MINT])('redeem of the maker escrow, output %s', async (outputMint) => {
    const taker = Keypair.generate().publicKey;
    const preimage = new Uint8Array(32).fill(3);
    const [takerEscrow] = takerEscrowAddress(programId, taker, new Uint8Array(32).fill(4));
    const ours = await redeemTransaction({
      programId: DEFAULT_HTLC_PROGRAM_ID,
      taker: taker.toBase58(),
      makerEscrow: await makerEscrowAddress(DEFAULT_HTLC_PROGRAM_ID, takerEscrow.toBase58()),
      outputMint,
      preimage,
      lifetime: { ...lifetime, lastValidBlockHeight: 100n },
    });
    const theirs = takerRedeemTransaction(programId, lifetime, {
      taker,
      takerEscrow,
      outputMint: new PublicKey(outputMint),
      preimage,
    }).serialize({ requireAllSignatures: false, verifySignatures: false });
    expect(instructions(fromBase64(ours))).toEqual(instructions(theirs));
    expect(Transaction.from(fromBase64(ours)).feePayer?.toBase58()).toBe(taker.toBase58());
    expect(Transaction.from(fromBase64(ours)).recentBlockhash).toBe(lifetime.blockhash);
  });

  test.each([USDC_MINT, SOL_MINT])('refund of the taker escrow, input %s', async (inputMint) => {
    const taker = Keypair.generate().publicKey;
    const [takerEscrow] = takerEscrowAddress(programId, taker, new Uint8Array(32).fill(5));
    const ours = await refundTransaction({
      programId: DEFAULT_HTLC_PROGRAM_ID,
      taker: taker.toBase58(),
      takerEscrow: takerEscrow.toBase58(),
      inputMint,
      lifetime: { ...lifetime, lastValidBlockHeight: 100n },
    });
    const theirs = takerRefundTransaction(programId, lifetime, {
      taker,
      takerEscrow,
      inputMint: new PublicKey(inputMint),
    }).serialize({ requireAllSignatures: false, verifySignatures: false });
    expect(instructions(fromBase64(ours))).toEqual(instructions(theirs));
  });
});
