// Boundaries the random suite does not reach: the largest amount, malformed instructions, foreign
// mints and system programs, and the exact expiry instant for redeem.

import { ACCOUNT_SIZE, TOKEN_2022_PROGRAM_ID } from '@solana/spl-token';
import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { makeTrade } from './fixtures.ts';
import { expectOk } from './harness.ts';

const U64_MAX = 2n ** 64n - 1n;

describe('htlc program, boundaries', () => {
  it('escrows and pays out u64::MAX base units', () => {
    const t = makeTrade({ takerAmount: U64_MAX, balance: U64_MAX });
    expectOk(t.chain.send([t.takerLock()], [t.taker]), 'lock u64::MAX');
    expect(t.chain.tokenBalance(t.takerVault)).toBe(U64_MAX);
    const makerA = t.chain.createTokenAccount(t.maker.publicKey, t.mintA, 0n);
    expectOk(t.chain.send([t.redeem(t.sides.taker, t.preimage, makerA)], [t.third]), 'redeem u64::MAX');
    expect(t.chain.tokenBalance(makerA)).toBe(U64_MAX);
    expect(t.chain.tokenBalance(t.accounts.takerA)).toBe(0n);
  });

  it('refuses a redeem at exactly the expiry instant and allows it one second before', () => {
    const t = makeTrade();
    expectOk(t.chain.send([t.takerLock()], [t.taker]));
    t.chain.setTime(t.terms.takerExpiry);
    expect(t.chain.send([t.redeem(t.sides.taker)], [t.third]).errorName).toBe('EscrowExpired');
    const u = makeTrade();
    expectOk(u.chain.send([u.takerLock()], [u.taker]));
    u.chain.setTime(u.terms.takerExpiry - 1n);
    expectOk(u.chain.send([u.redeem(u.sides.taker)], [u.third]), 'redeem one second before expiry');
  });

  it('refuses a lock whose expiry is not in the future (lock at its deadline, expiry == deadline)', () => {
    const t = makeTrade();
    t.chain.setTime(t.terms.lockDeadline);
    const outcome = t.chain.send([t.takerLock({ expiry: t.terms.lockDeadline })], [t.taker]);
    expect(outcome.errorName).toBe('ExpiryNotInFuture');
  });

  it('refuses mints that are not classic SPL Token mints', () => {
    const t = makeTrade();
    const fake = PublicKey.unique();
    t.chain.place(fake, new Uint8Array(82), TOKEN_2022_PROGRAM_ID, 10_000_000n);
    expect(t.chain.send([t.takerLock({ mint: fake })], [t.taker]).errorName).toBe('InvalidMint');
    // The mint of the other asset: the source account does not hold it.
    expect(t.chain.send([t.takerLock({ mint: t.mintB })], [t.taker]).errorName).toBe(
      'TokenAccountMintMismatch',
    );
  });

  it('refuses a substituted system program and read-only accounts', () => {
    const t = makeTrade();
    const ix = t.takerLock();
    ix.keys[6] = { pubkey: PublicKey.unique(), isSigner: false, isWritable: false };
    expect(t.chain.send([ix], [t.taker]).errorName).toBe('InvalidSystemProgram');
    const readonly = t.takerLock();
    if (readonly.keys[2]) readonly.keys[2].isWritable = false;
    expect(t.chain.send([readonly], [t.taker]).errorName).toBe('AccountNotWritable');
  });

  it('refuses malformed instructions by name', () => {
    const t = makeTrade();
    const send = (data: number[], keys = t.takerLock().keys) =>
      t.chain.send(
        [new TransactionInstruction({ programId: t.programId, keys, data: Buffer.from(data) })],
        [t.taker],
      ).errorName;
    expect(send([])).toBe('InvalidInstruction');
    expect(send([9])).toBe('InvalidInstruction');
    expect(send([0, 1, 2])).toBe('InvalidInstruction');
    expect(send([1, ...new Array(31).fill(0)])).toBe('InvalidInstruction');
    const lock = t.takerLock();
    expect(send([...lock.data], lock.keys.slice(0, 6))).toBe('NotEnoughAccounts');
  });

  it('returns escrow and vault rent to the initializer even when a third party pays the fees', () => {
    const t = makeTrade();
    expectOk(t.chain.send([t.takerLock()], [t.taker]));
    expectOk(t.chain.send([t.cancel(t.sides.taker)], [t.maker]));
    const before = t.chain.lamports(t.taker.publicKey);
    const escrowRent = t.chain.lamports(t.takerEscrow);
    const ix = t.close(t.sides.taker);
    expectOk(t.chain.send([ix], [t.third, t.taker]), 'close paid by a third party');
    expect(t.chain.lamports(t.taker.publicKey)).toBe(before + escrowRent + t.chain.rent(ACCOUNT_SIZE));
  });
});
