// Decoders of the Gateway programs' accounts (Borsh, after a two-byte discriminator), as Circle's
// state.rs lays them out: GatewayMinter, GatewayWallet, GatewayDeposit. Strict: a wrong discriminator,
// a vector longer than its documented maximum or one running past the data is a GatewayAccountError.
// https://developers.circle.com/gateway/references/solana-programs ("Account structures");
// circlefin/solana-gateway-contracts programs/gateway-minter/src/state.rs, programs/gateway-wallet/src/state.rs.

import { PublicKey } from '@solana/web3.js';
import { GATEWAY_MINTER_ACCOUNTS, GATEWAY_WALLET_ACCOUNTS } from '../formats/index.ts';

export class GatewayAccountError extends Error {
  override readonly name = 'GatewayAccountError';
}

const MAX_ATTESTERS = 10;
const MAX_TOKENS = 10;
const MAX_BURN_SIGNERS = 10;

/** A Borsh reader over account data that refuses to read past it. */
class Borsh {
  private at = 2;
  private readonly view: DataView;

  constructor(
    private readonly bytes: Uint8Array,
    discriminator: readonly [number, number],
    what: string,
  ) {
    if (bytes.length < 2 || bytes[0] !== discriminator[0] || bytes[1] !== discriminator[1]) {
      throw new GatewayAccountError(`not a ${what} account`);
    }
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private take(n: number): number {
    if (this.at + n > this.bytes.length) throw new GatewayAccountError('account data ends early');
    const at = this.at;
    this.at += n;
    return at;
  }

  u8 = () => this.view.getUint8(this.take(1));
  bool = () => this.u8() !== 0;
  u32 = () => this.view.getUint32(this.take(4), true);
  u64 = () => this.view.getBigUint64(this.take(8), true);
  bytes32 = () => this.bytes.slice(this.take(32), this.at);
  key = () => new PublicKey(this.bytes32());

  vec<T>(max: number, item: () => T): T[] {
    const n = this.u32();
    if (n > max) throw new GatewayAccountError(`a vector of ${n}, at most ${max}`);
    return Array.from({ length: n }, item);
  }
}

export interface GatewayMinterState {
  bump: number;
  owner: PublicKey;
  pendingOwner: PublicKey;
  pauser: PublicKey;
  tokenController: PublicKey;
  paused: boolean;
  /** EVM addresses as bytes32 (12 zero bytes, then the 20). */
  enabledAttesters: Uint8Array[];
  localDomain: number;
  version: number;
  supportedTokens: PublicKey[];
  custodyTokenAccountBumps: number[];
}

export function decodeGatewayMinter(data: Uint8Array): GatewayMinterState {
  const b = new Borsh(data, GATEWAY_MINTER_ACCOUNTS.gatewayMinter, 'GatewayMinter');
  const state = {
    bump: b.u8(),
    owner: b.key(),
    pendingOwner: b.key(),
    pauser: b.key(),
    tokenController: b.key(),
    paused: b.bool(),
    enabledAttesters: b.vec(MAX_ATTESTERS, b.bytes32),
    localDomain: b.u32(),
    version: b.u32(),
    supportedTokens: b.vec(MAX_TOKENS, b.key),
    custodyTokenAccountBumps: b.vec(MAX_TOKENS, b.u8),
  };
  if (state.custodyTokenAccountBumps.length !== state.supportedTokens.length) {
    throw new GatewayAccountError('a custody bump per supported token');
  }
  return state;
}

export interface GatewayWalletState {
  bump: number;
  owner: PublicKey;
  pendingOwner: PublicKey;
  pauser: PublicKey;
  denylister: PublicKey;
  tokenController: PublicKey;
  feeRecipient: PublicKey;
  localDomain: number;
  version: number;
  withdrawalDelay: bigint;
  paused: boolean;
  supportedTokens: PublicKey[];
  custodyTokenAccountBumps: number[];
  /** EVM addresses as bytes32. */
  burnSigners: Uint8Array[];
}

export function decodeGatewayWallet(data: Uint8Array): GatewayWalletState {
  const b = new Borsh(data, GATEWAY_WALLET_ACCOUNTS.gatewayWallet, 'GatewayWallet');
  return {
    bump: b.u8(),
    owner: b.key(),
    pendingOwner: b.key(),
    pauser: b.key(),
    denylister: b.key(),
    tokenController: b.key(),
    feeRecipient: b.key(),
    localDomain: b.u32(),
    version: b.u32(),
    withdrawalDelay: b.u64(),
    paused: b.bool(),
    supportedTokens: b.vec(MAX_TOKENS, b.key),
    custodyTokenAccountBumps: b.vec(MAX_TOKENS, b.u8),
    burnSigners: b.vec(MAX_BURN_SIGNERS, b.bytes32),
  };
}

/** A depositor's balance of one token in the GatewayWallet. */
export interface GatewayDepositState {
  bump: number;
  depositor: PublicKey;
  tokenMint: PublicKey;
  availableAmount: bigint;
  withdrawingAmount: bigint;
  withdrawalBlock: bigint;
}

export function decodeGatewayDeposit(data: Uint8Array): GatewayDepositState {
  const b = new Borsh(data, GATEWAY_WALLET_ACCOUNTS.gatewayDeposit, 'GatewayDeposit');
  return {
    bump: b.u8(),
    depositor: b.key(),
    tokenMint: b.key(),
    availableAmount: b.u64(),
    withdrawingAmount: b.u64(),
    withdrawalBlock: b.u64(),
  };
}
