// Instruction builders for Circle's GatewayMinter and GatewayWallet, whose account orders, discriminators
// and Borsh arguments our programs share: circlefin/solana-gateway-contracts programs/*/src/instructions/
// and the IDL in circlefin/skills use-gateway/references/solana-to-solana.md (gatewayMint and its
// remaining accounts: custody, recipient, used-hash PDA per attestation element).

import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  getAssociatedTokenAddressSync,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import {
  type AccountMeta,
  PublicKey,
  SYSVAR_INSTRUCTIONS_PUBKEY,
  SystemProgram,
  TransactionInstruction,
} from '@solana/web3.js';
import {
  BURN_DATA_OFFSETS,
  BURN_INTENT_OFFSETS,
  decodeMintAttestationSet,
  decodeSolanaBurnData,
  GATEWAY_MINTER_INSTRUCTIONS,
  GATEWAY_WALLET_INSTRUCTIONS,
  TRANSFER_SPEC_OFFSETS,
  transferSpecHash,
} from '../formats/index.ts';
import {
  denylistAddress,
  depositAddress,
  eventAuthorityAddress,
  minterCustodyAddress,
  minterStateAddress,
  usedTransferSpecHashAddress,
  walletCustodyAddress,
  walletStateAddress,
} from './addresses.ts';

/** Ours, not Circle's: the token controller mints into the minter's custody (the minter PDA being the
 * mint authority of the embedded USDC). programs/gateway-minter/README.md. */
export const MINT_CUSTODY_DISCRIMINATOR = [12, 100] as const;

const BPF_LOADER_UPGRADEABLE = new PublicKey('BPFLoaderUpgradeab1e11111111111111111111111');

const signerW = (pubkey: PublicKey): AccountMeta => ({ pubkey, isSigner: true, isWritable: true });
const signer = (pubkey: PublicKey): AccountMeta => ({ pubkey, isSigner: true, isWritable: false });
const w = (pubkey: PublicKey): AccountMeta => ({ pubkey, isSigner: false, isWritable: true });
const r = (pubkey: PublicKey): AccountMeta => ({ pubkey, isSigner: false, isWritable: false });

const eventAccounts = (program: PublicKey): AccountMeta[] => [r(eventAuthorityAddress(program)), r(program)];

const u32le = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

/** Borsh Vec<u8>: u32 little-endian length, then the bytes. */
const borshBytes = (bytes: Uint8Array) => Buffer.concat([u32le(bytes.length), bytes]);

const data = (discriminator: readonly [number, number], ...parts: Uint8Array[]) =>
  Buffer.concat([Buffer.from(discriminator), ...parts]);

/** The ProgramData account of a program deployed by the upgradeable loader. */
const programDataAddress = (program: PublicKey) =>
  PublicKey.findProgramAddressSync([program.toBytes()], BPF_LOADER_UPGRADEABLE)[0];

export interface GatewayMintArgs {
  minter: PublicKey;
  payer: PublicKey;
  /** Must be the attestation's destination caller unless that is all zeros. */
  destinationCaller: PublicKey;
  /** The reduced attestation set, as the Gateway API returns it. */
  attestation: Uint8Array;
  signature: Uint8Array;
}

/** gatewayMint, its remaining accounts derived from the attestation's elements. */
export function gatewayMintInstruction(a: GatewayMintArgs): TransactionInstruction {
  const set = decodeMintAttestationSet(a.attestation);
  const remaining = set.attestations.flatMap((e) => [
    w(minterCustodyAddress(a.minter, new PublicKey(e.destinationToken))),
    w(new PublicKey(e.destinationRecipient)),
    w(usedTransferSpecHashAddress(a.minter, e.transferSpecHash)),
  ]);
  return new TransactionInstruction({
    programId: a.minter,
    keys: [
      signerW(a.payer),
      signer(a.destinationCaller),
      r(minterStateAddress(a.minter)),
      r(SystemProgram.programId),
      r(TOKEN_PROGRAM_ID),
      ...eventAccounts(a.minter),
      ...remaining,
    ],
    data: data(GATEWAY_MINTER_INSTRUCTIONS.gatewayMint, borshBytes(a.attestation), borshBytes(a.signature)),
  });
}

export function minterInitializeInstruction(a: {
  minter: PublicKey;
  payer: PublicKey;
  upgradeAuthority: PublicKey;
  localDomain: number;
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: a.minter,
    keys: [
      signerW(a.payer),
      signer(a.upgradeAuthority),
      w(minterStateAddress(a.minter)),
      r(programDataAddress(a.minter)),
      r(a.minter),
      r(SystemProgram.programId),
      ...eventAccounts(a.minter),
    ],
    data: data(GATEWAY_MINTER_INSTRUCTIONS.initialize, u32le(a.localDomain)),
  });
}

/** `attester`: the EVM address as a bytes32 (12 zero bytes, then the 20). */
export function minterAddAttesterInstruction(a: {
  minter: PublicKey;
  owner: PublicKey;
  attester: Uint8Array;
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: a.minter,
    keys: [signer(a.owner), w(minterStateAddress(a.minter)), ...eventAccounts(a.minter)],
    data: data(GATEWAY_MINTER_INSTRUCTIONS.addAttester, a.attester),
  });
}

export function minterAddTokenInstruction(a: {
  minter: PublicKey;
  payer: PublicKey;
  tokenController: PublicKey;
  mint: PublicKey;
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: a.minter,
    keys: [
      signerW(a.payer),
      signer(a.tokenController),
      w(minterStateAddress(a.minter)),
      r(a.mint),
      w(minterCustodyAddress(a.minter, a.mint)),
      r(TOKEN_PROGRAM_ID),
      r(SystemProgram.programId),
      ...eventAccounts(a.minter),
    ],
    data: data(GATEWAY_MINTER_INSTRUCTIONS.addToken),
  });
}

export function minterMintCustodyInstruction(a: {
  minter: PublicKey;
  tokenController: PublicKey;
  mint: PublicKey;
  amount: bigint;
}): TransactionInstruction {
  const amount = Buffer.alloc(8);
  amount.writeBigUInt64LE(a.amount);
  return new TransactionInstruction({
    programId: a.minter,
    keys: [
      signer(a.tokenController),
      r(minterStateAddress(a.minter)),
      w(a.mint),
      w(minterCustodyAddress(a.minter, a.mint)),
      r(TOKEN_PROGRAM_ID),
    ],
    data: data(MINT_CUSTODY_DISCRIMINATOR, amount),
  });
}

export function walletInitializeInstruction(a: {
  wallet: PublicKey;
  payer: PublicKey;
  upgradeAuthority: PublicKey;
  localDomain: number;
  withdrawalDelay: bigint;
}): TransactionInstruction {
  const delay = Buffer.alloc(8);
  delay.writeBigUInt64LE(a.withdrawalDelay);
  return new TransactionInstruction({
    programId: a.wallet,
    keys: [
      signerW(a.payer),
      signer(a.upgradeAuthority),
      w(walletStateAddress(a.wallet)),
      r(programDataAddress(a.wallet)),
      r(a.wallet),
      r(SystemProgram.programId),
      ...eventAccounts(a.wallet),
    ],
    data: data(GATEWAY_WALLET_INSTRUCTIONS.initialize, u32le(a.localDomain), delay),
  });
}

export function walletAddTokenInstruction(a: {
  wallet: PublicKey;
  payer: PublicKey;
  tokenController: PublicKey;
  mint: PublicKey;
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: a.wallet,
    keys: [
      signerW(a.payer),
      signer(a.tokenController),
      w(walletStateAddress(a.wallet)),
      r(a.mint),
      w(walletCustodyAddress(a.wallet, a.mint)),
      r(TOKEN_PROGRAM_ID),
      r(SystemProgram.programId),
      ...eventAccounts(a.wallet),
    ],
    data: data(GATEWAY_WALLET_INSTRUCTIONS.addToken),
  });
}

export interface DepositArgs {
  wallet: PublicKey;
  payer: PublicKey;
  /** The depositor: signs, owns `ownerTokenAccount`, and is credited. */
  owner: PublicKey;
  ownerTokenAccount: PublicKey;
  mint: PublicKey;
  amount: bigint;
}

/** deposit: `amount` from the owner's token account into the wallet's custody, credited to the owner's
 * GatewayDeposit PDA ["gateway_deposit", mint, owner]. */
export function depositInstruction(a: DepositArgs): TransactionInstruction {
  const amount = Buffer.alloc(8);
  amount.writeBigUInt64LE(a.amount);
  return new TransactionInstruction({
    programId: a.wallet,
    keys: [
      signerW(a.payer),
      signer(a.owner),
      r(walletStateAddress(a.wallet)),
      w(a.ownerTokenAccount),
      w(walletCustodyAddress(a.wallet, a.mint)),
      w(depositAddress(a.wallet, a.mint, a.owner)),
      r(denylistAddress(a.wallet, a.owner)),
      r(TOKEN_PROGRAM_ID),
      r(SystemProgram.programId),
      ...eventAccounts(a.wallet),
    ],
    data: data(GATEWAY_WALLET_INSTRUCTIONS.deposit, amount),
  });
}

/** `signer`: the burn signer's EVM address as a bytes32. */
export function walletAddBurnSignerInstruction(a: {
  wallet: PublicKey;
  owner: PublicKey;
  signer: Uint8Array;
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: a.wallet,
    keys: [signer(a.owner), w(walletStateAddress(a.wallet)), ...eventAccounts(a.wallet)],
    data: data(GATEWAY_WALLET_INSTRUCTIONS.addBurnSigner, a.signer),
  });
}

const ED25519_PROGRAM_ID = new PublicKey('Ed25519SigVerify111111111111111111111111111');
/** Where the burn data starts in gateway_burn's data: the discriminator, then the Vec's u32 length. */
const BURN_DATA_IN_INSTRUCTION = 6;

export interface GatewayBurnArgs {
  wallet: PublicKey;
  payer: PublicKey;
  mint: PublicKey;
  /** The wallet's fee recipient: the fee goes to its associated token account of `mint`. */
  feeRecipient: PublicKey;
  /** Encoded SolanaBurnData (fee, the depositor's signature, prefix, BurnIntent). */
  burnData: Uint8Array;
  /** The burn signer's EVM signature of the burn data. */
  burnSignature: Uint8Array;
  /** Where gateway_burn sits in its transaction; the Ed25519 check sits right before it. Default 1. */
  index?: number;
}

/**
 * gateway_burn and the Ed25519 precompile instruction before it, whose offsets point into gateway_burn's own
 * data (the depositor's signature, the spec's source signer, prefix ‖ BurnIntent), as Circle's wallet
 * requires (programs/gateway-wallet/src/instructions/gateway_burn.rs).
 */
export function gatewayBurnInstructions(
  a: GatewayBurnArgs,
): [TransactionInstruction, TransactionInstruction] {
  const burn = decodeSolanaBurnData(a.burnData);
  const depositor = new PublicKey(burn.intent.spec.sourceDepositor);
  const index = a.index ?? 1;
  const header = Buffer.alloc(16);
  header.writeUInt8(1, 0);
  header.writeUInt8(0, 1);
  header.writeUInt16LE(BURN_DATA_IN_INSTRUCTION + BURN_DATA_OFFSETS.userSignature, 2);
  header.writeUInt16LE(index, 4);
  header.writeUInt16LE(
    BURN_DATA_IN_INSTRUCTION +
      BURN_DATA_OFFSETS.burnIntent +
      BURN_INTENT_OFFSETS.transferSpec +
      TRANSFER_SPEC_OFFSETS.sourceSigner,
    6,
  );
  header.writeUInt16LE(index, 8);
  header.writeUInt16LE(BURN_DATA_IN_INSTRUCTION + BURN_DATA_OFFSETS.prefix, 10);
  header.writeUInt16LE(a.burnData.length - BURN_DATA_OFFSETS.prefix, 12);
  header.writeUInt16LE(index, 14);
  const ed25519 = new TransactionInstruction({ programId: ED25519_PROGRAM_ID, keys: [], data: header });
  const gatewayBurn = new TransactionInstruction({
    programId: a.wallet,
    keys: [
      signerW(a.payer),
      r(walletStateAddress(a.wallet)),
      w(a.mint),
      w(walletCustodyAddress(a.wallet, a.mint)),
      w(getAssociatedTokenAddressSync(a.mint, a.feeRecipient, true)),
      w(depositAddress(a.wallet, a.mint, depositor)),
      r(a.wallet), // the optional delegate account, absent: Anchor reads the program id as None
      r(SYSVAR_INSTRUCTIONS_PUBKEY),
      r(SystemProgram.programId),
      r(TOKEN_PROGRAM_ID),
      r(ASSOCIATED_TOKEN_PROGRAM_ID),
      ...eventAccounts(a.wallet),
      w(usedTransferSpecHashAddress(a.wallet, transferSpecHash(burn.intent.spec))),
    ],
    data: data(GATEWAY_WALLET_INSTRUCTIONS.gatewayBurn, borshBytes(a.burnData), borshBytes(a.burnSignature)),
  });
  return [ed25519, gatewayBurn];
}
