// Gateway on Solana: the PDAs, instruction builders and account decoders of Circle's GatewayMinter and
// GatewayWallet (ours on the embedded chain share their bytes), and the maker's checks on a gatewayMint
// before it signs one.

export {
  decodeGatewayDeposit,
  decodeGatewayMinter,
  decodeGatewayWallet,
  GatewayAccountError,
  type GatewayDepositState,
  type GatewayMinterState,
  type GatewayWalletState,
} from './accounts.ts';
// Every PDA, as instructions.ts builds its account lists from them.
export * from './addresses.ts';
export {
  type CheckedMint,
  checkMintTransaction,
  type GatewayMintCheckCode,
  GatewayMintCheckError,
  type MintExpectation,
} from './checks.ts';
export {
  type DepositArgs,
  depositInstruction,
  type GatewayBurnArgs,
  type GatewayMintArgs,
  gatewayBurnInstructions,
  gatewayMintInstruction,
  MINT_CUSTODY_DISCRIMINATOR,
  minterAddAttesterInstruction,
  minterAddTokenInstruction,
  minterInitializeInstruction,
  minterMintCustodyInstruction,
  walletAddBurnSignerInstruction,
  walletAddTokenInstruction,
  walletInitializeInstruction,
} from './instructions.ts';
export {
  EMBEDDED_GATEWAY_MINTER_ID,
  EMBEDDED_GATEWAY_WALLET_ID,
  GATEWAY_MINTER_PROGRAM_PATH,
  GATEWAY_WALLET_PROGRAM_PATH,
  loadGatewayMinterProgram,
  loadGatewayWalletProgram,
} from './program.ts';
