// The HTLC program's honest paths: a full atomic swap, refunds after expiry, the recipient's cancel,
// wrapped SOL, and the rent that always returns to the initializer.

import { ACCOUNT_SIZE, NATIVE_MINT } from '@solana/spl-token';
import { SystemProgram } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import {
  closeInstruction,
  decodeEscrow,
  HTLC_ESCROW_SIZE,
  HTLC_ESCROW_VERSION,
} from '../../src/chain/htlc/index.ts';
import { makeTrade } from './fixtures.ts';
import { expectOk, HtlcChain } from './harness.ts';

describe('htlc program, honest paths', () => {
  it('swaps atomically: taker lock, maker lock, taker redeem reveals the preimage, maker redeem, both close', () => {
    const t = makeTrade();
    const { chain } = t;
    expectOk(chain.send([t.takerLock()], [t.taker]), 'taker lock');

    const takerState = decodeEscrow(chain.account(t.takerEscrow)?.data ?? new Uint8Array());
    expect(takerState).toMatchObject({
      version: HTLC_ESCROW_VERSION,
      kind: 'taker',
      status: 'locked',
      amount: t.sides.taker.amount,
      expiry: t.terms.takerExpiry,
      lockDeadline: t.terms.lockDeadline,
      lockedAt: chain.now(),
      preimage: null,
      takerEscrow: null,
    });
    expect(takerState.initializer.equals(t.taker.publicKey)).toBe(true);
    expect(takerState.recipient.equals(t.maker.publicKey)).toBe(true);
    expect(takerState.mint.equals(t.mintA)).toBe(true);
    expect(takerState.vault.equals(t.takerVault)).toBe(true);
    expect(Buffer.from(takerState.hashlock)).toEqual(Buffer.from(t.hashlock));
    expect(chain.tokenBalance(t.takerVault)).toBe(t.sides.taker.amount);

    chain.advance(10n);
    expectOk(chain.send([t.makerLock()], [t.maker]), 'maker lock');
    const makerState = decodeEscrow(chain.account(t.makerEscrow)?.data ?? new Uint8Array());
    expect(makerState.kind).toBe('maker');
    expect(makerState.takerEscrow?.equals(t.takerEscrow)).toBe(true);

    // The taker redeems the maker escrow; anyone could submit it, the third party pays the fee here.
    chain.advance(10n);
    const takerB = chain.tokenBalance(t.accounts.takerB);
    expectOk(chain.send([t.redeem(t.sides.maker)], [t.third]), 'taker redeem');
    expect(chain.tokenBalance(t.accounts.takerB)).toBe(takerB + t.sides.maker.amount);
    const revealed = decodeEscrow(chain.account(t.makerEscrow)?.data ?? new Uint8Array());
    expect(revealed.status).toBe('redeemed');
    expect(Buffer.from(revealed.preimage ?? [])).toEqual(Buffer.from(t.preimage));

    // The maker reads the preimage from the chain and redeems the taker escrow with it.
    const makerA = chain.tokenBalance(t.accounts.makerA);
    expectOk(
      chain.send([t.redeem(t.sides.taker, revealed.preimage ?? new Uint8Array())], [t.maker]),
      'maker redeem',
    );
    expect(chain.tokenBalance(t.accounts.makerA)).toBe(makerA + t.sides.taker.amount);

    // Closing returns both escrow's and vault's rent to each initializer.
    const rent = chain.rent(HTLC_ESCROW_SIZE) + chain.rent(ACCOUNT_SIZE);
    for (const side of [t.sides.taker, t.sides.maker]) {
      const before = chain.lamports(side.initializer.publicKey);
      const closed = expectOk(chain.send([t.close(side)], [side.initializer]), 'close');
      expect(closed.logs).toContain('Program log: htlc: closed');
      expect(chain.lamports(side.initializer.publicKey)).toBe(before + rent - 5_000n);
      expect(chain.account(side.escrow)).toBeNull();
      expect(chain.account(side.vault)).toBeNull();
    }
  });

  it('refunds the initializer once chain time reaches the expiry, and not a second earlier', () => {
    const t = makeTrade();
    const { chain } = t;
    const start = chain.tokenBalance(t.accounts.takerA);
    expectOk(chain.send([t.takerLock()], [t.taker]));
    chain.setTime(t.terms.takerExpiry - 1n);
    expect(chain.send([t.refund(t.sides.taker)], [t.third]).errorName).toBe('EscrowNotExpired');
    chain.setTime(t.terms.takerExpiry);
    const refunded = expectOk(chain.send([t.refund(t.sides.taker)], [t.third]), 'refund');
    expect(refunded.logs).toContain('Program log: htlc: refunded');
    expect(chain.tokenBalance(t.accounts.takerA)).toBe(start);
    expect(decodeEscrow(chain.account(t.takerEscrow)?.data ?? new Uint8Array()).status).toBe('refunded');
    expectOk(chain.send([t.close(t.sides.taker)], [t.taker]), 'close');
  });

  it('lets the recipient cancel at once, returning the funds to the initializer', () => {
    const t = makeTrade();
    const { chain } = t;
    const start = chain.tokenBalance(t.accounts.takerA);
    expectOk(chain.send([t.takerLock()], [t.taker]));
    const cancelled = expectOk(chain.send([t.cancel(t.sides.taker)], [t.maker]), 'cancel');
    expect(cancelled.logs).toContain('Program log: htlc: cancelled');
    expect(chain.tokenBalance(t.accounts.takerA)).toBe(start);
    expect(decodeEscrow(chain.account(t.takerEscrow)?.data ?? new Uint8Array()).status).toBe('cancelled');
    expectOk(chain.send([t.close(t.sides.taker)], [t.taker]), 'close');
  });

  it('escrows wrapped SOL and returns its lamports with the tokens', () => {
    const chain = new HtlcChain({ nativeMints: true });
    const t = makeTrade({ chain, mintA: NATIVE_MINT, takerAmount: 1_000_000_000n, balance: 3_000_000_000n });
    expectOk(chain.send([t.takerLock()], [t.taker]), 'lock wSOL');
    expect(chain.tokenBalance(t.takerVault)).toBe(1_000_000_000n);
    expect(chain.lamports(t.takerVault)).toBe(chain.rent(ACCOUNT_SIZE) + 1_000_000_000n);
    expectOk(chain.send([t.makerLock()], [t.maker]));
    expectOk(chain.send([t.redeem(t.sides.maker)], [t.taker]));
    const makerLamports = chain.lamports(t.accounts.makerA);
    expectOk(chain.send([t.redeem(t.sides.taker)], [t.maker]));
    expect(chain.lamports(t.accounts.makerA)).toBe(makerLamports + 1_000_000_000n);
    expect(chain.tokenBalance(t.accounts.makerA)).toBe(4_000_000_000n);
    expectOk(chain.send([t.close(t.sides.taker)], [t.taker]));
  });

  it('locks exactly at the lock deadline and refuses one second later', () => {
    const t = makeTrade();
    t.chain.setTime(t.terms.lockDeadline);
    expectOk(t.chain.send([t.takerLock()], [t.taker]), 'lock at deadline');
    const late = makeTrade({ chain: t.chain });
    t.chain.setTime(late.terms.lockDeadline + 1n);
    expect(t.chain.send([late.takerLock()], [late.taker]).errorName).toBe('LockDeadlinePassed');
  });

  it('sweeps tokens sent to a settled vault to the initializer on close', () => {
    const t = makeTrade();
    const { chain } = t;
    expectOk(chain.send([t.takerLock()], [t.taker]));
    expectOk(chain.send([t.cancel(t.sides.taker)], [t.maker]));
    // Someone donates tokens to the empty vault to make CloseAccount fail.
    const vault = chain.account(t.takerVault);
    if (!vault) throw new Error('vault missing');
    const data = Buffer.from(vault.data);
    data.writeBigUInt64LE(7n, 64);
    chain.place(t.takerVault, data, vault.owner, vault.lamports);
    expect(chain.send([t.close(t.sides.taker)], [t.taker]).errorName).toBe('VaultNotEmpty');
    const ix = closeInstruction({
      programId: t.programId,
      initializer: t.taker.publicKey,
      escrow: t.takerEscrow,
      initializerTokenAccount: t.accounts.takerA,
    });
    const before = chain.tokenBalance(t.accounts.takerA);
    expectOk(chain.send([ix], [t.taker]), 'close with sweep');
    expect(chain.tokenBalance(t.accounts.takerA)).toBe(before + 7n);
  });

  it('locks even when someone pre-funded the escrow and vault addresses with lamports', () => {
    const t = makeTrade();
    const { chain } = t;
    chain.place(t.takerEscrow, new Uint8Array(), SystemProgram.programId, 1_000n);
    chain.place(t.takerVault, new Uint8Array(), SystemProgram.programId, 3_000_000n);
    expectOk(chain.send([t.takerLock()], [t.taker]), 'lock over pre-funded addresses');
    expect(chain.tokenBalance(t.takerVault)).toBe(t.sides.taker.amount);
    expect(chain.lamports(t.takerEscrow)).toBe(chain.rent(HTLC_ESCROW_SIZE));
  });
});
