// Our GatewayWallet on litesvm, with the deposit bytes a client builds for Circle's: USDC moves into the
// custody PDA and the depositor's balance grows in its GatewayDeposit PDA, by exactly the amount; what
// Circle's program refuses is refused here with the same numbers.

import type { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  decodeGatewayDeposit,
  decodeGatewayWallet,
  denylistAddress,
  depositAddress,
  depositInstruction,
  walletCustodyAddress,
  walletStateAddress,
} from '../../src/gateway/solana/index.ts';
import type { Outcome } from '../programs/harness.ts';
import { expectOk, expectRefused, GatewayChain, type Keypair } from './harness.ts';

const expectAnchorRefused = (outcome: Outcome, code: number) => {
  expect(outcome.ok, outcome.logs.join('\n')).toBe(false);
  expect(outcome.error).toBe(`Custom(${code})`);
  expect(outcome.logs.some((l) => l.includes('gateway_wallet: error Anchor'))).toBe(true);
};

describe('GatewayWallet (ours): deposit', () => {
  let chain: GatewayChain;
  let maker: Keypair;
  let makerUsdc: PublicKey;

  beforeEach(() => {
    chain = new GatewayChain();
    chain.setUpWallet(100n);
    maker = chain.wallet();
    makerUsdc = chain.createTokenAccount(maker.publicKey, chain.usdc, 1_000_000_000n);
  });

  const deposit = (amount: bigint, over: Partial<Parameters<typeof depositInstruction>[0]> = {}) =>
    depositInstruction({
      wallet: chain.gatewayWallet,
      payer: maker.publicKey,
      owner: maker.publicKey,
      ownerTokenAccount: makerUsdc,
      mint: chain.usdc,
      amount,
      ...over,
    });
  const custody = () => walletCustodyAddress(chain.gatewayWallet, chain.usdc);
  const balanceOf = (owner: PublicKey) => {
    const account = chain.account(depositAddress(chain.gatewayWallet, chain.usdc, owner));
    return account ? decodeGatewayDeposit(account.data) : undefined;
  };
  const withKey = (
    ix: TransactionInstruction,
    index: number,
    change: Partial<TransactionInstruction['keys'][0]>,
  ) =>
    ({
      ...ix,
      keys: ix.keys.map((k, i) => (i === index ? { ...k, ...change } : k)),
    }) as TransactionInstruction;

  it('is set up as Circle lays its state out', () => {
    const state = decodeGatewayWallet(
      chain.account(walletStateAddress(chain.gatewayWallet))?.data ?? new Uint8Array(),
    );
    expect(state.owner.equals(chain.admin.publicKey)).toBe(true);
    expect(state.localDomain).toBe(5);
    expect(state.version).toBe(1);
    expect(state.withdrawalDelay).toBe(100n);
    expect(state.supportedTokens.map((t) => t.toBase58())).toEqual([chain.usdc.toBase58()]);
    expect(state.custodyTokenAccountBumps).toHaveLength(1);
    expect(state.burnSigners).toEqual([]);
    expect(chain.tokenBalance(custody())).toBe(0n);
  });

  it('moves exactly the amount into custody and credits the depositor, deposit after deposit', () => {
    expectOk(chain.send([deposit(10_000_000n)], [maker]), 'first deposit');
    expect(chain.tokenBalance(custody())).toBe(10_000_000n);
    expect(chain.tokenBalance(makerUsdc)).toBe(990_000_000n);
    const first = balanceOf(maker.publicKey);
    expect(first?.depositor.equals(maker.publicKey)).toBe(true);
    expect(first?.tokenMint.equals(chain.usdc)).toBe(true);
    expect(first?.availableAmount).toBe(10_000_000n);
    expect(first?.withdrawingAmount).toBe(0n);
    expectOk(chain.send([deposit(15_000_000n)], [maker]), 'second deposit');
    expect(balanceOf(maker.publicKey)?.availableAmount).toBe(25_000_000n);
    expect(chain.tokenBalance(custody())).toBe(25_000_000n);
  });

  it('another payer may pay the fees and rent; the owner is credited', () => {
    const sponsor = chain.wallet();
    expectOk(chain.send([deposit(5n, { payer: sponsor.publicKey })], [sponsor, maker]));
    expect(balanceOf(maker.publicKey)?.availableAmount).toBe(5n);
    expect(balanceOf(sponsor.publicKey)).toBeUndefined();
  });

  it('refuses a zero amount, and more than the account holds (the token program refuses)', () => {
    expectRefused(chain.send([deposit(0n)], [maker]), 'InvalidDepositAmount', 6011, 'gateway_wallet');
    const tooMuch = chain.send([deposit(1_000_000_001n)], [maker]);
    expect(tooMuch.ok).toBe(false);
    expect(tooMuch.error).toBe('Custom(1)'); // spl-token InsufficientFunds
    expect(chain.tokenBalance(custody())).toBe(0n);
    expect(balanceOf(maker.publicKey)).toBeUndefined();
  });

  it("refuses to take from someone else's token account or to credit someone else's deposit", () => {
    const other = chain.wallet();
    const otherUsdc = chain.createTokenAccount(other.publicKey, chain.usdc, 50n);
    expectAnchorRefused(chain.send([deposit(5n, { ownerTokenAccount: otherUsdc })], [maker]), 2015);
    const foreignDeposit = withKey(deposit(5n), 5, {
      pubkey: depositAddress(chain.gatewayWallet, chain.usdc, other.publicKey),
    });
    expectAnchorRefused(chain.send([foreignDeposit], [maker]), 2006);
    const unsigned = withKey(deposit(5n, { payer: other.publicKey }), 1, { isSigner: false });
    expectAnchorRefused(chain.send([unsigned], [other]), 3010);
    expect(chain.tokenBalance(otherUsdc)).toBe(50n);
  });

  it('refuses a custody account that is not the wallet custody of a supported token', () => {
    const otherMint = chain.createMint(maker.publicKey);
    const fake = chain.createTokenAccount(walletStateAddress(chain.gatewayWallet), chain.usdc, 0n);
    expectAnchorRefused(chain.send([withKey(deposit(5n), 4, { pubkey: fake })], [maker]), 2006);
    const foreignCustody = chain.createTokenAccount(walletStateAddress(chain.gatewayWallet), otherMint, 0n);
    expectRefused(
      chain.send([withKey(deposit(5n), 4, { pubkey: foreignCustody })], [maker]),
      'TokenNotSupported',
      6009,
      'gateway_wallet',
    );
  });

  it('refuses a denylisted depositor', () => {
    chain.place(
      denylistAddress(chain.gatewayWallet, maker.publicKey),
      Uint8Array.from([21, 3]),
      chain.gatewayWallet,
      10_000_000n,
    );
    expectRefused(chain.send([deposit(5n)], [maker]), 'AccountDenylisted', 6005, 'gateway_wallet');
    expect(chain.tokenBalance(custody())).toBe(0n);
  });
});
