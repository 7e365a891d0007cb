// The sponsored Pyth feeds the service trades against, and where their accounts live: the push oracle
// keeps each feed's latest PriceUpdateV2 at a PDA of (shard id u16 LE, feed id), owned by the receiver.
// Upstream (pyth-network/pyth-crosschain):
//   target_chains/solana/programs/pyth-push-oracle/src/sdk.rs — get_price_feed_address(shard_id, feed_id)
//   target_chains/solana/pyth_solana_receiver_sdk/src/lib.rs — PYTH_PUSH_ORACLE_ID (pythWSns…)
//   apps/developer-hub/content/docs/price-feeds/core/push-feeds/data/svm/solana-mainnet.json — the
//     sponsored feeds' ids and account addresses (test/chain/pyth-feeds.test.ts checks the derivation
//     against those addresses).

import type { PublicKey } from '@solana/web3.js';
import { keyBase58, publicKey } from '../keys.ts';
import { findProgramAddress } from '../pda.ts';

/** The Pyth push oracle program: it posts the sponsored feeds through the receiver, at its own PDAs. */
export const PYTH_PUSH_ORACLE_PROGRAM_ID: PublicKey = publicKey(
  'pythWSnswVUd12oZpeFP8e9CVaEqJg25g1Vtc2biRsT',
);

export type SponsoredSymbol = 'SOL' | 'USDC' | 'USDT' | 'BONK' | 'JUP';
export const SPONSORED_SYMBOLS: readonly SponsoredSymbol[] = ['SOL', 'USDC', 'USDT', 'BONK', 'JUP'];

/** Feed ids (hex of the 32-byte id) of the Crypto.X/USD feeds. */
const SPONSORED_FEED_IDS: Readonly<Record<SponsoredSymbol, string>> = {
  SOL: 'ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d',
  USDC: 'eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a',
  USDT: '2b89b9dc8fdf9f34709a5b106b472f0f39bb6ca9ce04b0fd7f2e971688e2e53b',
  BONK: '72b021217ca3fe68922a19aaf990109cb9d84e9ad004b4d2025ad6f529314419',
  JUP: '0a0408d619e9380abad35060f9192039ed5042fa6f82301d0e48bb52be830996',
};

/** The push oracle's price feed account for a feed id on a shard (sdk.rs get_price_feed_address). */
export function pushOracleFeedAddress(feedId: string, shardId = 0): PublicKey {
  if (!/^[0-9a-f]{64}$/.test(feedId)) throw new Error(`feed id: not 64 lower-case hex: ${feedId}`);
  if (!Number.isInteger(shardId) || shardId < 0 || shardId > 0xffff) throw new Error(`shard id: not a u16`);
  const shard = new Uint8Array([shardId & 0xff, shardId >> 8]);
  return findProgramAddress([shard, Buffer.from(feedId, 'hex')], PYTH_PUSH_ORACLE_PROGRAM_ID)[0];
}

/** The sponsored feeds: symbol → { account, feedId }, accounts on shard 0 (the addresses Pyth publishes). */
export const SPONSORED_FEEDS: Readonly<Record<SponsoredSymbol, { account: string; feedId: string }>> =
  Object.freeze(
    Object.fromEntries(
      SPONSORED_SYMBOLS.map((symbol) => {
        const feedId = SPONSORED_FEED_IDS[symbol];
        return [symbol, Object.freeze({ account: keyBase58(pushOracleFeedAddress(feedId)), feedId })];
      }),
    ) as Record<SponsoredSymbol, { account: string; feedId: string }>,
  );

/** Where an embedded feed starts and how it moves; see publisher.ts. */
export interface FeedSeed {
  /** Initial price in units of 10^exponent. */
  price: bigint;
  exponent: number;
  /** Confidence as a share of the price, in whole basis points. */
  confBps: number;
  /** Largest move of one publishing step, in whole basis points of the price. */
  volatilityBps: number;
  /** Pull back toward the initial price per step, in whole basis points of the gap (stablecoins); default 0. */
  reversionBps?: number;
}

/**
 * Realistic starting points for the embedded chain: prices near the market at the time of writing, with
 * the exponents the real feeds use (-8, BONK -10), confidences and step sizes of their usual order.
 */
export const DEFAULT_FEED_SEEDS: Readonly<Record<SponsoredSymbol, FeedSeed>> = Object.freeze({
  SOL: { price: 150_00000000n, exponent: -8, confBps: 5, volatilityBps: 8 },
  USDC: { price: 1_00000000n, exponent: -8, confBps: 1, volatilityBps: 1, reversionBps: 1000 },
  USDT: { price: 1_00010000n, exponent: -8, confBps: 1, volatilityBps: 1, reversionBps: 1000 },
  BONK: { price: 200_000n, exponent: -10, confBps: 15, volatilityBps: 20 },
  JUP: { price: 80_000_000n, exponent: -8, confBps: 10, volatilityBps: 12 },
});
