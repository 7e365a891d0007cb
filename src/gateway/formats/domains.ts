// Circle's domain numbers: the chain a TransferSpec's source and destination refer to. The same number
// names a mainnet and its testnet (Ethereum and Sepolia are both 0; Solana and Solana Devnet both 5).
//
// Source: circlefin/skills plugins/circle/skills/use-gateway/SKILL.md ("Domain IDs", mainnet and testnet).

export const GATEWAY_DOMAINS = {
  ethereum: 0,
  avalanche: 1,
  optimism: 2,
  arbitrum: 3,
  solana: 5,
  base: 6,
  polygon: 7,
  unichain: 10,
  sonic: 13,
  worldchain: 14,
  sei: 16,
  hyperevm: 19,
  /** Testnet only (Arc Testnet). */
  arc: 26,
} as const;

export type GatewayChain = keyof typeof GATEWAY_DOMAINS;
export type GatewayDomain = (typeof GATEWAY_DOMAINS)[GatewayChain];

export const SOLANA_DOMAIN = GATEWAY_DOMAINS.solana;

const CHAIN_OF_DOMAIN = new Map<number, GatewayChain>(
  Object.entries(GATEWAY_DOMAINS).map(([chain, domain]) => [domain, chain as GatewayChain]),
);

/** The chain a domain number names, or undefined for a number Gateway does not use. */
export const chainOfDomain = (domain: number): GatewayChain | undefined => CHAIN_OF_DOMAIN.get(domain);
