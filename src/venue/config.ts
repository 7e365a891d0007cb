// The embedded venue a config asks for: a pool for each pair's two assets (once per unordered pair), at the
// assets' mints, seeded at the reference prices unless the embedded Pyth publisher already prices them.

import { PublicKey } from '@solana/web3.js';
import type { Config } from '../config/index.ts';
import { type EmbeddedVenueOptions, venuePairs } from './embedded.ts';

/** null when the config names no venue. */
export function embeddedVenueOptions(
  config: Pick<Config, 'venue' | 'pairs' | 'assets' | 'prices'>,
  onError?: (error: Error) => void,
): EmbeddedVenueOptions | null {
  const venue = config.venue;
  if (venue === null) return null;
  const pairs = venuePairs(config.pairs);
  const traded = new Set(pairs.flat());
  const assets = config.assets.list
    .filter((asset) => traded.has(asset.symbol))
    .map((asset) => {
      const reference = config.prices.get(asset.mint);
      if (!reference) throw new Error(`venue: no reference price for ${asset.symbol}`);
      return {
        mint: new PublicKey(asset.mint),
        symbol: asset.symbol,
        decimals: asset.decimals,
        referenceUsd: reference.usd,
      };
    });
  return {
    assets,
    pairs,
    liquidityMicroUsd: venue.liquidityMicroUsd,
    feeBps: venue.feeBps,
    keeperTriggerBps: venue.keeperTriggerBps,
    ...(onError ? { onError } : {}),
  };
}
