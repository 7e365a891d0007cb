// Desk group (/v1/desk): the control plane's routes (src/control/). The operator pauses and resumes the whole
// desk or a pair, changes a pair's spread, size limits and lifetimes, a hedged asset's band and clips, and
// switches sourcing and hedging — each change validated as the config file is, durable and logged with the
// operator token's name before it is answered, in force here at once and on every instance within a second.
// Every route takes the operator token (operator.ts). A pause stops new quotes and settlement starts; it
// never touches a trade already started.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import {
  ControlError,
  type ControlPlane,
  type ControlView,
  parsePairId,
  type Target,
} from '../../control/index.ts';
import type { DeskChange } from '../../store/index.ts';
import { ApiError, errorResponses } from '../errors.ts';
import type { TypeBoxHandler } from '../typebox-app.ts';
import {
  ChangeAnswerSchema,
  ChangeLogQuery,
  ChangeLogSchema,
  DeskChangeBody,
  type DeskChangeRecordSchema,
  DeskViewSchema,
  HedgedParams,
  HedgingChangeBody,
  PairChangeBody,
  PairParams,
} from './desk.schema.ts';
import {
  OPERATOR_SECURITY,
  type OperatorAccess,
  OperatorQuery,
  operatorOf,
  requireOperator,
} from './operator.ts';

export interface DeskRoutesOptions {
  control: ControlPlane;
  operator: OperatorAccess;
  /** Counts each change made through this instance (metrics). */
  changed?: (changes: readonly DeskChange[]) => void;
}

type Json = Static<typeof DeskChangeRecordSchema>['before'];

export const renderChange = (c: DeskChange): Static<typeof DeskChangeRecordSchema> => ({
  seq: c.seq,
  at: c.at,
  actor: c.actor,
  run_id: c.runId,
  target: c.target,
  field: c.field,
  before: c.before as Json,
  after: c.after as Json,
  override: c.override as Json,
});

export const renderDesk = (view: ControlView): Static<typeof DeskViewSchema> => ({
  paused: view.paused,
  sourcing_enabled: view.sourcing_enabled,
  hedging_enabled: view.hedging_enabled,
  pairs: view.pairs,
  hedging: view.hedging,
  overrides: view.overrides.map((o) => ({
    target: o.target,
    field: o.field,
    value: o.value as NonNullable<Json>,
    seq: o.seq,
    at: o.at,
    actor: o.actor,
  })),
  applied_seq: view.applied_seq,
  problem: view.problem,
});

// A change the store cannot write for a full disk answers storage_full (503), nothing changed.
const CHANGE_ERRORS = errorResponses('unauthorized', 'pair_not_found', 'asset_not_found', 'storage_full');

export const deskRoutes: FastifyPluginAsyncTypebox<DeskRoutesOptions> = async (app, opts) => {
  const ctx: DeskContext = { control: opts.control, ...(opts.changed ? { changed: opts.changed } : {}) };
  requireOperator(app, opts.operator);
  app.get('/', { schema: getDeskSchema }, getDeskHandler(ctx));
  app.patch('/', { schema: changeDeskSchema }, changeDeskHandler(ctx));
  app.post('/pause', { schema: deskSwitchSchema('pause', true) }, pauseDeskHandler(ctx));
  app.post('/pairs/:pair/pause', { schema: pairSwitchSchema('pause', true) }, pausePairHandler(ctx));
  app.post('/resume', { schema: deskSwitchSchema('resume', false) }, resumeDeskHandler(ctx));
  app.post('/pairs/:pair/resume', { schema: pairSwitchSchema('resume', false) }, resumePairHandler(ctx));
  app.patch('/pairs/:pair', { schema: changePairSchema }, changePairHandler(ctx));
  app.patch('/hedging/:asset', { schema: changeHedgingSchema }, changeHedgingHandler(ctx));
  app.get('/changes', { schema: listDeskChangesSchema }, listDeskChangesHandler(ctx));
};

/** What the desk's handlers read: the control plane, and what counts each change. */
interface DeskContext {
  control: ControlPlane;
  changed?: (changes: readonly DeskChange[]) => void;
}

/** One change for the request's operator; a refusal as the error envelope, nothing changed. */
async function change(
  ctx: DeskContext,
  request: FastifyRequest,
  target: Target,
  fields: Record<string, unknown>,
) {
  let changes: DeskChange[];
  try {
    changes = await ctx.control.change(target, fields, operatorOf(request));
  } catch (error) {
    if (!(error instanceof ControlError)) throw error;
    if (error.reason === 'invalid') throw new ApiError('validation_failed', error.message, error.details);
    throw new ApiError(error.reason, error.message);
  }
  ctx.changed?.(changes);
  return { changes: changes.map(renderChange), desk: renderDesk(ctx.control.view()) };
}

const pairOf = (text: string): Target => {
  const named = parsePairId(text);
  if (!named) throw new ApiError('validation_failed', undefined, [`params.pair: not a pair: ${text}`]);
  return { kind: 'pair', ...named };
};

const schema = (operationId: string, summary: string, description: string) => ({
  operationId,
  tags: ['Desk'],
  summary,
  description,
  security: OPERATOR_SECURITY,
});

const getDeskSchema = {
  ...schema(
    'getDesk',
    'The desk’s live settings',
    'Every setting an operator can change live, as it stands in this instance now: the desk’s pause ' +
      '(the kill switch), sourcing and hedging on or off, each pair’s terms and each hedged asset’s band, ' +
      'and the overrides set over the config file (the boot default), each with who set it and when.',
  ),
  querystring: OperatorQuery,
  response: { 200: DeskViewSchema, ...errorResponses('unauthorized') },
};

const getDeskHandler = (ctx: DeskContext): TypeBoxHandler<typeof getDeskSchema> =>
  async function getDesk() {
    return renderDesk(ctx.control.view());
  };

const changeDeskSchema = {
  ...schema(
    'changeDesk',
    'Pause the desk, switch sourcing or hedging',
    'Sets the desk’s fields (null: back to the config file’s value). `paused: true` is the kill switch: ' +
      'no pair quotes (a risk rejection, pair_enabled) or starts a settlement (409 trading_paused); quotes ' +
      'already given keep their holds, and trades already started go on. Validated as the config file is ' +
      '(400 validation_failed, nothing changed); durable and logged before the answer; in force on every ' +
      'instance within a second.',
  ),
  querystring: OperatorQuery,
  body: DeskChangeBody,
  response: { 200: ChangeAnswerSchema, ...CHANGE_ERRORS },
};

const changeDeskHandler = (ctx: DeskContext): TypeBoxHandler<typeof changeDeskSchema> =>
  async function changeDesk(request) {
    return change(ctx, request, { kind: 'desk' }, request.body);
  };

const deskSwitchSchema = (verb: 'pause' | 'resume', paused: boolean) => ({
  ...schema(
    `${verb}Desk`,
    paused ? 'Pause the whole desk (the kill switch)' : 'Lift the kill switch',
    paused
      ? 'PATCH /v1/desk with {"paused": true}: no pair quotes or starts a settlement until resumed.'
      : 'PATCH /v1/desk with {"paused": false}. Pairs paused on their own stay paused.',
  ),
  querystring: OperatorQuery,
  response: { 200: ChangeAnswerSchema, ...CHANGE_ERRORS },
});

const pairSwitchSchema = (verb: 'pause' | 'resume', paused: boolean) => ({
  ...schema(
    `${verb}Pair`,
    paused ? 'Pause a pair' : 'Resume a pair',
    `PATCH /v1/desk/pairs/{pair} with {"paused": ${paused}}.`,
  ),
  params: PairParams,
  querystring: OperatorQuery,
  response: { 200: ChangeAnswerSchema, ...CHANGE_ERRORS },
});

// Named as their operations (the where-is table in docs/architecture.md points at them).
const pauseDeskHandler = (ctx: DeskContext) =>
  async function pauseDesk(request: FastifyRequest) {
    return change(ctx, request, { kind: 'desk' }, { paused: true });
  };
const resumeDeskHandler = (ctx: DeskContext) =>
  async function resumeDesk(request: FastifyRequest) {
    return change(ctx, request, { kind: 'desk' }, { paused: false });
  };
const pausePairHandler = (ctx: DeskContext) =>
  async function pausePair(request: FastifyRequest<{ Params: { pair: string } }>) {
    return change(ctx, request, pairOf(request.params.pair), { paused: true });
  };
const resumePairHandler = (ctx: DeskContext) =>
  async function resumePair(request: FastifyRequest<{ Params: { pair: string } }>) {
    return change(ctx, request, pairOf(request.params.pair), { paused: false });
  };

const changePairSchema = {
  ...schema(
    'changePair',
    'Change a pair’s pause, spread, size limits or lifetimes',
    'Sets the pair’s fields, each the config file’s setting of that name (null: back to the file’s value), ' +
      'validated as the file is: the result must be a config the service would start with. New quotes ' +
      'and GET /v1/pairs reflect it at once; quotes already given keep their terms.',
  ),
  params: PairParams,
  querystring: OperatorQuery,
  body: PairChangeBody,
  response: { 200: ChangeAnswerSchema, ...CHANGE_ERRORS },
};

const changePairHandler = (ctx: DeskContext): TypeBoxHandler<typeof changePairSchema> =>
  async function changePair(request) {
    return change(ctx, request, pairOf(request.params.pair), request.body);
  };

const changeHedgingSchema = {
  ...schema(
    'changeHedging',
    'Change a hedged asset’s target, band or clips',
    'Sets the asset’s hedging fields (null: back to the config file’s value), validated as the file is; ' +
      'a band replaces a band_bps and the other way round. The hedger plans its next clip with them.',
  ),
  params: HedgedParams,
  querystring: OperatorQuery,
  body: HedgingChangeBody,
  response: { 200: ChangeAnswerSchema, ...CHANGE_ERRORS },
};

const changeHedgingHandler = (ctx: DeskContext): TypeBoxHandler<typeof changeHedgingSchema> =>
  async function changeHedging(request) {
    return change(ctx, request, { kind: 'hedging', asset: request.params.asset }, request.body);
  };

const listDeskChangesSchema = {
  ...schema(
    'listDeskChanges',
    'The change log, newest first',
    'Every change made to the desk’s settings, on any instance: who (the operator token’s name), when, ' +
      'the target and field, the value before and after, and the override it left. Page with `before`.',
  ),
  querystring: ChangeLogQuery,
  response: { 200: ChangeLogSchema, ...errorResponses('unauthorized') },
};

const listDeskChangesHandler = (ctx: DeskContext): TypeBoxHandler<typeof listDeskChangesSchema> =>
  async function listDeskChanges(request) {
    const limit = request.query.limit ?? 50;
    const changes = await ctx.control.log(limit, request.query.before);
    const last = changes.at(-1);
    return {
      changes: changes.map(renderChange),
      next_before: changes.length === limit && last !== undefined && last.seq > 1 ? last.seq : null,
    };
  };
