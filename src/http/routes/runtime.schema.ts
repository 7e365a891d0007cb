// Schemas of the Runtime group: the operator's view of the run, runs, the ledger, the event log (paged and
// streamed) and the trade machine's definition.
import Type from 'typebox';
import { SETTLEMENT_STATUSES } from '../../vocabulary/index.ts';
import { DateTime, eventStreamResponse, Nullable, RawAmountString, SeqCursor, Uuid } from '../schemas.ts';
import { AccessTokenQuery } from './operator.ts';
import { SubstateSchema, TradeEventSchema, TradePageQuery } from './trades.schema.ts';

export const RuntimeSchema = Type.Object(
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
          description: 'owned unclosed trades per substate (as TradeResponse.substate names it)',
        }),
        list: Type.Array(
          Type.Object({
            trade_id: Uuid,
            settlement_status: Type.Enum(SETTLEMENT_STATUSES),
            substate: SubstateSchema,
          }),
          { description: 'the active actors (bounded by activity, not by the number of trades)' },
        ),
        failing_effects: Type.Array(
          Type.Object(
            {
              trade_id: Uuid,
              substate: SubstateSchema,
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
        fee_balance_lamports: Nullable(RawAmountString),
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
          amount_raw: Nullable(RawAmountString),
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
    url: Nullable(
      Type.String({ description: 'where the run answers; commands for its trades are forwarded there' }),
    ),
    lease_expires_at: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'when the run’s lease lapses unless renewed (PostgreSQL, several instances); null without leases',
      }),
    ),
    live: Type.Boolean({
      description: 'not stopped, and its lease (if any) unexpired: it owns its trades',
    }),
    trades_created: Type.Integer({ minimum: 0 }),
    trades_owned: Type.Integer({
      minimum: 0,
      description: 'trades whose actor the run owns (or owned last)',
    }),
  },
  { title: 'Run' },
);

export const RunListSchema = Type.Object({ runs: Type.Array(RunSchema) });

export const RuntimeTradesQuery = Type.Object({
  run_id: Type.Optional(
    Type.String({
      format: 'uuid',
      description: 'trades this run created (default: those the current run owns)',
    }),
  ),
  ...TradePageQuery,
  ...AccessTokenQuery,
});

export const LedgerQuery = Type.Object({ trade_id: Type.Optional(Uuid), ...AccessTokenQuery });

export const LedgerSchema = Type.Object(
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
          amount_raw: RawAmountString,
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

export const EventsQuery = Type.Object({
  after: Type.Optional({ ...SeqCursor('events with a greater seq'), default: 0 }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  ...AccessTokenQuery,
});

export const EventPageSchema = Type.Object(
  {
    events: Type.Array(TradeEventSchema),
    next_cursor: Type.Integer({
      minimum: 0,
      description: 'pass as ?after= for the next page (the same value when nothing newer exists yet)',
    }),
  },
  { title: 'EventPage' },
);

export const StreamQuery = Type.Object({
  after: Type.Optional(
    SeqCursor('start after this seq; Last-Event-ID wins on reconnects; default: the log’s end (live only)'),
  ),
  ...AccessTokenQuery,
});

export const EventStreamResponse = eventStreamResponse('text/event-stream of TradeEvent');

const StateSchema = Type.Object(
  {
    id: Type.String({ description: 'full id, e.g. trade.initiated.redeeming.makerLocked' }),
    path: Type.String({
      description: 'the state path, e.g. initiated.redeeming.makerLocked; "" for the machine',
    }),
    substate: Type.Union([SubstateSchema, Type.Null()], {
      description: 'what TradeResponse.substate and the events say in this state; null for grouping states',
    }),
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

export const MachineSchema = Type.Object(
  {
    id: Type.String(),
    version: Type.Integer({ description: 'persisted with every snapshot' }),
    initial: Nullable(Type.String()),
    states: Type.Array(StateSchema),
    transitions: Type.Array(TransitionSchema),
  },
  { title: 'MachineDefinition' },
);
