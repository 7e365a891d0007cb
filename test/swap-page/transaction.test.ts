// The swap page's wire-format signer (src/swap-page/browser/transaction.ts) against web3.js: for any legacy
// transaction, signing in the page puts exactly the bytes web3.js's partialSign would, in the same slot.
import { createPrivateKey, sign } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction } from '@solana/web3.js';
import { describe, expect } from 'vitest';
import {
  fromBase64,
  isSignedBy,
  parseTransaction,
  signTransaction,
  toBase64,
} from '../../src/swap-page/browser/transaction.ts';

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

describe('the swap page signs a transaction as web3.js does', () => {
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
      expect(parseTransaction(signed).signers.map((k) => new PublicKey(k).toBase58())).toEqual(
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
