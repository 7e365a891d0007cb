// The maker lock names what the taker escrow must hold — exactly the agreed amount of exactly the agreed
// mint — and when it must expire — exactly the agreed taker expiry — and the program refuses it against any
// other: a taker escrow re-created at the same address after a fork (same initializer and hashlock, so the same
// PDA) for 1 raw unit, of a look-alike mint, or expiring one second after the maker lock (squeezing the maker's
// time to redeem it after a last-moment reveal), cannot carry the maker's lock, signed once for the agreed one.

import { TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { decodeEscrow } from '../../src/chain/htlc/index.ts';
import { makeTrade, type Trade } from './fixtures.ts';
import { expectOk } from './harness.ts';

/**
 * The taker escrow at the trade's address holding `amount` of `mint` (from the taker's own account of it) and
 * expiring at `expiry`.
 */
function takerEscrowOf(t: Trade, amount: bigint, mint = t.mintA, expiry = t.terms.takerExpiry) {
  const source = mint.equals(t.mintA)
    ? t.accounts.takerA
    : t.chain.createTokenAccount(t.taker.publicKey, mint, amount);
  expectOk(
    t.chain.send([t.takerLock({ amount, mint, expiry, initializerTokenAccount: source })], [t.taker]),
    'taker lock',
  );
  const escrow = decodeEscrow(t.chain.account(t.takerEscrow)?.data ?? new Uint8Array());
  expect({ amount: escrow.amount, mint: escrow.mint.toBase58(), expiry: escrow.expiry }).toEqual({
    amount,
    mint: mint.toBase58(),
    expiry,
  });
}

/** The maker's honest lock (the agreed taker amount, mint and expiry in its data), its outcome and the maker's balance. */
function makerLocks(t: Trade) {
  const before = t.chain.tokenBalance(t.accounts.makerB);
  const outcome = t.chain.send([t.makerLock()], [t.maker]);
  return { outcome, lost: before - t.chain.tokenBalance(t.accounts.makerB) };
}

describe('htlc program, a maker lock holds the taker escrow to the agreed amount, mint and expiry', () => {
  it('against a taker escrow of the agreed amount and mint, expiring exactly when agreed: locked', () => {
    const t = makeTrade();
    takerEscrowOf(t, t.sides.taker.amount);
    const { outcome, lost } = makerLocks(t);
    expectOk(outcome, 'maker lock');
    expect(lost).toBe(t.sides.maker.amount);
    expect(t.chain.tokenBalance(t.makerVault)).toBe(t.sides.maker.amount);
  });

  it('against a taker escrow of a smaller amount (1 raw unit) at the same address: TakerEscrowAmountMismatch, nothing moves', () => {
    const t = makeTrade();
    takerEscrowOf(t, 1n);
    const { outcome, lost } = makerLocks(t);
    expect(outcome.errorName, outcome.logs.join('\n')).toBe('TakerEscrowAmountMismatch');
    expect(lost).toBe(0n);
    expect(t.chain.account(t.makerEscrow)).toBeNull();
  });

  it('against a taker escrow of more than agreed: refused too — exactly the agreed amount', () => {
    const t = makeTrade();
    takerEscrowOf(t, t.sides.taker.amount + 1n);
    const { outcome } = makerLocks(t);
    expect(outcome.errorName).toBe('TakerEscrowAmountMismatch');
  });

  it('against a taker escrow of the agreed amount of another (look-alike) mint: TakerEscrowMintMismatch, nothing moves', () => {
    const t = makeTrade();
    // Same decimals, same authority, same amount: only the mint's address tells it apart.
    const lookalike = t.chain.createMint(t.third.publicKey);
    takerEscrowOf(t, t.sides.taker.amount, lookalike);
    const { outcome, lost } = makerLocks(t);
    expect(outcome.errorName, outcome.logs.join('\n')).toBe('TakerEscrowMintMismatch');
    expect(lost).toBe(0n);
    expect(t.chain.account(t.makerEscrow)).toBeNull();
  });

  it('the mint is judged before the amount', () => {
    const t = makeTrade();
    takerEscrowOf(t, 1n, t.chain.createMint(t.third.publicKey));
    expect(makerLocks(t).outcome.errorName).toBe('TakerEscrowMintMismatch');
  });

  it.each([
    ['one second later', 1n],
    ['one second earlier', -1n],
  ])(
    'against a taker escrow expiring %s than agreed: TakerEscrowExpiryMismatch, nothing moves',
    (_, shift) => {
      const t = makeTrade();
      takerEscrowOf(t, t.sides.taker.amount, t.mintA, t.terms.takerExpiry + shift);
      const { outcome, lost } = makerLocks(t);
      expect(outcome.errorName, outcome.logs.join('\n')).toBe('TakerEscrowExpiryMismatch');
      expect(lost).toBe(0n);
      expect(t.chain.account(t.makerEscrow)).toBeNull();
    },
  );

  it('against a taker escrow expiring one second after the maker lock (strictly after it, as the old check asked): refused', () => {
    const t = makeTrade();
    takerEscrowOf(t, t.sides.taker.amount, t.mintA, t.terms.makerExpiry + 1n);
    const { outcome, lost } = makerLocks(t);
    expect(outcome.errorName, outcome.logs.join('\n')).toBe('TakerEscrowExpiryMismatch');
    expect(lost).toBe(0n);
  });

  it('the expiry not before the taker escrow’s is still ExpiryNotBeforeTaker, judged first', () => {
    const t = makeTrade();
    takerEscrowOf(t, t.sides.taker.amount);
    const late = t.makerLock({ expiry: t.terms.takerExpiry });
    expect(t.chain.send([late], [t.maker]).errorName).toBe('ExpiryNotBeforeTaker');
  });

  it('the amount is judged before the expiry', () => {
    const t = makeTrade();
    takerEscrowOf(t, 1n, t.mintA, t.terms.takerExpiry + 1n);
    expect(makerLocks(t).outcome.errorName).toBe('TakerEscrowAmountMismatch');
  });

  it('a lock whose data has another length is refused: a maker lock of 90 or 130 bytes (the layouts before), a taker lock of 138', () => {
    const t = makeTrade();
    takerEscrowOf(t, t.sides.taker.amount);
    const maker = t.makerLock();
    for (const size of [90, 130]) {
      const short = new TransactionInstruction({ ...maker, data: maker.data.subarray(0, size) });
      expect(t.chain.send([short], [t.maker]).errorName).toBe('InvalidInstruction');
    }
    const taker = t.takerLock();
    const long = new TransactionInstruction({
      ...taker,
      data: Buffer.concat([taker.data, Buffer.alloc(48)]),
    });
    expect(t.chain.send([long], [t.taker]).errorName).toBe('InvalidInstruction');
  });
});
