// The sponsored feeds' accounts are the push oracle's shard-0 PDAs of their feed ids, and those are the
// addresses Pyth publishes (pyth-network/pyth-crosschain
// apps/developer-hub/content/docs/price-feeds/core/push-feeds/data/svm/solana-mainnet.json).

import { describe, expect, it } from 'vitest';
import {
  PYTH_PUSH_ORACLE_PROGRAM_ID,
  PYTH_RECEIVER_PROGRAM_ID,
  pushOracleFeedAddress,
  SPONSORED_FEEDS,
} from '../../src/chain/pyth/index.ts';

const PUBLISHED = {
  SOL: {
    account: '7UVimffxr9ow1uXYxsr4LHAcV58mLzhmwaeKvJ1pjLiE',
    feedId: 'ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d',
  },
  USDC: {
    account: 'Dpw1EAVrSB1ibxiDQyTAW6Zip3J4Btk2x4SgApQCeFbX',
    feedId: 'eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a',
  },
  USDT: {
    account: 'HT2PLQBcG5EiCcNSaMHAjSgd9F98ecpATbk4Sk5oYuM',
    feedId: '2b89b9dc8fdf9f34709a5b106b472f0f39bb6ca9ce04b0fd7f2e971688e2e53b',
  },
  BONK: {
    account: 'DBE3N8uNjhKPRHfANdwGvCZghWXyLPdqdSbEW2XFwBiX',
    feedId: '72b021217ca3fe68922a19aaf990109cb9d84e9ad004b4d2025ad6f529314419',
  },
  JUP: {
    account: '7dbob1psH1iZBS7qPsm3Kwbf5DzSXK8Jyg31CTgTnxH5',
    feedId: '0a0408d619e9380abad35060f9192039ed5042fa6f82301d0e48bb52be830996',
  },
};

describe('sponsored Pyth feeds', () => {
  it('are the feed ids and addresses Pyth publishes for SOL, USDC, USDT, BONK and JUP', () => {
    expect(SPONSORED_FEEDS).toEqual(PUBLISHED);
  });

  it('each account derives from its feed id: the push oracle’s shard-0 PDA', () => {
    for (const feed of Object.values(SPONSORED_FEEDS)) {
      expect(pushOracleFeedAddress(feed.feedId).toBase58()).toBe(feed.account);
    }
  });

  it('use the receiver and push oracle program ids of the upstream SDK', () => {
    expect(PYTH_RECEIVER_PROGRAM_ID.toBase58()).toBe('rec5EKMGg6MxZYaMdyBfgwp4d5rB9T1VQH5pJv5LtFJ');
    expect(PYTH_PUSH_ORACLE_PROGRAM_ID.toBase58()).toBe('pythWSnswVUd12oZpeFP8e9CVaEqJg25g1Vtc2biRsT');
  });

  it('another shard is another account, and a malformed feed id is refused', () => {
    expect(pushOracleFeedAddress(PUBLISHED.SOL.feedId, 1).toBase58()).not.toBe(PUBLISHED.SOL.account);
    expect(() => pushOracleFeedAddress(`0x${PUBLISHED.SOL.feedId}`)).toThrow(/feed id/);
    expect(() => pushOracleFeedAddress(PUBLISHED.SOL.feedId, 65_536)).toThrow(/shard/);
  });
});
