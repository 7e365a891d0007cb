// Whom the client trusts for what. On a real cluster the service is a stranger: the HTLC program, the
// maker's key and the mints an asset symbol stands for come from the client's own configuration (with the
// canonical mints of mainnet and devnet built in), and a swap whose terms the client cannot pin does not
// start. Only when the taker's RPC is the service's own embedded chain — the same genesis hash as the
// service's dev RPC reports, and no public cluster's — is the service trusted for them: it is the chain as
// well, so nothing it says could be checked against anything else. The front end can say which it is.

/**
 * Genesis hashes of the public clusters: what `getGenesisHash` answers there. Values as the Solana explorer
 * pins them (solana-foundation/explorer, `app/entities/chain-id/lib/const.ts`: GENESIS_HASHES).
 */
export const CLUSTER_GENESIS_HASHES = {
  mainnet: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
  devnet: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
  testnet: '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY',
} as const;

export type PublicCluster = keyof typeof CLUSTER_GENESIS_HASHES;

/**
 * The canonical mints by symbol. Mainnet: the Solana token list (solana-labs/token-list,
 * `src/tokens/solana.tokenlist.json`, chainId 101) — wrapped SOL, Circle's USDC, Tether's USDT, BONK, JUP;
 * the same addresses the service's default config names. Devnet: wrapped SOL (the native mint is the same on
 * every cluster) and Circle's devnet USDC (as Circle's faucet issues it; e.g. Privy's
 * `getSolanaUsdcMintAddressForCluster`); Tether issues no devnet USDT, so none is listed. Testnet: only SOL.
 */
export const CANONICAL_MINTS: Readonly<Record<PublicCluster, Readonly<Record<string, string>>>> = {
  mainnet: {
    SOL: 'So11111111111111111111111111111111111111112',
    USDC: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    USDT: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
    BONK: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
    JUP: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN',
  },
  devnet: {
    SOL: 'So11111111111111111111111111111111111111112',
    USDC: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
  },
  testnet: {
    SOL: 'So11111111111111111111111111111111111111112',
  },
};

/** 'pinned': program, maker and mints from the client's config; 'embedded-service': the service's word. */
export type Trust = 'pinned' | 'embedded-service';

export interface TrustInfo {
  trust: Trust;
  /** The public cluster the taker's RPC serves; 'embedded' for the service's own chain; 'other' else. */
  cluster: PublicCluster | 'embedded' | 'other';
  /** The taker's RPC's genesis hash. */
  genesisHash: string;
}

/**
 * Which trust applies: the service is trusted only for its own embedded chain — the taker's RPC answers the
 * genesis hash the service's dev RPC answers, which is no public cluster's — and only when the front end
 * allows it.
 */
export function decideTrust(a: {
  rpcGenesisHash: string;
  /** What the service's dev RPC answers; null when it has none (a service on a real cluster). */
  serviceGenesisHash: string | null;
  trustEmbeddedService: boolean;
}): TrustInfo {
  const cluster = (Object.keys(CLUSTER_GENESIS_HASHES) as PublicCluster[]).find(
    (name) => CLUSTER_GENESIS_HASHES[name] === a.rpcGenesisHash,
  );
  if (cluster) return { trust: 'pinned', cluster, genesisHash: a.rpcGenesisHash };
  if (a.trustEmbeddedService && a.serviceGenesisHash !== null && a.serviceGenesisHash === a.rpcGenesisHash)
    return { trust: 'embedded-service', cluster: 'embedded', genesisHash: a.rpcGenesisHash };
  return { trust: 'pinned', cluster: 'other', genesisHash: a.rpcGenesisHash };
}

/** The mints the client knows assets by on this cluster: the built-in table, then its own config over it. */
export function knownMints(
  info: TrustInfo,
  configured: Readonly<Record<string, string>>,
): Record<string, string> {
  const builtIn = info.cluster in CANONICAL_MINTS ? CANONICAL_MINTS[info.cluster as PublicCluster] : {};
  return { ...builtIn, ...configured };
}

/**
 * What a pinned client lacks to take a swap of these assets: `programId`, `maker`, `mints.<symbol>`. Empty when
 * everything is pinned, and always on the embedded service's chain.
 */
export function missingPins(
  info: TrustInfo,
  config: { programId: string | null; maker: string | null; mints: Readonly<Record<string, string>> },
  assets: readonly string[],
): string[] {
  if (info.trust === 'embedded-service') return [];
  const missing: string[] = [];
  if (config.programId === null) missing.push('programId');
  if (config.maker === null) missing.push('maker');
  for (const asset of assets) if (config.mints[asset] === undefined) missing.push(`mints.${asset}`);
  return missing;
}
