// Prices as quotes record them, shared by the store and HTTP suites.
import type { RecordedPrice } from '../../src/store/index.ts';

/** SOL at 187.42 USD as the sponsored Pyth feed would publish it (price and conf at exponent -8). */
export const SOL_PYTH_PRICE: RecordedPrice = {
  source: 'pyth',
  account: '7UVimffxr9ow1uXYxsr4LHAcV58mLzhmwaeKvJ1pjLiE',
  feedId: 'ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d',
  price: 18_742_000_000n,
  conf: 9_371_000n,
  exponent: -8,
  emaPrice: 18_700_000_000n,
  publishTime: 1_795_000_000,
};
