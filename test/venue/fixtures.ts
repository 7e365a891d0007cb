// An embedded chain with the venue: the chain tests' mints (USDC, SOL) and maker, a SOL/USDC pool seeded
// by the venue's own admin, and the Pyth publisher the keeper follows (stepped by hand: interval 0).

import { rmSync } from 'node:fs';
import { Keypair } from '@solana/web3.js';
import { createEmbeddedChain, type EmbeddedChain } from '../../src/chain/embedded/index.ts';
import { sponsoredFeedSpecs } from '../../src/chain/pyth/publisher.ts';
import type { EmbeddedVenue, EmbeddedVenueOptions } from '../../src/venue/embedded.ts';
import { VenueGenesis } from '../../src/venue/genesis.ts';
import { INVENTORY, MINTS, SOL, tempDir, USDC } from '../chain/fixtures.ts';

export const VENUE_ASSETS = [
  { mint: SOL, symbol: 'SOL', decimals: 9, referenceUsd: { num: 150n, den: 1n } },
  { mint: USDC, symbol: 'USDC', decimals: 6, referenceUsd: { num: 1n, den: 1n } },
];

export function venueOptions(overrides: Partial<EmbeddedVenueOptions> = {}): EmbeddedVenueOptions {
  return {
    assets: VENUE_ASSETS,
    pairs: [['SOL', 'USDC']],
    liquidityMicroUsd: 1_500_000n * 1_000_000n,
    feeBps: 30,
    keeperTriggerBps: 10,
    ...overrides,
  };
}

export interface VenueChain {
  chain: EmbeddedChain;
  /** The venue the chain carries (its genesis extension's). */
  venue: EmbeddedVenue;
  dataDir: string;
  maker: Keypair;
  close(): Promise<void>;
}

/** The embedded chain with the venue and the SOL/USDC feeds (seed `pythSeed`, stepped by publishNow()). */
export function venueChain(
  options: {
    dataDir?: string;
    maker?: Keypair;
    pythSeed?: number;
    venue?: Partial<EmbeddedVenueOptions>;
    clock?: () => number;
  } = {},
): VenueChain {
  const dataDir = options.dataDir ?? tempDir('venue');
  const maker = options.maker ?? Keypair.generate();
  const genesis = new VenueGenesis(venueOptions(options.venue));
  const chain = createEmbeddedChain({
    dataDir,
    makerKeypair: maker,
    mints: MINTS,
    makerInventory: INVENTORY,
    pyth: { feeds: sponsoredFeedSpecs(['SOL', 'USDC']), seed: options.pythSeed ?? 1, intervalMs: 0 },
    extensions: [genesis],
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return {
    chain,
    venue: genesis.venue,
    dataDir,
    maker,
    close: async () => {
      await chain.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
