// The maker lock names what the taker escrow must hold — exactly the agreed amount of exactly the agreed
// mint — and the program refuses it against any other: a taker escrow re-created at the same address after a
// fork (same initializer and hashlock, so the same PDA) for 1 raw unit, or of a look-alike mint, cannot carry
// the maker's lock, signed once for the agreed one.

import { TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { decodeEscrow } from '../../src/chain/htlc/index.ts';
import { makeTrade, type Trade } from './fixtures.ts';
import { expectOk } from './harness.ts';

/** The taker escrow at the trade's address holding `amount` of `mint` (from the taker's own account of it). */
function takerEscrowOf(t: Trade, amount: bigint, mint = t.mintA) {
  const source = mint.equals(t.mintA)
    ? t.accounts.takerA
    : t.chain.createTokenAccount(t.taker.publicKey, mint, amount);
  expectOk(
    t.chain.send([t.takerLock({ amount, mint, initializerTokenAccount: source })], [t.taker]),
    'taker lock',
  );
  const escrow = decodeEscrow(t.chain.account(t.takerEscrow)?.data ?? new Uint8Array());
  expect({ amount: escrow.amount, mint: escrow.mint.toBase58() }).toEqual({ amount, mint: mint.toBase58() });
}

/** The maker's honest lock (the agreed taker amount and mint in its data), its outcome and the maker's balance. */
function makerLocks(t: Trade) {
  const before = t.chain.tokenBalance(t.accounts.makerB);
  const outcome = t.chain.send([t.makerLock()], [t.maker]);
  return { outcome, lost: before - t.chain.tokenBalance(t.accounts.makerB) };
}

describe('htlc program, a maker lock holds the taker escrow to the agreed amount and mint', () => {
  it('against a taker escrow of the agreed amount and mint: locked', () => {
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

  it('a lock whose data has the other kind’s length is refused: a maker lock of 90 bytes, a taker lock of 130', () => {
    const t = makeTrade();
    takerEscrowOf(t, t.sides.taker.amount);
    const maker = t.makerLock();
    const short = new TransactionInstruction({ ...maker, data: maker.data.subarray(0, 90) });
    expect(t.chain.send([short], [t.maker]).errorName).toBe('InvalidInstruction');
    const taker = t.takerLock();
    const long = new TransactionInstruction({
      ...taker,
      data: Buffer.concat([taker.data, Buffer.alloc(40)]),
    });
    expect(t.chain.send([long], [t.taker]).errorName).toBe('InvalidInstruction');
  });
});
