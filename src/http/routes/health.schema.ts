// Schemas of the Health group: liveness and readiness.
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

export const ReadinessPartSchema = Type.Object({
  name: Type.String({ examples: ['store', 'chain', 'runtime', 'maker_fee_balance', 'prices'] }),
  ok: Type.Boolean(),
  detail: Type.String(),
});
/** One part readiness checks (service.ts supplies them). */
export type ReadinessPart = Static<typeof ReadinessPartSchema>;

export const ReadySchema = Type.Object(
  { status: Type.Literal('ready'), parts: Type.Array(ReadinessPartSchema) },
  { title: 'Readiness' },
);
