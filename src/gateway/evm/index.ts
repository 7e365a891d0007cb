// The dev Gateway's EVM source domain: anvil (a real EVM node, from the npm registry) running our GatewayWallet
// and USDC contracts, and the viem client that deploys them, deposits, and burns what depositors signed.

export {
  ANVIL_DEFAULT_CHAIN_ID,
  ANVIL_HARDFORK,
  type Anvil,
  type AnvilOptions,
  anvilBinary,
  startAnvil,
} from './anvil.ts';
export { devUsdcAbi, gatewayWalletAbi } from './contracts.ts';
export {
  DEV_GAS_BALANCE,
  type DeployOptions,
  deployEvmDomain,
  type EvmBurn,
  EvmDomainClient,
  type EvmDomainDeployment,
  type SeenBurn,
} from './domain.ts';
export { EVM_DOMAIN_ERRORS, EvmDomainError, type EvmDomainErrorCode } from './errors.ts';
export { loadOrCreateEvmKeyFile } from './keys.ts';
