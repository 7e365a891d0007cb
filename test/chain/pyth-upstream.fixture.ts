// Price update accounts as our encoder writes them, with the fields the upstream decoder read back.
// Cross-checked once, outside this repository, with the Anchor coder of the upstream SDK:
// @coral-xyz/anchor 0.29.0 `new BorshAccountsCoder(IDL).decode('priceUpdateV2', bytes)`, IDL from
// @pythnetwork/pyth-solana-receiver 0.14.0 (dist/esm/idl/pyth_solana_receiver.mjs, generated from
// pyth-network/pyth-crosschain target_chains/solana/pyth_solana_receiver_sdk/src/price_update.rs). Its
// encode() wrote the same bytes back (133 for a Full update, which the account pads with a zero to 134).
// The SDK is not a dev dependency: it wants Node 24, and on Node 20 neither its ESM nor its CJS entry
// loads (anchor's directory imports; jito-ts's own web3.js), so only its IDL and anchor's coder ran.

export interface UpstreamCase {
  hex: string;
  upstream: {
    writeAuthority: string;
    verificationLevel: { kind: 'full' } | { kind: 'partial'; numSignatures: number };
    feedId: string;
    price: string;
    conf: string;
    exponent: number;
    publishTime: string;
    prevPublishTime: string;
    emaPrice: string;
    emaConf: string;
    postedSlot: string;
  };
}

export const UPSTREAM_CASES: UpstreamCase[] = [
  {
    hex: '22f123639d7ef4cd60314704340deddf371fd42472148f248e9d1a6d1a5eb2ac3acd8b7fd5d6b24301ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d4e37ce7e03000000fc88720000000000f8ffffff60fa2269000000005ffa22690000000000d6117e03000000e0707200000000003b1ed4160000000000',
    upstream: {
      writeAuthority: '7UVimffxr9ow1uXYxsr4LHAcV58mLzhmwaeKvJ1pjLiE',
      verificationLevel: { kind: 'full' },
      feedId: 'ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d',
      price: '15012345678',
      conf: '7506172',
      exponent: -8,
      publishTime: '1763900000',
      prevPublishTime: '1763899999',
      emaPrice: '15000000000',
      emaConf: '7500000',
      postedSlot: '383000123',
    },
  },
  {
    hex: '22f123639d7ef4cdb4eacbe402ae9165c2ab7dfcdbe5044d27f284106f88a90bfddefa5fbff60ca0000572b021217ca3fe68922a19aaf990109cb9d84e9ad004b4d2025ad6f529314419400d0300000000002c01000000000000f6ffffff61fa22690000000060fa22690000000058090300000000002b010000000000000100000000000000',
    upstream: {
      writeAuthority: 'DBE3N8uNjhKPRHfANdwGvCZghWXyLPdqdSbEW2XFwBiX',
      verificationLevel: { kind: 'partial', numSignatures: 5 },
      feedId: '72b021217ca3fe68922a19aaf990109cb9d84e9ad004b4d2025ad6f529314419',
      price: '200000',
      conf: '300',
      exponent: -10,
      publishTime: '1763900001',
      prevPublishTime: '1763900000',
      emaPrice: '199000',
      emaConf: '299',
      postedSlot: '1',
    },
  },
  {
    hex: '22f123639d7ef4cd000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff0000000000000080ffffffffffffffff00000080ffffffffffffff7fffffffffffffffffffffffffffffff7f0000000000000000ffffffffffffffff',
    upstream: {
      writeAuthority: '11111111111111111111111111111111',
      verificationLevel: { kind: 'partial', numSignatures: 255 },
      feedId: 'ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
      price: '-9223372036854775808',
      conf: '18446744073709551615',
      exponent: -2147483648,
      publishTime: '9223372036854775807',
      prevPublishTime: '-1',
      emaPrice: '9223372036854775807',
      emaConf: '0',
      postedSlot: '18446744073709551615',
    },
  },
  {
    hex: '22f123639d7ef4cdbe939a8309f56407187fff30ac54b169498be99f6d8e1bfd4244680cd4f7d1e201eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a78cdf505000000008813000000000000ffffff7f00000000000000000000000000000000fbffffffffffffff0100000000000000000000000000000000',
    upstream: {
      writeAuthority: 'Dpw1EAVrSB1ibxiDQyTAW6Zip3J4Btk2x4SgApQCeFbX',
      verificationLevel: { kind: 'full' },
      feedId: 'eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a',
      price: '99995000',
      conf: '5000',
      exponent: 2147483647,
      publishTime: '0',
      prevPublishTime: '0',
      emaPrice: '-5',
      emaConf: '1',
      postedSlot: '0',
    },
  },
];
