// Runtime group (/v1/runtime): the operator's view of the running process (status, runs, trades, ledger,
// the event log polled or streamed as Server-Sent Events) and the trade machine's definition. Every route
// takes the operator token (docs/interface.md#guards).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { machineDefinition } from '../../../machines/trade.definition.ts';
import type { Config } from '../../config/index.ts';
import { formatDecimal } from '../../money/index.ts';
import type { TradeRuntime } from '../../runtime/index.ts';
import { SETTLEMENT_STATUSES } from '../../vocabulary/index.ts';
import { errorResponses } from '../errors.ts';
import { stringifyJson } from '../json.ts';
import { StreamHeaders } from '../schemas.ts';
import { EventStreams, type StreamCounter, type StreamSource, sseMessage } from '../sse.ts';
import { renderTradePage } from '../trade-response.ts';
import type { TypeBoxHandler } from '../typebox-app.ts';
import { OperatorReadinessSchema, type ReadinessPart } from './health.schema.ts';
import { OPERATOR_SECURITY, type OperatorAccess, OperatorQuery, requireOperator } from './operator.ts';
import {
  EventPageSchema,
  EventStreamResponse,
  EventsQuery,
  LedgerQuery,
  LedgerSchema,
  MachineSchema,
  RunListSchema,
  RuntimeSchema,
  RuntimeTradesQuery,
  StreamQuery,
} from './runtime.schema.ts';
import { TradePageSchema } from './trades.schema.ts';

export interface RuntimeRoutesOptions {
  runtime: TradeRuntime;
  run: { runId: string; startedAt: Date };
  version: string;
  assets: Config['assets'];
  operator: OperatorAccess;
  /** Every readiness part with its detail (GET /v1/runtime/readiness). */
  readiness: () => Promise<ReadinessPart[]>;
  /** Counts the log streams open (event_streams_open{stream="runtime"}). */
  streams?: StreamCounter;
}

/** What the operator's runtime handlers read. */
interface RuntimeContext {
  queries: TradeRuntime['queries'];
  run: RuntimeRoutesOptions['run'];
  version: string;
  assets: Config['assets'];
  readiness: RuntimeRoutesOptions['readiness'];
  definition: ReturnType<typeof machineDefinition>;
  streams: EventStreams;
  /** The runtime's event log as a stream source (GET /events/stream). */
  eventLog: StreamSource<{ seq: number }>;
}

export const runtimeRoutes: FastifyPluginAsyncTypebox<RuntimeRoutesOptions> = async (app, opts) => {
  const { runtime, run, version, assets } = opts;
  const { queries } = runtime;
  requireOperator(app, opts.operator);
  const definition = machineDefinition();
  const streams = new EventStreams(opts.streams);
  const eventLog: StreamSource<{ seq: number }> = {
    items: (afterSeq, limit) => queries.eventLog(afterSeq, limit),
    message: (event) => sseMessage(event.seq, 'trade', stringifyJson(event)),
    subscribe: (listener) => runtime.onEvents(() => listener()),
  };
  app.addHook('preClose', async () => streams.endAll());
  const ctx: RuntimeContext = {
    queries,
    run,
    version,
    assets,
    readiness: opts.readiness,
    definition,
    streams,
    eventLog,
  };

  app.get('/', { schema: getRuntimeSchema }, getRuntimeHandler(ctx));
  app.get('/readiness', { schema: getRuntimeReadinessSchema }, getRuntimeReadinessHandler(ctx));
  app.get('/runs', { schema: listRunsSchema }, listRunsHandler(ctx));
  app.get('/trades', { schema: listRunTradesSchema }, listRunTradesHandler(ctx));
  app.get('/ledger', { schema: getLedgerSchema }, getLedgerHandler(ctx));
  app.get('/events', { schema: listRuntimeEventsSchema }, listRuntimeEventsHandler(ctx));
  app.get('/events/stream', { schema: streamRuntimeEventsSchema }, streamRuntimeEventsHandler(ctx));
  app.get('/machines/trade', { schema: getTradeMachineSchema }, getTradeMachineHandler(ctx));
};

const getRuntimeSchema = {
  operationId: 'getRuntime',
  tags: ['Runtime'],
  summary: 'This run: its trades (active and at rest), chain and store status, maker balances',
  description:
    'Operator route. The trades this run owns by status and substate, which actors are in memory, the ' +
    'trades whose effect keeps failing, chain and store health, and the maker’s balances.',
  security: OPERATOR_SECURITY,
  querystring: OperatorQuery,
  response: { 200: RuntimeSchema, ...errorResponses('unauthorized') },
};

const getRuntimeHandler = ({
  queries,
  run,
  version,
}: RuntimeContext): TypeBoxHandler<typeof getRuntimeSchema> =>
  async function getRuntime() {
    const status = await queries.runtimeStatus();
    const actors = await queries.actors();
    const byState = Object.fromEntries(SETTLEMENT_STATUSES.map((s) => [s, 0]));
    const bySubstate: Record<string, number> = {};
    for (const row of actors.owned) {
      byState[row.status] = (byState[row.status] ?? 0) + row.count;
      bySubstate[row.substate] = (bySubstate[row.substate] ?? 0) + row.count;
    }
    const iso = (unix: number | null) => (unix === null ? null : new Date(unix * 1000).toISOString());
    const { chain } = status;
    return {
      run_id: run.runId,
      started_at: run.startedAt.toISOString(),
      version,
      uptime_seconds: Math.floor((Date.now() - run.startedAt.getTime()) / 1000),
      actors: {
        count: actors.total,
        active: actors.active.length,
        at_rest: Math.max(0, actors.total - actors.active.length),
        by_state: byState,
        by_substate: bySubstate,
        list: actors.active.map((a) => ({
          trade_id: a.trade_id,
          settlement_status: a.status,
          substate: a.substate,
        })),
        failing_effects: actors.failing.map((f) => ({ ...f, next_retry_at: iso(f.next_retry_at) })),
      },
      chain: {
        kind: chain.kind,
        healthy: chain.healthy,
        detail: chain.detail,
        chain_time: iso(chain.now),
        chain_time_unix: chain.now,
        program_id: chain.programId,
        maker_wallet: chain.makerWallet,
        fee_balance_lamports: chain.feeLamports === null ? null : chain.feeLamports.toString(),
      },
      store: status.store,
      balances: status.balances.map(({ asset, raw }) => ({
        asset: asset.symbol,
        mint: asset.mint,
        decimals: asset.decimals,
        amount_raw: raw === null ? null : raw.toString(),
        amount: raw === null ? null : formatDecimal(raw, asset.decimals),
      })),
      last_event_seq: await queries.lastEventSeq(),
    };
  };

const getRuntimeReadinessSchema = {
  operationId: 'getRuntimeReadiness',
  tags: ['Runtime'],
  summary: 'Readiness with the numbers behind it: store kind, chain time, fee balance, counts',
  description:
    'Operator route. The parts of GET /v1/health/ready, each with its public reason and the operator’s ' +
    'detail; always 200 (status says whether the service is ready). Costs no chain call.',
  security: OPERATOR_SECURITY,
  querystring: OperatorQuery,
  response: { 200: OperatorReadinessSchema, ...errorResponses('unauthorized') },
};

const getRuntimeReadinessHandler = ({
  readiness,
}: RuntimeContext): TypeBoxHandler<typeof getRuntimeReadinessSchema> =>
  async function getRuntimeReadiness() {
    const parts = await readiness();
    return { status: parts.every((part) => part.ok) ? ('ready' as const) : ('not_ready' as const), parts };
  };

const listRunsSchema = {
  operationId: 'listRuns',
  tags: ['Runtime'],
  summary: 'Every run of the service, oldest first, with its trade counts',
  description:
    'Operator route. One entry per start of the service on this store (every instance’s, with ' +
    'PostgreSQL), with start and stop times, where it answers, its lease, and the trades it created ' +
    'and owns; current marks the run answering.',
  security: OPERATOR_SECURITY,
  querystring: OperatorQuery,
  response: { 200: RunListSchema, ...errorResponses('unauthorized') },
};

const listRunsHandler = ({ queries, run }: RuntimeContext): TypeBoxHandler<typeof listRunsSchema> =>
  async function listRuns() {
    return {
      runs: (await queries.runs()).map((stored) => ({
        run_id: stored.runId,
        version: stored.version,
        started_at: stored.startedAt,
        stopped_at: stored.stoppedAt,
        current: stored.runId === run.runId,
        url: stored.url,
        lease_expires_at:
          stored.leaseExpiresAtMs === null ? null : new Date(stored.leaseExpiresAtMs).toISOString(),
        live:
          stored.stoppedAt === null &&
          (stored.leaseExpiresAtMs === null
            ? stored.runId === run.runId
            : stored.leaseExpiresAtMs > Date.now()),
        trades_created: stored.created,
        trades_owned: stored.owned,
      })),
    };
  };

const listRunTradesSchema = {
  operationId: 'listRunTrades',
  tags: ['Runtime'],
  summary: 'Trades the current run owns (or, with run_id, those a run created), paged by cursor',
  description:
    'Operator route. A page of TradeResponse; pass next_cursor as ?cursor= for the next page (null on ' +
    'the last one).',
  security: OPERATOR_SECURITY,
  querystring: RuntimeTradesQuery,
  response: { 200: TradePageSchema, ...errorResponses('unauthorized') },
};

const listRunTradesHandler = ({
  queries,
  assets,
}: RuntimeContext): TypeBoxHandler<typeof listRunTradesSchema> =>
  async function listRunTrades(request) {
    const { run_id, status, limit = 50, cursor } = request.query;
    return renderTradePage(await queries.runTrades({ runId: run_id, status, limit, cursor }), assets);
  };

const getLedgerSchema = {
  operationId: 'getLedger',
  tags: ['Runtime'],
  summary: 'Ledger entries (amounts as exact strings) and a summary per trade',
  description:
    'Operator route. The double-entry ledger of escrow movements, of every trade or of one (?trade_id=), ' +
    'and per trade whether it balances and the maker’s result estimated in USDC.',
  security: OPERATOR_SECURITY,
  querystring: LedgerQuery,
  response: { 200: LedgerSchema, ...errorResponses('unauthorized', 'trade_not_found') },
};

const getLedgerHandler = ({ queries, assets }: RuntimeContext): TypeBoxHandler<typeof getLedgerSchema> =>
  async function getLedger(request) {
    const { entries, summaries } = await queries.ledgerView(request.query.trade_id);
    return {
      entries: entries.map((e) => ({
        entry_id: e.entryId,
        trade_id: e.tradeId,
        movement: e.movement,
        signature: e.signature,
        mint: e.mint,
        asset: assets.find(e.mint)?.symbol ?? null,
        account: e.account,
        side: e.side,
        amount_raw: e.amountRaw.toString(),
        at: e.at,
      })),
      summaries: summaries.map(({ tradeId, summary }) => ({ trade_id: tradeId, ...summary })),
    };
  };

const listRuntimeEventsSchema = {
  operationId: 'listRuntimeEvents',
  tags: ['Runtime'],
  summary: 'The runtime event log after a seq, in seq order',
  description:
    'Operator route. Every stored event of every trade; payloads never carry the commitment, a preimage ' +
    'or a signed transaction. Poll with ?after=<next_cursor>.',
  security: OPERATOR_SECURITY,
  querystring: EventsQuery,
  response: { 200: EventPageSchema, ...errorResponses('unauthorized') },
};

const listRuntimeEventsHandler = ({
  queries,
}: RuntimeContext): TypeBoxHandler<typeof listRuntimeEventsSchema> =>
  async function listRuntimeEvents(request) {
    const { after = 0, limit = 100 } = request.query;
    const events = await queries.eventLog(after, limit);
    return { events, next_cursor: events.at(-1)?.seq ?? after };
  };

const streamRuntimeEventsSchema = {
  operationId: 'streamRuntimeEvents',
  tags: ['Runtime'],
  summary: 'The runtime event log, live, as Server-Sent Events',
  description:
    'Operator route (EventSource cannot set headers: use ?access_token=). Each event is `id: <seq>`, ' +
    '`event: trade`, `data: <TradeEvent JSON>` — the items of GET /v1/runtime/events, in the same ' +
    'order. Resumes after the Last-Event-ID header (or ?after=); with neither it starts at the log’s ' +
    'end. Comment lines are heartbeats.',
  security: OPERATOR_SECURITY,
  querystring: StreamQuery,
  headers: StreamHeaders,
  response: { 200: EventStreamResponse, ...errorResponses('unauthorized') },
};

const streamRuntimeEventsHandler = ({
  queries,
  streams,
  eventLog,
}: RuntimeContext): TypeBoxHandler<typeof streamRuntimeEventsSchema> =>
  async function streamRuntimeEvents(request, reply) {
    const header = request.headers['last-event-id'];
    const after =
      typeof header === 'string' ? Number(header) : (request.query.after ?? (await queries.lastEventSeq()));
    streams.stream(request, reply, after, eventLog);
  };

const getTradeMachineSchema = {
  operationId: 'getTradeMachine',
  tags: ['Runtime'],
  summary: 'The trade machine’s definition, for visualisers',
  description:
    'Operator route. Generated from the machine: states with full ids, transitions with guards by name; ' +
    'each state that is not a group of others names the substate TradeResponse and the events show in it.',
  security: OPERATOR_SECURITY,
  querystring: OperatorQuery,
  response: { 200: MachineSchema, ...errorResponses('unauthorized') },
};

const getTradeMachineHandler = ({
  definition,
}: RuntimeContext): TypeBoxHandler<typeof getTradeMachineSchema> =>
  async function getTradeMachine() {
    return definition;
  };
