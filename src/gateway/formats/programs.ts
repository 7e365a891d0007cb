// Circle's Gateway programs on Solana: their ids, the seeds of the PDAs they own, and the two-byte
// discriminators of their instructions and accounts (Circle's programs set their own, not Anchor's 8-byte
// sighash). Our embedded programs (programs/gateway-wallet, programs/gateway-minter) use the same seeds
// and discriminators, so the same client bytes work against both.
//
// Ids: https://developers.circle.com/gateway/references/solana-programs (mainnet, devnet) and circlefin/
// skills use-gateway/SKILL.md. Seeds: circlefin/solana-gateway-contracts programs/gateway-minter/src/
// seeds.rs, programs/gateway-wallet/src/seeds.rs, shared/src/lib.rs (USED_TRANSFER_SPEC_HASH_SEED_PREFIX);
// "__event_authority" is Anchor's #[event_cpi] account. Discriminators: programs/*/src/lib.rs
// (#[instruction(discriminator = …)]) and programs/*/src/state.rs (#[account(discriminator = …)]).

export interface GatewaySolanaPrograms {
  wallet: string;
  minter: string;
  /** The USDC mint Gateway supports there. */
  usdc: string;
}

export const GATEWAY_SOLANA_PROGRAMS = {
  mainnet: {
    wallet: 'GATEwy4YxeiEbRJLwB6dXgg7q61e6zBPrMzYj5h1pRXQ',
    minter: 'GATEm5SoBJiSw1v2Pz1iPBgUYkXzCUJ27XSXhDfSyzVZ',
    usdc: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  },
  devnet: {
    wallet: 'GATEwdfmYNELfp5wDmmR6noSr2vHnAfBPMm2PvCzX5vu',
    minter: 'GATEmKK2ECL1brEngQZWCgMWPbvrEYqsV6u29dAaHavr',
    usdc: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
  },
} as const satisfies Record<string, GatewaySolanaPrograms>;

export const GATEWAY_MINTER_SEEDS = {
  /** The GatewayMinter state account: [seed]. Also the custody accounts' token authority. */
  minter: 'gateway_minter',
  /** A token's custody account: [seed, mint]. */
  custody: 'gateway_minter_custody',
  /** A transfer spec's used-hash marker: [seed, transferSpecHash]. */
  usedTransferSpecHash: 'used_transfer_spec_hash',
  /** Anchor's event_cpi authority: [seed]. */
  eventAuthority: '__event_authority',
} as const;

export const GATEWAY_WALLET_SEEDS = {
  /** The GatewayWallet state account: [seed]. */
  wallet: 'gateway_wallet',
  /** A token's custody account: [seed, mint]. */
  custody: 'gateway_wallet_custody',
  /** A depositor's balance of a token: [seed, mint, depositor]. */
  deposit: 'gateway_deposit',
  /** [seed, mint, depositor, delegate]. */
  delegate: 'gateway_delegate',
  /** A denylisted account exists at [seed, address]. */
  denylist: 'denylist',
  usedTransferSpecHash: 'used_transfer_spec_hash',
  eventAuthority: '__event_authority',
} as const;

/** Instruction discriminators: the first two bytes of the instruction data. */
export const GATEWAY_MINTER_INSTRUCTIONS = {
  gatewayMint: [12, 0],
  gatewayMintWithParams: [12, 1],
  initialize: [12, 2],
  transferOwnership: [12, 3],
  acceptOwnership: [12, 4],
  updatePauser: [12, 5],
  updateTokenController: [12, 6],
  addAttester: [12, 7],
  removeAttester: [12, 8],
  addToken: [12, 9],
  burnTokenCustody: [12, 10],
  pause: [12, 11],
  unpause: [12, 12],
} as const satisfies Record<string, readonly [number, number]>;

export const GATEWAY_WALLET_INSTRUCTIONS = {
  deposit: [22, 0],
  depositFor: [22, 1],
  gatewayBurn: [22, 2],
  withdraw: [22, 3],
  initiateWithdrawal: [22, 4],
  initialize: [22, 5],
  addToken: [22, 12],
  addBurnSigner: [22, 13],
} as const satisfies Record<string, readonly [number, number]>;

/** Account discriminators: the first two bytes of the account's data. */
export const GATEWAY_MINTER_ACCOUNTS = {
  gatewayMinter: [11, 0],
  usedTransferSpecHash: [11, 1],
} as const satisfies Record<string, readonly [number, number]>;

export const GATEWAY_WALLET_ACCOUNTS = {
  gatewayWallet: [21, 0],
  gatewayDeposit: [21, 1],
  gatewayDelegate: [21, 2],
  denylist: [21, 3],
  usedTransferSpecHash: [21, 4],
} as const satisfies Record<string, readonly [number, number]>;
