// Dev RPC (/v1/dev/rpc): the embedded chain as a Solana JSON-RPC endpoint, so a taker client can read the
// escrows and the clock and send its own transactions through an RPC rather than through the service's word
// (the swap page verifies the maker's lock through it before revealing). Only the embedded chain has it — on
// a real cluster the taker uses an RPC of its own and the route is not registered (404 like any unknown
// route). Public like the chain itself: reads of chain state and sendTransaction, nothing of the dev
// controls (no clock, no airdrop), answered by the loopback chain server's own methods.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { answerJsonRpc, createRpcMethods, RpcError } from '../../chain/embedded/json-rpc.ts';
import type { DevChain } from '../../chain/index.ts';
import { EmbeddedLedger } from '../../chain/index.ts';
import { errorResponses } from '../errors.ts';
import { PUBLIC_SECURITY } from './operator.ts';

/**
 * The methods a taker client needs: reads, the clock's sysvar among the accounts, sending, simulating a lock
 * before its wallet signs it (with the accounts it watches), and the genesis hash by which a client knows it
 * reads the service's own embedded chain.
 */
export const DEV_RPC_METHODS = [
  'getAccountInfo',
  'getMultipleAccounts',
  'getBalance',
  'getTokenAccountBalance',
  'getLatestBlockhash',
  'isBlockhashValid',
  'getBlockHeight',
  'getSlot',
  'getSignatureStatuses',
  'getMinimumBalanceForRentExemption',
  'sendTransaction',
  'simulateTransaction',
  'getGenesisHash',
  'getHealth',
  'getVersion',
] as const;

const JsonRpcRequestSchema = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([Type.String({ maxLength: 64 }), Type.Integer(), Type.Null()]),
    method: Type.String({ maxLength: 64, description: `one of ${DEV_RPC_METHODS.join(', ')}` }),
    params: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 4 })),
  },
  { title: 'JsonRpcRequest' },
);

const JsonRpcResponseSchema = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([Type.String(), Type.Integer(), Type.Null()]),
    result: Type.Optional(Type.Unknown()),
    error: Type.Optional(
      Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) }),
    ),
  },
  { title: 'JsonRpcResponse' },
);

/** The embedded ledger behind the service's dev controls, or null on a real cluster. */
export function devRpcLedger(devChain: DevChain | null): EmbeddedLedger | null {
  const ledger = (devChain as { ledger?: unknown } | null)?.ledger;
  return ledger instanceof EmbeddedLedger ? ledger : null;
}

export interface DevRpcRoutesOptions {
  ledger: EmbeddedLedger;
}

export const devRpcRoutes: FastifyPluginAsyncTypebox<DevRpcRoutesOptions> = async (app, opts) => {
  const methods = createRpcMethods(opts.ledger);
  const allowed = new Set<string>(DEV_RPC_METHODS);
  const call = (method: string, params: unknown[]) => {
    if (!allowed.has(method)) throw new RpcError(-32601, `Method not found: ${method}`);
    return methods(method, params);
  };

  app.post(
    '/rpc',
    {
      schema: {
        operationId: 'devRpc',
        tags: ['Dev'],
        summary: 'Embedded chain only: a Solana JSON-RPC endpoint (a subset) over the embedded chain',
        description:
          'Present only when the service runs its embedded chain (404 route_not_found on a real cluster, where ' +
          'a taker uses its own RPC). Answers JSON-RPC 2.0 as a validator does — 200 with `result` or a ' +
          `JSON-RPC \`error\` — for ${DEV_RPC_METHODS.join(', ')}: what a taker client needs to read the ` +
          'escrows and the Clock sysvar, to simulate a lock before signing it, to send its own redeem or refund, ' +
          'and to know this chain by its genesis hash. Every answer is at finalized.',
        security: PUBLIC_SECURITY,
        body: JsonRpcRequestSchema,
        response: { 200: JsonRpcResponseSchema, ...errorResponses('validation_failed') },
      },
    },
    async (request) => answerJsonRpc(call, request.body),
  );
};
