// Fixture factory: one RFQ trade on a fresh chain — a taker swapping mint A for the maker's mint B —
// with both parties, a third party, every token account and the agreed HTLC terms.

import { createHash, randomBytes } from 'node:crypto';
import type { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import {
  cancelInstruction,
  closeInstruction,
  lockInstruction,
  makerEscrowAddress,
  redeemInstruction,
  refundInstruction,
  takerEscrowAddress,
  vaultAddress,
} from '../../src/chain/htlc/index.ts';
import { HtlcChain } from './harness.ts';

export const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());

export interface TradeOptions {
  chain?: HtlcChain;
  takerAmount?: bigint;
  makerAmount?: bigint;
  /** Starting balance of each party in each mint (a multiple of the amounts, so re-locks can be funded). */
  balance?: bigint;
  mintA?: PublicKey;
  mintB?: PublicKey;
}

export function makeTrade(options: TradeOptions = {}) {
  const chain = options.chain ?? new HtlcChain();
  const programId = chain.programId;
  const taker = chain.wallet();
  const maker = chain.wallet();
  const third = chain.wallet();
  const mintA = options.mintA ?? chain.createMint(third.publicKey);
  const mintB = options.mintB ?? chain.createMint(third.publicKey);
  const takerAmount = options.takerAmount ?? 1_000n;
  const makerAmount = options.makerAmount ?? 2_000n;
  const balance = options.balance ?? 10_000n;
  const accounts = {
    takerA: chain.createTokenAccount(taker.publicKey, mintA, balance),
    takerB: chain.createTokenAccount(taker.publicKey, mintB, balance),
    makerA: chain.createTokenAccount(maker.publicKey, mintA, balance),
    makerB: chain.createTokenAccount(maker.publicKey, mintB, balance),
    thirdA: chain.createTokenAccount(third.publicKey, mintA, balance),
    thirdB: chain.createTokenAccount(third.publicKey, mintB, balance),
  };
  const preimage = new Uint8Array(randomBytes(32));
  const hashlock = sha256(preimage);
  const start = chain.now();
  const terms = {
    lockDeadline: start + 120n,
    takerExpiry: start + 900n,
    makerDeadline: start + 480n,
    makerExpiry: start + 600n,
  };
  const [takerEscrow] = takerEscrowAddress(programId, taker.publicKey, hashlock);
  const [makerEscrow] = makerEscrowAddress(programId, takerEscrow);
  const [takerVault] = vaultAddress(programId, takerEscrow);
  const [makerVault] = vaultAddress(programId, makerEscrow);

  const takerLock = (
    overrides: Partial<Parameters<typeof lockInstruction>[0]> = {},
  ): TransactionInstruction =>
    lockInstruction({
      programId,
      initializer: taker.publicKey,
      recipient: maker.publicKey,
      mint: mintA,
      initializerTokenAccount: accounts.takerA,
      hashlock,
      amount: takerAmount,
      expiry: terms.takerExpiry,
      lockDeadline: terms.lockDeadline,
      ...overrides,
    });
  const makerLock = (
    overrides: Partial<Parameters<typeof lockInstruction>[0]> = {},
  ): TransactionInstruction =>
    lockInstruction({
      programId,
      initializer: maker.publicKey,
      recipient: taker.publicKey,
      mint: mintB,
      initializerTokenAccount: accounts.makerB,
      hashlock,
      amount: makerAmount,
      expiry: terms.makerExpiry,
      lockDeadline: terms.makerDeadline,
      takerEscrow: { address: takerEscrow, amount: takerAmount, mint: mintA, expiry: terms.takerExpiry },
      ...overrides,
    });

  /** Per escrow: who locked, who is paid, their token accounts in the escrowed mint. */
  const sides = {
    taker: {
      escrow: takerEscrow,
      vault: takerVault,
      initializer: taker,
      recipient: maker,
      mint: mintA,
      amount: takerAmount,
      expiry: terms.takerExpiry,
      initializerAccount: accounts.takerA,
      recipientAccount: accounts.makerA,
      thirdAccount: accounts.thirdA,
      otherMintRecipientAccount: accounts.makerB,
    },
    maker: {
      escrow: makerEscrow,
      vault: makerVault,
      initializer: maker,
      recipient: taker,
      mint: mintB,
      amount: makerAmount,
      expiry: terms.makerExpiry,
      initializerAccount: accounts.makerB,
      recipientAccount: accounts.takerB,
      thirdAccount: accounts.thirdB,
      otherMintRecipientAccount: accounts.takerA,
    },
  };
  type Side = (typeof sides)['taker'];

  const redeem = (side: Side, secret: Uint8Array = preimage, to: PublicKey = side.recipientAccount) =>
    redeemInstruction({ programId, escrow: side.escrow, recipientTokenAccount: to, preimage: secret });
  const refund = (side: Side, to: PublicKey = side.initializerAccount) =>
    refundInstruction({ programId, escrow: side.escrow, initializerTokenAccount: to });
  const cancel = (side: Side, signer: Keypair = side.recipient) =>
    cancelInstruction({
      programId,
      recipient: signer.publicKey,
      escrow: side.escrow,
      initializerTokenAccount: side.initializerAccount,
    });
  const close = (side: Side, signer: Keypair = side.initializer) =>
    closeInstruction({ programId, initializer: signer.publicKey, escrow: side.escrow });

  return {
    chain,
    programId,
    taker,
    maker,
    third,
    mintA,
    mintB,
    accounts,
    preimage,
    hashlock,
    terms,
    takerEscrow,
    makerEscrow,
    takerVault,
    makerVault,
    sides,
    takerLock,
    makerLock,
    redeem,
    refund,
    cancel,
    close,
  };
}

export type Trade = ReturnType<typeof makeTrade>;
export type TradeSide = Trade['sides']['taker'];
