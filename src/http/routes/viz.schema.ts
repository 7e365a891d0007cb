// Schemas of the visualiser's page route: its query and an HTML answer.
import Type from 'typebox';
import { Uuid } from '../schemas.ts';
import { AccessTokenQuery } from './operator.ts';

export const VizQuery = Type.Object({
  trade_id: Type.Optional(Uuid),
  step_ms: Type.Optional(
    Type.Integer({ minimum: 50, maximum: 10_000, description: 'how long playback shows each step' }),
  ),
  ...AccessTokenQuery,
});

export const HtmlPageResponse = {
  description: 'HTML page',
  content: { 'text/html': { schema: Type.String() } },
};
