// Dev group: the embedded chain's faucet, so a taker wallet can be funded over HTTP for demos and tests.
// Real clusters have no such thing: there the route answers 404 like any unknown route.
import { PublicKey } from '@solana/web3.js';
import { isChainError } from '../../chain/index.ts';
import { parseAmount } from '../../money/index.ts';
import type { TypeBoxApp } from '../app.ts';
import { ApiError, errorResponses } from '../errors.ts';
import { assertWallet } from '../schemas.ts';
import { AirdropRequestSchema, AirdropResponseSchema } from './dev.schema.ts';
import type { HttpDeps } from './index.ts';
import { OPERATOR_SECURITY, requireOperator } from './operator.ts';

export async function devRoutes(app: TypeBoxApp, deps: HttpDeps): Promise<void> {
  const { devChain } = deps;
  if (!devChain) return;
  app.post(
    '/v1/dev/airdrop',
    {
      preHandler: requireOperator(deps),
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
    async (request) => {
      const { wallet, asset: key, amount } = request.body;
      assertWallet(wallet, 'body.wallet');
      const asset = deps.config.assets.find(key);
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
}
