// A litesvm chain with our GatewayMinter and GatewayWallet deployed and set up the way the embedded chain
// will: the USDC mint's authority is the minter PDA, the minter's custody is minted by its token
// controller, one attester is enabled. Built on the HTLC programs' harness (accounts, signing, outcomes).

import { address } from '@solana/kit';
import { Keypair, type PublicKey } from '@solana/web3.js';
import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import {
  encodeMintAttestationSet,
  evmAddressBytes32,
  type MintAttestationSet,
  SOLANA_DOMAIN,
  signAttestation,
  type TransferSpec,
  transferSpecHash,
  zeroBytes32,
} from '../../src/gateway/formats/index.ts';
import {
  EMBEDDED_GATEWAY_MINTER_ID,
  EMBEDDED_GATEWAY_WALLET_ID,
  loadGatewayMinterProgram,
  loadGatewayWalletProgram,
  minterAddAttesterInstruction,
  minterAddTokenInstruction,
  minterCustodyAddress,
  minterInitializeInstruction,
  minterMintCustodyInstruction,
  minterStateAddress,
  walletAddTokenInstruction,
  walletInitializeInstruction,
} from '../../src/gateway/solana/index.ts';
import { expectOk, HtlcChain, type Outcome } from '../programs/harness.ts';

/** Anvil's second and third dev keys: a known attester and a key the minter does not know. */
export const ATTESTER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as const;
export const STRANGER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a' as const;
/** Anvil's fourth dev key: Gateway's burn signer on the wallet. */
export const BURN_SIGNER_KEY = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6' as const;
export const attesterBytes32 = (key: `0x${string}`) => evmAddressBytes32(privateKeyToAccount(key).address);

export const CUSTODY_FLOAT = 1_000_000_000_000n;

export class GatewayChain extends HtlcChain {
  readonly minter = EMBEDDED_GATEWAY_MINTER_ID;
  readonly gatewayWallet = EMBEDDED_GATEWAY_WALLET_ID;
  readonly admin: Keypair;
  readonly usdc: PublicKey;

  constructor() {
    super();
    this.svm.addProgram(address(this.minter.toBase58()), loadGatewayMinterProgram());
    this.admin = this.wallet();
    this.usdc = this.createMint(minterStateAddress(this.minter));
  }

  setUpMinter(): void {
    const admin = this.admin.publicKey;
    expectOk(
      this.send(
        [
          minterInitializeInstruction({
            minter: this.minter,
            payer: admin,
            upgradeAuthority: admin,
            localDomain: SOLANA_DOMAIN,
          }),
          minterAddAttesterInstruction({
            minter: this.minter,
            owner: admin,
            attester: attesterBytes32(ATTESTER_KEY),
          }),
          minterAddTokenInstruction({
            minter: this.minter,
            payer: admin,
            tokenController: admin,
            mint: this.usdc,
          }),
          minterMintCustodyInstruction({
            minter: this.minter,
            tokenController: admin,
            mint: this.usdc,
            amount: CUSTODY_FLOAT,
          }),
        ],
        [this.admin],
      ),
      'minter setup',
    );
  }

  setUpWallet(withdrawalDelay = 100n): void {
    this.svm.addProgram(address(this.gatewayWallet.toBase58()), loadGatewayWalletProgram());
    const admin = this.admin.publicKey;
    expectOk(
      this.send(
        [
          walletInitializeInstruction({
            wallet: this.gatewayWallet,
            payer: admin,
            upgradeAuthority: admin,
            localDomain: SOLANA_DOMAIN,
            withdrawalDelay,
          }),
          walletAddTokenInstruction({
            wallet: this.gatewayWallet,
            payer: admin,
            tokenController: admin,
            mint: this.usdc,
          }),
        ],
        [this.admin],
      ),
      'wallet setup',
    );
  }

  /** Sets a mint's supply, for tests that place token balances directly and then burn. */
  setSupply(mint: PublicKey, supply: bigint): void {
    const account = this.account(mint);
    if (!account) throw new Error('no such mint');
    const data = Buffer.from(account.data);
    data.writeBigUInt64LE(supply, 36);
    this.place(mint, data, account.owner, account.lamports);
  }

  supply(mint: PublicKey): bigint {
    return Buffer.from(this.account(mint)?.data ?? Buffer.alloc(44)).readBigUInt64LE(36);
  }

  custody(): PublicKey {
    return minterCustodyAddress(this.minter, this.usdc);
  }

  slotNow(): bigint {
    return this.svm.getClock().slot;
  }
}

/** A TransferSpec from an EVM depositor on Base to `recipient` (a Solana token account) on Solana. */
export function specFor(
  chain: GatewayChain,
  recipient: PublicKey,
  value: bigint,
  over: Partial<TransferSpec> = {},
) {
  const salt = new Uint8Array(32);
  crypto.getRandomValues(salt);
  return {
    version: 1,
    sourceDomain: 6,
    destinationDomain: SOLANA_DOMAIN,
    sourceContract: new Uint8Array(32).fill(0x77),
    destinationContract: chain.minter.toBytes(),
    sourceToken: new Uint8Array(32).fill(0x83),
    destinationToken: chain.usdc.toBytes(),
    sourceDepositor: new Uint8Array(32).fill(0x11),
    destinationRecipient: recipient.toBytes(),
    sourceSigner: new Uint8Array(32).fill(0x11),
    destinationCaller: zeroBytes32(),
    value,
    salt,
    hookData: new Uint8Array(),
    ...over,
  } satisfies TransferSpec;
}

/** The reduced attestation set Gateway would hand for `spec`, with `over` applied, valid for 100 slots. */
export function attestationFor(
  chain: GatewayChain,
  spec: TransferSpec,
  over: Partial<MintAttestationSet> = {},
) {
  return {
    version: 1,
    destinationDomain: spec.destinationDomain,
    destinationContract: spec.destinationContract,
    destinationCaller: spec.destinationCaller,
    maxBlockHeight: chain.slotNow() + 100n,
    attestations: [
      {
        destinationToken: spec.destinationToken,
        destinationRecipient: spec.destinationRecipient,
        value: spec.value,
        transferSpecHash: transferSpecHash(spec),
        hookData: spec.hookData,
      },
    ],
    ...over,
  } satisfies MintAttestationSet;
}

export async function signed(set: MintAttestationSet, key: `0x${string}` = ATTESTER_KEY) {
  const attestation = encodeMintAttestationSet(set);
  return { attestation, signature: await signAttestation(attestation, key) };
}

/** The outcome is a refusal by our program with Circle's error of that name and number. */
export function expectRefused(
  outcome: Outcome,
  name: string,
  code: number,
  program = 'gateway_minter',
): void {
  expect(outcome.ok, outcome.logs.join('\n')).toBe(false);
  expect(outcome.error).toBe(`Custom(${code})`);
  expect(
    outcome.logs.some((l) => l.includes(`${program}: error ${name}`)),
    outcome.logs.join('\n'),
  ).toBe(true);
}

export { expectOk, Keypair };
