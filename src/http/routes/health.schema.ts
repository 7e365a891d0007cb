// Schemas of the Health group: liveness and readiness (and the operator's readiness, served under /v1/runtime).
import Type, { type Static } from 'typebox';
import { Uuid } from '../schemas.ts';

export const HealthSchema = Type.Object(
  {
    status: Type.Literal('ok'),
    version: Type.String(),
    run_id: Uuid,
    uptime_seconds: Type.Integer({ minimum: 0 }),
  },
  { title: 'Health' },
);

const PART_NAMES = ['store', 'chain', 'runtime', 'maker_fee_balance', 'prices', 'mints'];

/** One part as anyone may read it: whether it is usable and why, in words (no balance, count or address). */
export const PublicReadinessPartSchema = Type.Object(
  {
    name: Type.String({ examples: PART_NAMES }),
    ok: Type.Boolean(),
    reason: Type.String({ examples: ['answering', 'not answering', 'SOL stale'] }),
  },
  { title: 'ReadinessPart' },
);

/** One part as the operator reads it: the reason and the numbers behind it. */
export const ReadinessPartSchema = Type.Object(
  {
    name: Type.String({ examples: PART_NAMES }),
    ok: Type.Boolean(),
    reason: Type.String(),
    detail: Type.String({ description: 'balances, counts, store kind, chain time: the operator’s only' }),
  },
  { title: 'OperatorReadinessPart' },
);
/** One part readiness checks (src/readiness.ts supplies them). */
export type ReadinessPart = Static<typeof ReadinessPartSchema>;

export const ReadySchema = Type.Object(
  { status: Type.Literal('ready'), parts: Type.Array(PublicReadinessPartSchema) },
  { title: 'Readiness' },
);

export const OperatorReadinessSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
    parts: Type.Array(ReadinessPartSchema),
  },
  { title: 'OperatorReadiness' },
);
