// Our GatewayWallet on litesvm, with the deposit bytes a client builds for Circle's: USDC moves into the
// custody PDA and the depositor's balance grows in its GatewayDeposit PDA, by exactly the amount; what
// Circle's program refuses is refused here with the same numbers.

import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import type { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type BurnIntent,
  encodeSolanaBurnData,
  signEvm,
  solanaBurnIntentPayload,
} from '../../src/gateway/formats/index.ts';
import {
  decodeGatewayDeposit,
  decodeGatewayWallet,
  denylistAddress,
  depositAddress,
  depositInstruction,
  gatewayBurnInstructions,
  walletAddBurnSignerInstruction,
  walletCustodyAddress,
  walletStateAddress,
} from '../../src/gateway/solana/index.ts';
import type { Outcome } from '../programs/harness.ts';
import {
  attesterBytes32,
  BURN_SIGNER_KEY,
  expectOk,
  expectRefused,
  GatewayChain,
  type Keypair,
  STRANGER_KEY,
} from './harness.ts';

const ed25519Key = (k: Keypair): KeyObject =>
  createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), k.secretKey.subarray(0, 32)]),
    format: 'der',
    type: 'pkcs8',
  });

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

describe('GatewayWallet (ours): gateway_burn', () => {
  let chain: GatewayChain;
  let maker: Keypair;
  let makerUsdc: PublicKey;
  let feeAccount: PublicKey;

  beforeEach(() => {
    chain = new GatewayChain();
    chain.setUpWallet(100n);
    expectOk(
      chain.send(
        [
          walletAddBurnSignerInstruction({
            wallet: chain.gatewayWallet,
            owner: chain.admin.publicKey,
            signer: attesterBytes32(BURN_SIGNER_KEY),
          }),
        ],
        [chain.admin],
      ),
    );
    maker = chain.wallet();
    makerUsdc = chain.createTokenAccount(maker.publicKey, chain.usdc, 1_000_000_000n);
    // The fee recipient (the admin, by initialize) receives fees in its associated token account.
    feeAccount = chain.createTokenAccount(
      chain.admin.publicKey,
      chain.usdc,
      0n,
      getAssociatedTokenAddressSync(chain.usdc, chain.admin.publicKey, true),
    );
    chain.setSupply(chain.usdc, 1_000_000_000n);
    expectOk(chain.send([depositFor(maker, makerUsdc, 100_000_000n)], [maker]), 'deposit');
  });

  const depositFor = (owner: Keypair, from: PublicKey, amount: bigint) =>
    depositInstruction({
      wallet: chain.gatewayWallet,
      payer: owner.publicKey,
      owner: owner.publicKey,
      ownerTokenAccount: from,
      mint: chain.usdc,
      amount,
    });

  /** The maker's intent to move `value` from its Solana deposit to Base. */
  const intentOf = (depositor: Keypair, value: bigint, over: Partial<BurnIntent> = {}): BurnIntent => {
    const salt = new Uint8Array(32);
    crypto.getRandomValues(salt);
    return {
      maxBlockHeight: chain.slotNow() + 100n,
      maxFee: 1_000_000n,
      spec: {
        version: 1,
        sourceDomain: 5,
        destinationDomain: 6,
        sourceContract: chain.gatewayWallet.toBytes(),
        destinationContract: new Uint8Array(32).fill(0x22),
        sourceToken: chain.usdc.toBytes(),
        destinationToken: new Uint8Array(32).fill(0x83),
        sourceDepositor: depositor.publicKey.toBytes(),
        destinationRecipient: new Uint8Array(32).fill(0x44),
        sourceSigner: depositor.publicKey.toBytes(),
        destinationCaller: new Uint8Array(32),
        value,
        salt,
        hookData: new Uint8Array(),
      },
      ...over,
    };
  };

  const userSign = (signer: Keypair, intent: BurnIntent) =>
    new Uint8Array(sign(null, solanaBurnIntentPayload(intent), ed25519Key(signer)));

  const burnTx = async (
    intent: BurnIntent,
    fee: bigint,
    o: { signer?: Keypair; burnSigner?: `0x${string}` } = {},
  ): Promise<TransactionInstruction[]> => {
    const burnData = encodeSolanaBurnData({
      fee,
      userSignature: userSign(o.signer ?? maker, intent),
      intent,
    });
    return gatewayBurnInstructions({
      wallet: chain.gatewayWallet,
      payer: chain.admin.publicKey,
      mint: chain.usdc,
      feeRecipient: chain.admin.publicKey,
      burnData,
      burnSignature: await signEvm(burnData, o.burnSigner ?? BURN_SIGNER_KEY),
    });
  };

  const custody = () => walletCustodyAddress(chain.gatewayWallet, chain.usdc);
  const available = (owner: PublicKey) =>
    decodeGatewayDeposit(
      chain.account(depositAddress(chain.gatewayWallet, chain.usdc, owner))?.data ?? new Uint8Array(),
    ).availableAmount;

  it('burns the value and pays the fee out of custody, from the depositor balance, once', async () => {
    const ixs = await burnTx(intentOf(maker, 40_000_000n), 500_000n);
    const burned = expectOk(chain.send(ixs, [chain.admin]), 'gateway_burn');
    expect(available(maker.publicKey)).toBe(100_000_000n - 40_500_000n);
    expect(chain.tokenBalance(custody())).toBe(100_000_000n - 40_500_000n);
    expect(chain.tokenBalance(feeAccount)).toBe(500_000n);
    expect(chain.supply(chain.usdc)).toBe(1_000_000_000n - 40_000_000n);
    expect(burned.computeUnits).toBeLessThan(200_000n);
    expectRefused(chain.send(ixs, [chain.admin]), 'TransferSpecHashAlreadyUsed', 6045, 'gateway_wallet');
    expect(chain.tokenBalance(custody())).toBe(59_500_000n);
  });

  it('burns only what the deposit holds, as Circle does (the rest of custody belongs to others)', async () => {
    const other = chain.wallet();
    const otherUsdc = chain.createTokenAccount(other.publicKey, chain.usdc, 500_000_000n);
    chain.setSupply(chain.usdc, 1_500_000_000n);
    expectOk(chain.send([depositFor(other, otherUsdc, 500_000_000n)], [other]));
    expectOk(chain.send(await burnTx(intentOf(maker, 300_000_000n), 1_000n), [chain.admin]));
    expect(available(maker.publicKey)).toBe(0n);
    expect(available(other.publicKey)).toBe(500_000_000n);
    expect(chain.tokenBalance(custody())).toBe(500_000_000n);
    expect(chain.tokenBalance(feeAccount)).toBe(0n);
  });

  it("refuses a burn whose user signature is not the depositor's", async () => {
    const thief = chain.wallet();
    const outcome = chain.send(await burnTx(intentOf(maker, 40_000_000n), 0n, { signer: thief }), [
      chain.admin,
    ]);
    expect(outcome.ok).toBe(false);
    // The Ed25519 precompile refuses it before our program runs.
    expect(outcome.logs.some((l) => l.includes('gateway_wallet'))).toBe(false);
    expect(available(maker.publicKey)).toBe(100_000_000n);
  });

  it('refuses a burn without the Ed25519 check before it, or with a check that is not exactly the one expected', async () => {
    const intent = intentOf(maker, 40_000_000n);
    const [, burn] = await burnTx(intent, 0n);
    expectRefused(
      chain.send([burn as TransactionInstruction], [chain.admin]),
      'PreviousInstructionNotEd25519Program',
      6037,
      'gateway_wallet',
    );
    // The honest check with one byte more: the precompile still verifies the same signature, but Circle's
    // wallet (and ours) takes exactly one 16-byte header, so that nothing else rides along.
    const [honest] = await burnTx(intent, 0n);
    const elsewhere = {
      ...honest,
      data: Buffer.concat([honest?.data ?? Buffer.alloc(0), Buffer.from([0])]),
    } as TransactionInstruction;
    expectRefused(
      chain.send([elsewhere, burn as TransactionInstruction], [chain.admin]),
      'InvalidEd25519InstructionData',
      6038,
      'gateway_wallet',
    );
    expect(available(maker.publicKey)).toBe(100_000_000n);
  });

  it('refuses a burn signed by a key that is not a burn signer', async () => {
    const ixs = await burnTx(intentOf(maker, 40_000_000n), 0n, { burnSigner: STRANGER_KEY });
    expectRefused(chain.send(ixs, [chain.admin]), 'BurnSignerNotAuthorized', 6027, 'gateway_wallet');
  });

  it('refuses a fee above maxFee, and an expired intent', async () => {
    const greedy = await burnTx(intentOf(maker, 40_000_000n), 1_000_001n);
    expectRefused(chain.send(greedy, [chain.admin]), 'BurnFeeExceedsMaxFee', 6030, 'gateway_wallet');
    const intent = intentOf(maker, 40_000_000n, { maxBlockHeight: chain.slotNow() + 5n });
    const late = await burnTx(intent, 0n);
    chain.svm.warpToSlot(intent.maxBlockHeight + 1n);
    expectRefused(chain.send(late, [chain.admin]), 'BurnIntentExpired', 6029, 'gateway_wallet');
    expect(available(maker.publicKey)).toBe(100_000_000n);
  });

  it("refuses to burn the maker's intent from another depositor's balance", async () => {
    const other = chain.wallet();
    const otherUsdc = chain.createTokenAccount(other.publicKey, chain.usdc, 50_000_000n);
    expectOk(chain.send([depositFor(other, otherUsdc, 50_000_000n)], [other]));
    const [ed, burn] = await burnTx(intentOf(maker, 40_000_000n), 0n);
    const swapped = {
      ...burn,
      keys: burn?.keys.map((k, i) =>
        i === 5 ? { ...k, pubkey: depositAddress(chain.gatewayWallet, chain.usdc, other.publicKey) } : k,
      ),
    } as TransactionInstruction;
    expectRefused(
      chain.send([ed as TransactionInstruction, swapped], [chain.admin]),
      'SourceDepositorMismatch',
      6034,
      'gateway_wallet',
    );
    expect(available(other.publicKey)).toBe(50_000_000n);
  });
});
