// Assets and Pairs groups (/v1/assets, /v1/pairs): what the maker trades, straight from the validated config.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { Asset, Config } from '../../config/index.ts';
import { formatAmount } from '../../money/index.ts';
import { ApiError, errorResponses } from '../errors.ts';
import { AssetListSchema, AssetParams, AssetSchema, PairListSchema } from './assets.schema.ts';
import { PUBLIC_SECURITY } from './operator.ts';

export interface AssetRoutesOptions {
  assets: Config['assets'];
  /** The pairs in force now (the control plane changes them live). */
  pairs: () => Config['pairs'];
}

const assetView = (asset: Asset): Static<typeof AssetSchema> => ({
  id: asset.id,
  symbol: asset.symbol,
  name: asset.name,
  decimals: asset.decimals,
});

export const assetRoutes: FastifyPluginAsyncTypebox<AssetRoutesOptions> = async (app, { assets, pairs }) => {
  app.get(
    '/assets',
    {
      schema: {
        operationId: 'listAssets',
        tags: ['Assets'],
        summary: 'Configured assets',
        description:
          'Every asset the maker trades: its mint (the id), symbol, name and decimals. An RFQ names assets by ' +
          'either id or symbol.',
        security: PUBLIC_SECURITY,
        response: { 200: AssetListSchema, ...errorResponses() },
      },
    },
    async function listAssets() {
      return { assets: assets.list.map(assetView) };
    },
  );

  app.get(
    '/assets/:asset',
    {
      schema: {
        operationId: 'getAsset',
        tags: ['Assets'],
        summary: 'One asset, by id (mint) or symbol, case-insensitively',
        description:
          'The configured asset whose mint or symbol matches, in any case; 404 asset_not_found if none.',
        security: PUBLIC_SECURITY,
        params: AssetParams,
        response: { 200: AssetSchema, ...errorResponses('asset_not_found') },
      },
    },
    async function getAsset(request) {
      const asset = assets.find(request.params.asset);
      if (!asset)
        throw new ApiError('asset_not_found', `No configured asset matches '${request.params.asset}'.`);
      return assetView(asset);
    },
  );

  app.get(
    '/pairs',
    {
      schema: {
        operationId: 'listPairs',
        tags: ['Pairs'],
        summary: 'Tradable directed pairs',
        description:
          'Every directed pair (SOL→USDC and USDC→SOL are two) with its base spread, the input size limits in ' +
          'display units, and whether it is paused (by its own pause or the desk’s). An RFQ on a paused pair ' +
          'is a risk rejection; a settlement start of one is a 409 trading_paused. The operator changes these ' +
          'live (/v1/desk): this answer shows them at once.',
        security: PUBLIC_SECURITY,
        response: { 200: PairListSchema, ...errorResponses() },
      },
    },
    async function listPairs() {
      return {
        pairs: pairs().map((pair) => ({
          input_asset: pair.input.symbol,
          output_asset: pair.output.symbol,
          input_mint: pair.input.mint,
          output_mint: pair.output.mint,
          base_spread_bps: pair.baseSpreadBps,
          min_input: formatAmount(pair.minInputRaw, pair.input.decimals),
          max_input: formatAmount(pair.maxInputRaw, pair.input.decimals),
          paused: pair.paused,
        })),
      };
    },
  );
};
