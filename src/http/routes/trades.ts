// Trades group (/v1/trades): the taker's commands on a trade (lock, abandon, redeem, refund, resume) and its
// read, public; the list of trades and a trade's event history, for the operator. Each handler makes one
// call to the runtime (a command sends its event to the trade's actor, named beside each route) and renders
// the trade it answers as TradeResponse.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../../config/index.ts';
import type { TradeRuntime } from '../../runtime/index.ts';
import { ApiError, errorResponses } from '../errors.ts';
import { stringifyJson } from '../json.ts';
import {
  eventStreamResponse,
  hash32Field,
  preimageField,
  StreamHeaders,
  unsignedTransaction,
} from '../schemas.ts';
import { EventStreams, type StreamCounter, sseMessage } from '../sse.ts';
import { renderTrade, renderTradePage } from '../trade-response.ts';
import type { TypeBoxHandler } from '../typebox-app.ts';
import { OPERATOR_SECURITY, type OperatorAccess, PUBLIC_SECURITY, requireOperator } from './operator.ts';
import {
  AbandonRequestSchema,
  LockRequestSchema,
  RedeemRequestSchema,
  TradeEventsSchema,
  TradeIdParams,
  TradeListQuery,
  TradePageSchema,
  TradeResponseSchema,
  TradeStreamQuery,
  WalletModeQuery,
  WalletTransactionResponseSchema,
} from './trades.schema.ts';
import { assertWritable } from './writable.ts';

export interface TradeRoutesOptions {
  runtime: TradeRuntime;
  assets: Config['assets'];
}

export interface PublicTradeRoutesOptions extends TradeRoutesOptions {
  /** Counts the trade streams open (event_streams_open{stream="trade"}). */
  streams?: StreamCounter;
  /** False while the store cannot write (its disk is full): a taker's lock is not broadcast. Default: true. */
  writable?: () => boolean;
}

const COMMAND_ERRORS = [
  'trade_not_found',
  'runtime_unavailable',
  'chain_unavailable',
  'storage_full',
] as const;

/** Open streams allowed per trade (a taker's tabs and reconnects) and in all: each holds a socket. */
const STREAMS_PER_TRADE = 8;
const STREAMS_IN_ALL = 10_000;

/** What the taker's handlers read: the runtime, the assets amounts are rendered in, the open streams. */
interface TradeContext {
  commands: TradeRuntime['commands'];
  queries: TradeRuntime['queries'];
  assets: Config['assets'];
  /** False while the store cannot write. */
  writable: () => boolean;
  streams: EventStreams;
  /** Each trade's open streams, woken when its events become durable. */
  listeners: Map<string, Set<() => void>>;
}

/** The taker's routes: public, since the trade id and the secrets are what a taker proves itself with. */
export const tradeRoutes: FastifyPluginAsyncTypebox<PublicTradeRoutesOptions> = async (app, opts) => {
  const { commands, queries } = opts.runtime;
  const ctx: TradeContext = {
    commands,
    queries,
    assets: opts.assets,
    writable: opts.writable ?? (() => true),
    streams: new EventStreams(opts.streams),
    listeners: new Map(),
  };
  const unsubscribe = opts.runtime.onEvents((tradeId) => {
    for (const listener of ctx.listeners.get(tradeId) ?? []) listener();
  });
  app.addHook('preClose', async () => {
    ctx.streams.endAll();
    unsubscribe();
  });

  app.get('/:trade_id', { schema: getTradeSchema }, getTradeHandler(ctx));
  app.get('/:trade_id/stream', { schema: streamTradeSchema }, streamTradeHandler(ctx));
  app.post('/:trade_id/lock', { schema: submitLockSchema }, submitLockHandler(ctx));
  app.post('/:trade_id/abandon', { schema: abandonTradeSchema }, abandonTradeHandler(ctx));
  app.post('/:trade_id/redeem', { schema: redeemTradeSchema }, redeemTradeHandler(ctx));
  app.post('/:trade_id/refund', { schema: refundTradeSchema }, refundTradeHandler(ctx));
  app.post('/:trade_id/resume', { schema: resumeTradeSchema }, resumeTradeHandler(ctx));
};

const getTradeSchema = {
  operationId: 'getTrade',
  tags: ['Trades'],
  summary: 'A trade',
  description:
    'The trade as it is now (TradeResponse): settlement_status and substate, amounts, signatures, escrow ' +
    'addresses and deadlines, and next_action while the taker has a step to take. Poll it to follow a ' +
    'settlement.',
  security: PUBLIC_SECURITY,
  params: TradeIdParams,
  response: { 200: TradeResponseSchema, ...errorResponses('trade_not_found', 'runtime_unavailable') },
};

const getTradeHandler = ({ queries, assets }: TradeContext): TypeBoxHandler<typeof getTradeSchema> =>
  async function getTrade(request) {
    return renderTrade(await queries.trade(request.params.trade_id), assets);
  };

const streamTradeSchema = {
  operationId: 'streamTrade',
  tags: ['Trades'],
  summary: 'A trade, live, as Server-Sent Events',
  description:
    'First `event: trade` with the TradeResponse as it is now (its `id` is the cursor the stream starts ' +
    'after); then, for each event of this trade as it becomes durable, `id: <seq>`, `event: trade-event`, ' +
    '`data: {"event": <TradeEvent>, "trade": <TradeResponse as it is when sent>}`. By default only new ' +
    'events follow; the Last-Event-ID header (sent by EventSource on a reconnect) or ?after= (0: the ' +
    'whole history) replays the ones after that seq first. Comment lines are heartbeats. 429 ' +
    'rate_limited past 8 open streams of one trade.',
  security: PUBLIC_SECURITY,
  params: TradeIdParams,
  querystring: TradeStreamQuery,
  headers: StreamHeaders,
  response: {
    200: eventStreamResponse('text/event-stream of the trade and its events'),
    ...errorResponses('trade_not_found', 'runtime_unavailable'),
  },
};

/** Reads only: the trade's stored events, as the actor's transitions make them durable. */
const streamTradeHandler = ({
  queries,
  assets,
  streams,
  listeners,
}: TradeContext): TypeBoxHandler<typeof streamTradeSchema> =>
  async function streamTrade(request, reply) {
    const tradeId = request.params.trade_id;
    const trade = renderTrade(await queries.trade(tradeId), assets);
    const header = request.headers['last-event-id'];
    const after =
      typeof header === 'string'
        ? Number(header)
        : (request.query.after ?? (await queries.tradeEvents(tradeId)).at(-1)?.seq ?? 0);
    if ((listeners.get(tradeId)?.size ?? 0) >= STREAMS_PER_TRADE || streams.size >= STREAMS_IN_ALL) {
      throw new ApiError('rate_limited', 'Too many open streams of this trade; close one first.');
    }
    streams.stream(request, reply, after, {
      opening: sseMessage(after, 'trade', stringifyJson(trade)),
      items: (afterSeq, limit) => queries.tradeEventsAfter(tradeId, afterSeq, limit),
      message: async (event) =>
        sseMessage(
          event.seq,
          'trade-event',
          stringifyJson({ event, trade: renderTrade(await queries.trade(tradeId), assets) }),
        ),
      subscribe: (listener) => {
        const mine = listeners.get(tradeId) ?? new Set<() => void>();
        mine.add(listener);
        listeners.set(tradeId, mine);
        return () => {
          mine.delete(listener);
          if (mine.size === 0) listeners.delete(tradeId);
        };
      },
    });
  };

const submitLockSchema = {
  operationId: 'submitLock',
  tags: ['Trades'],
  summary: 'Hand over the wallet-signed lock (or its signature)',
  description:
    '202 once the transaction is on chain and this trade’s escrow holds the agreed terms; 409 lock_not_found ' +
    '(retryable) if it has not appeared within a bounded wait. transaction_base64 must be the lock this ' +
    'trade’s settlement start (or its retry) handed out, signed by taker_wallet and otherwise unchanged ' +
    '(any blockhash; the chain judges whether it is recent): 400 lock_mismatch, with what differs in ' +
    'details, for anything else (an added, removed or changed instruction, another fee payer, a lookup ' +
    'table, a compute-budget instruction), and nothing is sent.',
  security: PUBLIC_SECURITY,
  params: TradeIdParams,
  body: LockRequestSchema,
  response: {
    202: TradeResponseSchema,
    ...errorResponses(
      ...COMMAND_ERRORS,
      'lock_mismatch',
      'lock_not_found',
      'lock_window_closed',
      'lock_signature_exists',
    ),
  },
};

/** LOCK_SUBMITTED, then TAKER_LOCK_SEEN / TAKER_LOCK_FINALIZED once the escrow is read on chain. */
const submitLockHandler = ({
  commands,
  assets,
  writable,
}: TradeContext): TypeBoxHandler<typeof submitLockSchema> =>
  async function submitLock(request, reply) {
    assertWritable(writable);
    const body = request.body as { transaction_base64?: string; signature?: string };
    const trade = await commands.submitLock(request.params.trade_id, {
      ...(body.transaction_base64 !== undefined ? { transactionBase64: body.transaction_base64 } : {}),
      ...(body.signature !== undefined ? { signature: body.signature } : {}),
    });
    return reply.code(202).send(renderTrade(trade, assets));
  };

const abandonTradeSchema = {
  operationId: 'abandonTrade',
  tags: ['Trades'],
  summary: 'Abandon an unused settlement before any lock signature exists',
  description:
    '202 and the trade ends as failed, if no lock signature exists for it (the chain is read first). The ' +
    'secret_hash proves the caller started the settlement (403 secret_hash_mismatch otherwise); 409 once ' +
    'a lock exists, since the escrow then runs to redeem or refund.',
  security: PUBLIC_SECURITY,
  params: TradeIdParams,
  body: AbandonRequestSchema,
  response: {
    202: TradeResponseSchema,
    ...errorResponses(...COMMAND_ERRORS, 'secret_hash_mismatch', 'lock_signature_exists', 'not_abandonable'),
  },
};

/** ABANDON (after the chain was read for a lock). */
const abandonTradeHandler = ({ commands, assets }: TradeContext): TypeBoxHandler<typeof abandonTradeSchema> =>
  async function abandonTrade(request, reply) {
    const secretHash = hash32Field(request.body.secret_hash, 'body.secret_hash');
    const trade = await commands.abandon(request.params.trade_id, secretHash);
    return reply.code(202).send(renderTrade(trade, assets));
  };

const redeemTradeSchema = {
  operationId: 'redeemTrade',
  tags: ['Trades'],
  summary: 'Redeem the maker escrow for the taker with the preimage',
  description:
    '202 and the service submits the redeem (funds can only go to the taker) until final. ?mode=wallet answers ' +
    'an unsigned redeem for the taker’s wallet instead and changes nothing.',
  security: PUBLIC_SECURITY,
  params: TradeIdParams,
  querystring: WalletModeQuery,
  body: RedeemRequestSchema,
  response: {
    200: WalletTransactionResponseSchema,
    202: TradeResponseSchema,
    ...errorResponses(...COMMAND_ERRORS, 'preimage_mismatch', 'not_redeemable'),
  },
};

/** REDEEM_REQUESTED (service mode) or nothing at all (wallet mode). */
const redeemTradeHandler = ({ commands, assets }: TradeContext): TypeBoxHandler<typeof redeemTradeSchema> =>
  async function redeemTrade(request, reply) {
    const { trade_id } = request.params;
    const preimage = preimageField(request.body.preimage, 'body.preimage');
    if (request.query.mode === 'wallet') {
      const { trade, transaction } = await commands.walletRedeem(trade_id, preimage);
      return reply
        .code(200)
        .send({ trade: renderTrade(trade, assets), transaction: unsignedTransaction(transaction) });
    }
    return reply.code(202).send(renderTrade(await commands.redeem(trade_id, preimage), assets));
  };

const refundTradeSchema = {
  operationId: 'refundTrade',
  tags: ['Trades'],
  summary: 'Refund the expired taker escrow to the taker',
  description:
    'Once the taker escrow has expired unredeemed: 202 and the service submits the refund (funds can only ' +
    'go back to the taker); ?mode=wallet answers an unsigned refund instead. 409 not_refundable before.',
  security: PUBLIC_SECURITY,
  params: TradeIdParams,
  querystring: WalletModeQuery,
  response: {
    200: WalletTransactionResponseSchema,
    202: TradeResponseSchema,
    ...errorResponses(...COMMAND_ERRORS, 'not_refundable'),
  },
};

/** REFUND_REQUESTED (service mode) or nothing at all (wallet mode). */
const refundTradeHandler = ({ commands, assets }: TradeContext): TypeBoxHandler<typeof refundTradeSchema> =>
  async function refundTrade(request, reply) {
    const { trade_id } = request.params;
    if (request.query.mode === 'wallet') {
      const { trade, transaction } = await commands.walletRefund(trade_id);
      return reply
        .code(200)
        .send({ trade: renderTrade(trade, assets), transaction: unsignedTransaction(transaction) });
    }
    return reply.code(202).send(renderTrade(await commands.refund(trade_id), assets));
  };

const resumeTradeSchema = {
  operationId: 'resumeTrade',
  tags: ['Trades'],
  summary: 'Reconcile a trade with the chain now',
  description:
    'Reads the trade’s escrows and judges its due deadlines now; takes the trade up again after a write of ' +
    'it failed (it answered 503 runtime_unavailable or storage_full), or from an instance that is gone. 202 ' +
    'once reconciled; 503 chain_unavailable while the chain cannot be reached (nothing changes). ' +
    'Idempotent. Never needed after an outage, nor after a full disk: the service acts on every trade the ' +
    'moment the chain answers again, and takes up every trade whose write failed once a write succeeds.',
  security: PUBLIC_SECURITY,
  params: TradeIdParams,
  response: { 202: TradeResponseSchema, ...errorResponses(...COMMAND_ERRORS) },
};

/** ADOPTED (restores the actor in this run), then reconciliation with the chain. */
const resumeTradeHandler = ({ commands, assets }: TradeContext): TypeBoxHandler<typeof resumeTradeSchema> =>
  async function resumeTrade(request, reply) {
    return reply.code(202).send(renderTrade(await commands.resume(request.params.trade_id), assets));
  };

export interface TradeOperatorRoutesOptions extends TradeRoutesOptions {
  operator: OperatorAccess;
}

/** The operator's reads of trades, under the same prefix: every trade, and a trade's event history. */
export const tradeOperatorRoutes: FastifyPluginAsyncTypebox<TradeOperatorRoutesOptions> = async (
  app,
  opts,
) => {
  const { queries } = opts.runtime;
  const { assets } = opts;
  requireOperator(app, opts.operator);

  app.get(
    '/',
    {
      schema: {
        operationId: 'listTrades',
        tags: ['Trades'],
        summary: 'Trades, oldest first, filtered by wallet and status, paged by cursor',
        description:
          'Operator route. A page of TradeResponse, oldest first; pass next_cursor as ?cursor= for the next ' +
          'page (null on the last one).',
        security: OPERATOR_SECURITY,
        querystring: TradeListQuery,
        response: { 200: TradePageSchema, ...errorResponses('unauthorized') },
      },
    },
    async function listTrades(request) {
      const { taker_wallet, status, limit = 50, cursor } = request.query;
      const page = await queries.listTrades({ takerWallet: taker_wallet, status, limit, cursor });
      return renderTradePage(page, assets);
    },
  );

  app.get(
    '/:trade_id/events',
    {
      schema: {
        operationId: 'listTradeEvents',
        tags: ['Trades'],
        summary: 'The trade’s event history',
        description:
          'Operator route. Every stored event of one trade in seq order, with the settlement status and ' +
          'substate it led to; payloads never carry the commitment, a preimage or a signed transaction.',
        security: OPERATOR_SECURITY,
        params: TradeIdParams,
        response: { 200: TradeEventsSchema, ...errorResponses('trade_not_found', 'unauthorized') },
      },
    },
    async function listTradeEvents(request) {
      return { events: await queries.tradeEvents(request.params.trade_id) };
    },
  );
};
