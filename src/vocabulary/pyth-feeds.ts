// The sponsored Pyth feeds the service trades against, as Pyth names them: each symbol's feed id (hex of
// the 32-byte id of its Crypto.X/USD feed) and the push oracle's account holding its latest PriceUpdateV2,
// on shard 0. Plain data, so that the config (which finds a feed by its symbol) and the chain (which
// publishes them on the embedded chain) read one table from below both. The accounts are the push oracle's
// PDAs of the feed ids (src/chain/pyth/feeds.ts pushOracleFeedAddress; test/chain/pyth-feeds.test.ts holds
// the two to each other and to the addresses Pyth publishes, pyth-network/pyth-crosschain
// apps/developer-hub/content/docs/price-feeds/core/push-feeds/data/svm/solana-mainnet.json).

export type SponsoredSymbol = 'SOL' | 'USDC' | 'USDT' | 'BONK' | 'JUP';
export const SPONSORED_SYMBOLS: readonly SponsoredSymbol[] = ['SOL', 'USDC', 'USDT', 'BONK', 'JUP'];

export interface SponsoredFeed {
  /** The push oracle's account of the feed, base58. */
  readonly account: string;
  /** 64 lower-case hex characters. */
  readonly feedId: string;
}

/** The sponsored feeds by symbol. */
export const SPONSORED_FEEDS: Readonly<Record<SponsoredSymbol, SponsoredFeed>> = Object.freeze({
  SOL: Object.freeze({
    account: '7UVimffxr9ow1uXYxsr4LHAcV58mLzhmwaeKvJ1pjLiE',
    feedId: 'ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d',
  }),
  USDC: Object.freeze({
    account: 'Dpw1EAVrSB1ibxiDQyTAW6Zip3J4Btk2x4SgApQCeFbX',
    feedId: 'eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a',
  }),
  USDT: Object.freeze({
    account: 'HT2PLQBcG5EiCcNSaMHAjSgd9F98ecpATbk4Sk5oYuM',
    feedId: '2b89b9dc8fdf9f34709a5b106b472f0f39bb6ca9ce04b0fd7f2e971688e2e53b',
  }),
  BONK: Object.freeze({
    account: 'DBE3N8uNjhKPRHfANdwGvCZghWXyLPdqdSbEW2XFwBiX',
    feedId: '72b021217ca3fe68922a19aaf990109cb9d84e9ad004b4d2025ad6f529314419',
  }),
  JUP: Object.freeze({
    account: '7dbob1psH1iZBS7qPsm3Kwbf5DzSXK8Jyg31CTgTnxH5',
    feedId: '0a0408d619e9380abad35060f9192039ed5042fa6f82301d0e48bb52be830996',
  }),
});
