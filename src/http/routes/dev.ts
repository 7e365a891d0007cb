// Dev group (/v1/dev): the embedded chain's faucet, so a taker wallet can be funded over HTTP for demos and
// tests. Real clusters have no such thing: there the group is not registered and the route answers 404 like
// any unknown route.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PublicKey } from '@solana/web3.js';
import { type DevChain, isChainError } from '../../chain/index.ts';
import type { Config } from '../../config/index.ts';
import { parseAmount } from '../../money/index.ts';
import { ApiError, errorResponses } from '../errors.ts';
import { assertWallet } from '../schemas.ts';
import { AirdropRequestSchema, AirdropResponseSchema } from './dev.schema.ts';
import { OPERATOR_SECURITY, type OperatorAccess, requireOperator } from './operator.ts';

export interface DevRoutesOptions {
  devChain: DevChain;
  assets: Config['assets'];
  operator: OperatorAccess;
}

export const devRoutes: FastifyPluginAsyncTypebox<DevRoutesOptions> = async (app, opts) => {
  const { devChain, assets } = opts;
  requireOperator(app, opts.operator);

  app.post(
    '/airdrop',
    {
      schema: {
        operationId: 'airdrop',
        tags: ['Dev'],
        summary: 'Embedded chain only: fund a wallet with an asset plus SOL for fees and rent',
        description:
          'Operator route, present only when the service runs its embedded chain (404 route_not_found on a ' +
          'real cluster). Mints the amount of the asset (display units) to the wallet’s token account and ' +
          'adds SOL for fees and rent, so a taker can settle in a demo or a test.',
        security: OPERATOR_SECURITY,
        body: AirdropRequestSchema,
        response: { 200: AirdropResponseSchema, ...errorResponses('validation_failed', 'unauthorized') },
      },
    },
    async function airdrop(request) {
      const { wallet, asset: key, amount } = request.body;
      assertWallet(wallet, 'body.wallet');
      const asset = assets.find(key);
      if (!asset)
        throw new ApiError('validation_failed', undefined, [
          `body.asset: no configured asset matches '${key}'`,
        ]);
      let raw: bigint;
      try {
        raw = parseAmount(amount, asset.decimals);
      } catch (error) {
        throw new ApiError('validation_failed', undefined, [`body.amount: ${(error as Error).message}`]);
      }
      if (raw === 0n) throw new ApiError('validation_failed', undefined, ['body.amount: must be above zero']);
      let signature: string;
      try {
        ({ signature } = await devChain.airdrop({
          wallet: new PublicKey(wallet),
          mint: new PublicKey(asset.mint),
          amount: raw,
        }));
      } catch (error) {
        // The faucet refused (a wallet that cannot hold funds, a balance that would overflow): the client's to fix.
        if (isChainError(error) && error.code !== 'unavailable') {
          throw new ApiError('validation_failed', `The airdrop was refused: ${error.message}`, [
            `body: ${error.message}`,
          ]);
        }
        throw error;
      }
      return { signature, wallet, asset: asset.symbol, amount_raw: raw.toString() };
    },
  );
};
