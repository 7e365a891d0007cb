// Where the sponsored Pyth feeds' accounts live, and how the embedded chain moves them: the push oracle
// keeps each feed's latest PriceUpdateV2 at a PDA of (shard id u16 LE, feed id), owned by the receiver.
// The feeds themselves (symbol, feed id, account) are a table of src/vocabulary/pyth-feeds.ts, which the
// config reads too; test/chain/pyth-feeds.test.ts derives each account from its feed id here.
// Upstream (pyth-network/pyth-crosschain):
//   target_chains/solana/programs/pyth-push-oracle/src/sdk.rs — get_price_feed_address(shard_id, feed_id)
//   target_chains/solana/pyth_solana_receiver_sdk/src/lib.rs — PYTH_PUSH_ORACLE_ID (pythWSns…)

import type { PublicKey } from '@solana/web3.js';
import type { SponsoredSymbol } from '../../vocabulary/pyth-feeds.ts';
import { publicKey } from '../keys.ts';
import { findProgramAddress } from '../pda.ts';

export { SPONSORED_FEEDS, SPONSORED_SYMBOLS, type SponsoredSymbol } from '../../vocabulary/pyth-feeds.ts';

/** The Pyth push oracle program: it posts the sponsored feeds through the receiver, at its own PDAs. */
export const PYTH_PUSH_ORACLE_PROGRAM_ID: PublicKey = publicKey(
  'pythWSnswVUd12oZpeFP8e9CVaEqJg25g1Vtc2biRsT',
);

/** The push oracle's price feed account for a feed id on a shard (sdk.rs get_price_feed_address). */
export function pushOracleFeedAddress(feedId: string, shardId = 0): PublicKey {
  if (!/^[0-9a-f]{64}$/.test(feedId)) throw new Error(`feed id: not 64 lower-case hex: ${feedId}`);
  if (!Number.isInteger(shardId) || shardId < 0 || shardId > 0xffff) throw new Error(`shard id: not a u16`);
  const shard = new Uint8Array([shardId & 0xff, shardId >> 8]);
  return findProgramAddress([shard, Buffer.from(feedId, 'hex')], PYTH_PUSH_ORACLE_PROGRAM_ID)[0];
}

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
