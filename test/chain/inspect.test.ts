// inspectTransaction reads the lock out of a transaction, whatever a wallet added to it.

import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takerEscrowAddress } from '../../src/chain/htlc/index.ts';
import { inspectTransaction } from '../../src/chain/inspect.ts';
import {
  embeddedHarness,
  type Harness,
  SOL,
  secret,
  USDC,
  walletSign,
  walletSignWithPriorityFee,
} from './fixtures.ts';

describe('inspectTransaction', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await embeddedHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('finds the taker lock, its terms and the signers, also behind a wallet-prepended instruction', async () => {
    const taker = Keypair.generate();
    const s = secret();
    const now = await h.chain.now();
    const terms = { amount: 5n * 10n ** 6n, expiry: now + 600n, lockDeadline: now + 60n };
    const unsigned = await h.chain.buildTakerLock({
      taker: taker.publicKey,
      inputMint: USDC,
      outputMint: SOL,
      hashlock: s.hashlock,
      ...terms,
    });
    const before = inspectTransaction(unsigned.transactionBase64, h.chain.programId);
    expect(before.signature).toBeNull();
    expect(before.signedBy).toEqual([]);

    for (const signed of [walletSign(unsigned, taker), walletSignWithPriorityFee(unsigned, taker)]) {
      const seen = inspectTransaction(signed, h.chain.programId);
      expect(seen.signature).not.toBeNull();
      expect(seen.feePayer.equals(taker.publicKey)).toBe(true);
      expect(seen.signedBy.map(String)).toEqual([taker.publicKey.toBase58()]);
      expect(seen.locks).toHaveLength(1);
      const [lock] = seen.locks;
      expect(lock).toMatchObject({ kind: 'taker', ...terms });
      expect(lock?.escrow.equals(takerEscrowAddress(h.chain.programId, taker.publicKey, s.hashlock)[0])).toBe(
        true,
      );
      expect(lock?.recipient.equals(h.chain.makerWallet)).toBe(true);
      expect(lock?.mint.equals(USDC)).toBe(true);
      expect(Buffer.from(lock?.hashlock ?? []).equals(s.hashlock)).toBe(true);
    }
    expect(() => inspectTransaction('AAAA', h.chain.programId)).toThrow(/malformed/);
  });
});
