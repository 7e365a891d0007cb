// Runtime group: the operator's view of the running process (status, runs, trades, ledger, the event log
// polled or streamed as Server-Sent Events), the trade machine's definition and the visualiser page.
// Every route takes the operator token (docs/interface.md#guards).
import Type from 'typebox';
import { machineDefinition } from '../../../machines/trade.definition.ts';
import { formatDecimal } from '../../money/index.ts';
import { vizPage } from '../../visualiser/index.ts';
import { SETTLEMENT_STATUSES } from '../../vocabulary/index.ts';
import type { TypeBoxApp } from '../app.ts';
import { errorResponses } from '../errors.ts';
import { DateTime, Uuid } from '../schemas.ts';
import { EventStreams } from '../sse.ts';
import { renderTradePage } from '../trade-response.ts';
import type { HttpDeps } from './index.ts';
import { OPERATOR_SECURITY, requireOperator } from './operator.ts';
import { TradeEventSchema, TradePageSchema } from './trades.schema.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const RawString = Type.String({ pattern: '^[0-9]+$', description: 'integer count of smallest units, exact' });

/** Browsers cannot set headers on EventSource or a page load: the token may come as a query parameter. */
const AccessToken = {
  access_token: Type.Optional(
    Type.String({ description: 'the operator token, where an Authorization header cannot be set' }),
  ),
};
const OperatorQuery = Type.Object(AccessToken);

const RuntimeSchema = Type.Object(
  {
    run_id: Uuid,
    started_at: DateTime,
    version: Type.String(),
    uptime_seconds: Type.Integer({ minimum: 0 }),
    actors: Type.Object(
      {
        count: Type.Integer({
          minimum: 0,
          description: 'unclosed trades this run owns: active actors plus trades at rest in the store',
        }),
        active: Type.Integer({ minimum: 0, description: 'trades whose actor is in memory now' }),
        at_rest: Type.Integer({
          minimum: 0,
          description: 'owned trades waiting at rest (no actor in memory)',
        }),
        by_state: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
          description: 'owned unclosed trades per settlement_status (every status listed)',
        }),
        by_substate: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
          description: 'owned unclosed trades per full state path',
        }),
        list: Type.Array(
          Type.Object({
            trade_id: Uuid,
            settlement_status: Type.Enum(SETTLEMENT_STATUSES),
            substate: Type.String(),
          }),
          { description: 'the active actors (bounded by activity, not by the number of trades)' },
        ),
        failing_effects: Type.Array(
          Type.Object(
            {
              trade_id: Uuid,
              substate: Type.String(),
              effect: Type.String(),
              attempts: Type.Integer({ minimum: 1 }),
              message: Type.String(),
              next_retry_at: Nullable(DateTime),
            },
            { title: 'FailingEffect' },
          ),
          {
            description:
              'trades whose current effect failed at least 5 times in a row (retried with backoff; look at them)',
          },
        ),
      },
      { title: 'RuntimeActors' },
    ),
    chain: Type.Object(
      {
        kind: Type.Enum(['embedded', 'rpc']),
        healthy: Type.Boolean(),
        detail: Type.String(),
        chain_time: Nullable(DateTime),
        chain_time_unix: Nullable(Type.Integer({ description: 'the Clock sysvar, unix seconds' })),
        program_id: Type.String({ description: 'the HTLC program' }),
        maker_wallet: Type.String(),
        fee_balance_lamports: Nullable(RawString),
      },
      { title: 'RuntimeChain', description: 'null values could not be read from the chain just now' },
    ),
    store: Type.Object(
      { ok: Type.Boolean(), path: Type.String({ description: 'the SQLite file' }) },
      { title: 'RuntimeStore' },
    ),
    balances: Type.Array(
      Type.Object(
        {
          asset: Type.String({ description: 'symbol' }),
          mint: Type.String(),
          decimals: Type.Integer({ minimum: 0 }),
          amount_raw: Nullable(RawString),
          amount: Nullable(Type.String({ description: 'decimal in display units' })),
        },
        { title: 'MakerBalance' },
      ),
      { description: 'the maker’s token balance per configured asset (SOL as wrapped SOL)' },
    ),
    last_event_seq: Type.Integer({
      minimum: 0,
      description: 'the newest seq of the event log; streams opened without a cursor start after it',
    }),
  },
  { title: 'Runtime' },
);

const RunSchema = Type.Object(
  {
    run_id: Uuid,
    version: Type.String(),
    started_at: DateTime,
    stopped_at: Nullable(DateTime),
    current: Type.Boolean({ description: 'the run serving this request' }),
    trades_created: Type.Integer({ minimum: 0 }),
    trades_owned: Type.Integer({
      minimum: 0,
      description: 'trades whose actor the run owns (or owned last)',
    }),
  },
  { title: 'Run' },
);

const RuntimeTradesQuery = Type.Object({
  run_id: Type.Optional(
    Type.String({
      format: 'uuid',
      description: 'trades this run created (default: those the current run owns)',
    }),
  ),
  status: Type.Optional(Type.Enum(SETTLEMENT_STATUSES)),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page' })),
  ...AccessToken,
});

const LedgerSchema = Type.Object(
  {
    entries: Type.Array(
      Type.Object(
        {
          entry_id: Type.Integer({ minimum: 1 }),
          trade_id: Uuid,
          movement: Type.String(),
          signature: Type.String(),
          mint: Type.String(),
          asset: Nullable(Type.String({ description: 'symbol, when the mint is a configured asset' })),
          account: Type.String(),
          side: Type.Enum(['debit', 'credit']),
          amount_raw: RawString,
          at: DateTime,
        },
        { title: 'LedgerEntry' },
      ),
    ),
    summaries: Type.Array(
      Type.Object(
        {
          trade_id: Uuid,
          balanced: Type.Boolean(),
          entry_count: Type.Integer({ minimum: 0 }),
          net_usdc_estimate: Type.String(),
        },
        { title: 'TradeLedgerSummary' },
      ),
    ),
  },
  { title: 'Ledger' },
);

const EventsQuery = Type.Object({
  after: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'events with a greater seq' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  ...AccessToken,
});

const EventPageSchema = Type.Object(
  {
    events: Type.Array(TradeEventSchema),
    next_cursor: Type.Integer({
      minimum: 0,
      description: 'pass as ?after= for the next page (the same value when nothing newer exists yet)',
    }),
  },
  { title: 'EventPage' },
);

const StreamQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'start after this seq; Last-Event-ID wins on reconnects; default: the log’s end (live only)',
    }),
  ),
  ...AccessToken,
});

const StateSchema = Type.Object(
  {
    id: Type.String({ description: 'full id, e.g. trade.initiated.makerLocked' }),
    path: Type.String({ description: 'as TradeResponse.substate writes it; "" for the machine' }),
    key: Type.String(),
    parent: Nullable(Type.String()),
    type: Type.Enum(['atomic', 'compound', 'parallel', 'final', 'history']),
    initial: Nullable(Type.String()),
    children: Type.Array(Type.String()),
    tags: Type.Array(Type.String()),
    description: Nullable(Type.String()),
    meta: Nullable(Type.Record(Type.String(), Type.Unknown())),
    entry: Type.Array(Type.String()),
    exit: Type.Array(Type.String()),
    invoke: Type.Array(Type.Object({ id: Type.String(), src: Type.String() })),
  },
  { title: 'MachineState' },
);

const TransitionSchema = Type.Object(
  {
    source: Type.String(),
    kind: Type.Enum(['event', 'always', 'done', 'error']),
    event: Nullable(Type.String()),
    actor: Nullable(Type.String({ description: 'the invoked actor, for done and error' })),
    targets: Type.Array(Type.String(), { description: 'full ids; empty when the state does not change' }),
    guard: Nullable(Type.String({ description: 'by name; combinators as and(a, b)' })),
    reenter: Type.Boolean(),
    actions: Type.Array(Type.String()),
  },
  { title: 'MachineTransition' },
);

const MachineSchema = Type.Object(
  {
    id: Type.String(),
    version: Type.Integer({ description: 'persisted with every snapshot' }),
    initial: Nullable(Type.String()),
    states: Type.Array(StateSchema),
    transitions: Type.Array(TransitionSchema),
  },
  { title: 'MachineDefinition' },
);

export async function runtimeRoutes(app: TypeBoxApp, deps: HttpDeps): Promise<void> {
  const { runtime } = deps;
  const { queries } = runtime;
  const operator = requireOperator(deps);
  const definition = machineDefinition();
  const page = vizPage(definition);
  const streams = new EventStreams({
    events: (afterSeq, limit) => queries.eventLog(afterSeq, limit),
    onEvents: (listener) => runtime.onEvents(listener),
  });
  app.addHook('preClose', async () => streams.endAll());

  app.get(
    '/v1/runtime',
    {
      preHandler: operator,
      schema: {
        operationId: 'getRuntime',
        tags: ['Runtime'],
        summary: 'This run: its trades (active and at rest), chain and store status, maker balances',
        description:
          'Operator route. The trades this run owns by status and substate, which actors are in memory, the ' +
          'trades whose effect keeps failing, chain and store health, and the maker’s balances.',
        security: OPERATOR_SECURITY,
        querystring: OperatorQuery,
        response: { 200: RuntimeSchema, ...errorResponses('unauthorized') },
      },
    },
    async () => {
      const status = await queries.runtimeStatus();
      const actors = queries.actors();
      const byState = Object.fromEntries(SETTLEMENT_STATUSES.map((s) => [s, 0]));
      const bySubstate: Record<string, number> = {};
      for (const row of actors.owned) {
        byState[row.status] = (byState[row.status] ?? 0) + row.count;
        bySubstate[row.substate] = (bySubstate[row.substate] ?? 0) + row.count;
      }
      const iso = (unix: number | null) => (unix === null ? null : new Date(unix * 1000).toISOString());
      const { chain } = status;
      return {
        run_id: deps.run.runId,
        started_at: deps.run.startedAt.toISOString(),
        version: deps.version,
        uptime_seconds: Math.floor((Date.now() - deps.run.startedAt.getTime()) / 1000),
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
          chain_time: chain.now === null ? null : new Date(chain.now * 1000).toISOString(),
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
        last_event_seq: queries.lastEventSeq(),
      };
    },
  );

  app.get(
    '/v1/runtime/runs',
    {
      preHandler: operator,
      schema: {
        operationId: 'listRuns',
        tags: ['Runtime'],
        summary: 'Every run of the service, oldest first, with its trade counts',
        description:
          'Operator route. One entry per start of the service on this DATA_DIR, with start and stop times and ' +
          'the trades it created and owns; current marks the run answering.',
        security: OPERATOR_SECURITY,
        querystring: OperatorQuery,
        response: {
          200: Type.Object({ runs: Type.Array(RunSchema) }),
          ...errorResponses('unauthorized'),
        },
      },
    },
    async () => ({
      runs: queries.runs().map((run) => ({
        run_id: run.runId,
        version: run.version,
        started_at: run.startedAt,
        stopped_at: run.stoppedAt,
        current: run.runId === deps.run.runId,
        trades_created: run.created,
        trades_owned: run.owned,
      })),
    }),
  );

  app.get(
    '/v1/runtime/trades',
    {
      preHandler: operator,
      schema: {
        operationId: 'listRunTrades',
        tags: ['Runtime'],
        summary: 'Trades the current run owns (or, with run_id, those a run created), paged by cursor',
        description:
          'Operator route. A page of TradeResponse; pass next_cursor as ?cursor= for the next page (null on ' +
          'the last one).',
        security: OPERATOR_SECURITY,
        querystring: RuntimeTradesQuery,
        response: { 200: TradePageSchema, ...errorResponses('unauthorized') },
      },
    },
    async (request) => {
      const { run_id, status, limit = 50, cursor } = request.query;
      return renderTradePage(
        await queries.runTrades({ runId: run_id, status, limit, cursor }),
        deps.config.assets,
      );
    },
  );

  app.get(
    '/v1/runtime/ledger',
    {
      preHandler: operator,
      schema: {
        operationId: 'getLedger',
        tags: ['Runtime'],
        summary: 'Ledger entries (amounts as exact strings) and a summary per trade',
        description:
          'Operator route. The double-entry ledger of escrow movements, of every trade or of one (?trade_id=), ' +
          'and per trade whether it balances and the maker’s result estimated in USDC.',
        security: OPERATOR_SECURITY,
        querystring: Type.Object({ trade_id: Type.Optional(Uuid), ...AccessToken }),
        response: { 200: LedgerSchema, ...errorResponses('unauthorized', 'trade_not_found') },
      },
    },
    async (request) => {
      const { entries, summaries } = queries.ledgerView(request.query.trade_id);
      return {
        entries: entries.map((e) => ({
          entry_id: e.entryId,
          trade_id: e.tradeId,
          movement: e.movement,
          signature: e.signature,
          mint: e.mint,
          asset: deps.config.assets.find(e.mint)?.symbol ?? null,
          account: e.account,
          side: e.side,
          amount_raw: e.amountRaw.toString(),
          at: e.at,
        })),
        summaries: summaries.map(({ tradeId, summary }) => ({ trade_id: tradeId, ...summary })),
      };
    },
  );

  app.get(
    '/v1/runtime/events',
    {
      preHandler: operator,
      schema: {
        operationId: 'listRuntimeEvents',
        tags: ['Runtime'],
        summary: 'The runtime event log after a seq, in seq order',
        description:
          'Operator route. Every stored event of every trade; payloads never carry the commitment, a preimage ' +
          'or a signed transaction. Poll with ?after=<next_cursor>.',
        security: OPERATOR_SECURITY,
        querystring: EventsQuery,
        response: { 200: EventPageSchema, ...errorResponses('unauthorized') },
      },
    },
    async (request) => {
      const { after = 0, limit = 100 } = request.query;
      const events = queries.eventLog(after, limit);
      return { events, next_cursor: events.at(-1)?.seq ?? after };
    },
  );

  app.get(
    '/v1/runtime/events/stream',
    {
      preHandler: operator,
      schema: {
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
        headers: Type.Object({
          'last-event-id': Type.Optional(
            Type.String({ pattern: '^[0-9]+$', description: 'the last seq received; sent by EventSource' }),
          ),
        }),
        response: {
          200: {
            description: 'text/event-stream of TradeEvent',
            content: { 'text/event-stream': { schema: Type.String() } },
          },
          ...errorResponses('unauthorized'),
        },
      },
    },
    async (request, reply) => {
      const header = request.headers['last-event-id'];
      const after =
        typeof header === 'string' ? Number(header) : (request.query.after ?? queries.lastEventSeq());
      streams.stream(request, reply, after);
    },
  );

  app.get(
    '/v1/runtime/machines/trade',
    {
      preHandler: operator,
      schema: {
        operationId: 'getTradeMachine',
        tags: ['Runtime'],
        summary: 'The trade machine’s definition, for visualisers',
        description:
          'Operator route. Generated from the machine: states with full ids, transitions with guards by name; ' +
          'TradeResponse.substate and the event log’s substates are paths into it.',
        security: OPERATOR_SECURITY,
        querystring: OperatorQuery,
        response: { 200: MachineSchema, ...errorResponses('unauthorized') },
      },
    },
    async () => definition,
  );

  app.get(
    '/v1/viz',
    {
      preHandler: operator,
      schema: {
        operationId: 'getVisualiser',
        tags: ['Runtime'],
        summary: 'The machine visualiser page',
        description:
          'Operator route, an HTML page for a browser. The trade statechart; ?trade_id= highlights a trade’s ' +
          'state, plays its history and follows it live. Open it with ?access_token= when a token is configured.',
        security: OPERATOR_SECURITY,
        querystring: Type.Object({
          trade_id: Type.Optional(Uuid),
          step_ms: Type.Optional(
            Type.Integer({ minimum: 50, maximum: 10_000, description: 'how long playback shows each step' }),
          ),
          ...AccessToken,
        }),
        response: {
          200: { description: 'HTML page', content: { 'text/html': { schema: Type.String() } } },
          ...errorResponses('unauthorized'),
        },
      },
    },
    async (_request, reply) => reply.type('text/html; charset=utf-8').send(page),
  );
}
