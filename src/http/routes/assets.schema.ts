// Schemas of the Assets and Pairs groups: what the maker trades, as its config says.
import Type from 'typebox';

export const AssetSchema = Type.Object(
  {
    id: Type.String({ description: 'the mint address' }),
    symbol: Type.String(),
    name: Type.String(),
    decimals: Type.Integer({ minimum: 0, maximum: 18 }),
  },
  { title: 'Asset' },
);

export const AssetListSchema = Type.Object({ assets: Type.Array(AssetSchema) });

export const AssetParams = Type.Object({ asset: Type.String({ minLength: 1, maxLength: 64 }) });

export const PairSchema = Type.Object(
  {
    input_asset: Type.String({ description: 'input asset symbol' }),
    output_asset: Type.String({ description: 'output asset symbol' }),
    input_mint: Type.String(),
    output_mint: Type.String(),
    base_spread_bps: Type.Integer({ minimum: 0, maximum: 10000 }),
    min_input: Type.String({ description: 'smallest input, display units' }),
    max_input: Type.String({ description: 'largest input, display units' }),
    paused: Type.Boolean(),
  },
  { title: 'Pair' },
);

export const PairListSchema = Type.Object({ pairs: Type.Array(PairSchema) });
