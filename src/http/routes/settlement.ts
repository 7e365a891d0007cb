// Settlement group (/v1/quotes): starting the wallet settlement of a quote, which creates the trade's actor
// (machine input; first event SETTLEMENT_STARTED in the log) through the runtime's commands.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../../config/index.ts';
import type { ServiceMetrics } from '../../metrics/index.ts';
import type { TradeRuntime } from '../../runtime/index.ts';
import { errorResponses } from '../errors.ts';
import { assertWallet, hash32Field, unsignedTransaction } from '../schemas.ts';
import { renderTrade } from '../trade-response.ts';
import { PUBLIC_SECURITY } from './operator.ts';
import { assertTradable } from './rfq.ts';
import {
  SettlementParams,
  WalletSettlementRequestSchema,
  WalletSettlementResponseSchema,
} from './settlement.schema.ts';
import { assertWritable } from './writable.ts';

export interface SettlementRoutesOptions {
  runtime: TradeRuntime;
  assets: Config['assets'];
  metrics: ServiceMetrics;
  /** False until every configured mint is checked on the chain. */
  tradable: () => boolean;
  /** False while the store cannot write (its disk is full): no settlement starts. Default: always true. */
  writable?: () => boolean;
}

export const settlementRoutes: FastifyPluginAsyncTypebox<SettlementRoutesOptions> = async (app, opts) => {
  const { runtime, assets, metrics, tradable } = opts;
  const writable = opts.writable ?? (() => true);

  app.post(
    '/:quote_id/wallet-settlement',
    {
      schema: {
        operationId: 'startWalletSettlement',
        tags: ['Settlement'],
        summary: 'Start wallet settlement of a quote',
        description:
          'Commits to sha256(secret) (the secret stays in the taker’s browser) and creates the trade: 201 with ' +
          'the unsigned taker lock for the wallet to sign, then submit through next_action. The same wallet and ' +
          'secret_hash again, while the trade is pending and its lock window open, answers 200 with the same ' +
          'trade and a lock rebuilt on a fresh blockhash.',
        security: PUBLIC_SECURITY,
        params: SettlementParams,
        body: WalletSettlementRequestSchema,
        response: {
          200: WalletSettlementResponseSchema,
          201: WalletSettlementResponseSchema,
          ...errorResponses(
            'quote_not_found',
            'quote_expired',
            'taker_wallet_mismatch',
            'runtime_unavailable',
            'chain_unavailable',
            'storage_full',
          ),
        },
      },
    },
    async (request, reply) => {
      const started = performance.now();
      assertWallet(request.body.taker_wallet, 'body.taker_wallet');
      assertTradable(tradable, reply);
      assertWritable(writable);
      const result = await runtime.commands.startSettlement(
        request.params.quote_id,
        request.body.taker_wallet,
        hash32Field(request.body.secret_hash, 'body.secret_hash'),
      );
      const trade = renderTrade(result.trade, assets);
      const outcome = result.created ? 'created' : 'repeated';
      metrics.settlementStarted(outcome, (performance.now() - started) / 1000);
      reply.code(result.created ? 201 : 200);
      return {
        quote_id: trade.quote_id,
        trade_id: trade.trade_id,
        taker_lock_transaction: unsignedTransaction(result.lock),
        expires_at: trade.expires_at as string,
        integration_status: trade.integration_status,
        next_action: {
          type: 'submit_lock' as const,
          method: 'POST' as const,
          path: `/v1/trades/${trade.trade_id}/lock`,
        },
        lock_deadline: trade.lock_deadline,
        redeem_by: trade.redeem_by,
        taker_escrow: trade.taker_escrow,
        maker_escrow: trade.maker_escrow,
        program_id: trade.program_id,
      };
    },
  );
};
