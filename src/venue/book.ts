// The venue as its Jupiter-shaped API reads it (api.ts, http.ts): the pools it trades, each at its accounts,
// and their reserves now. EmbeddedVenue is the one venue there is; the API needs no more of it than this.

import type { PublicKey } from '@solana/web3.js';
import type { Price } from '../money/price.ts';

export interface VenueAsset {
  mint: PublicKey;
  symbol: string;
  decimals: number;
  /** USD per whole token, used at genesis when no Pyth price is published for the asset. */
  referenceUsd: Price;
}

export interface VenuePool {
  pool: PublicKey;
  mintA: PublicKey;
  mintB: PublicKey;
  vaultA: PublicKey;
  vaultB: PublicKey;
  assetA: VenueAsset;
  assetB: VenueAsset;
}

/** A pool as its accounts are now: what the quote API prices from. */
export interface PoolSnapshot extends VenuePool {
  feeBps: number;
  reserveA: bigint;
  reserveB: bigint;
}

export interface VenueBook {
  readonly programId: PublicKey;
  /** The name the API gives the venue's program (program-id-to-label, a route's label). */
  readonly label: string;
  /** The pool trading these two mints (either order), or null when the venue has none. */
  poolOf(x: PublicKey, y: PublicKey): VenuePool | null;
  /** The pool's fee and reserves as its accounts hold them now; null when it is not on chain. */
  snapshot(pool: VenuePool): PoolSnapshot | null;
  /** The chain's slot now (the slot a quote was read at). */
  slot(): number;
  /** The address lookup tables a swap through the pool may load its accounts from. */
  lookupTables(pool: VenuePool): PublicKey[];
}
