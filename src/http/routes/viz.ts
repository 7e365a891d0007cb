// Visualiser group (/v1/viz): serves the trade machine's visualiser page (src/visualiser), built once from
// the machine's definition, the same one GET /v1/runtime/machines/trade serves as JSON. Built on the first
// request rather than at start: laying the chart out, with each combination of collapsed phases, costs
// ~0.2 s (about 1 s cold; the page is ~440 kB), and a restart's time to ready is the
// maker's exposure.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { machineDefinition } from '../../../machines/trade.definition.ts';
import { vizPage } from '../../visualiser/index.ts';
import { errorResponses } from '../errors.ts';
import { OPERATOR_SECURITY, type OperatorAccess, requireOperator } from './operator.ts';
import { HtmlPageResponse, VizQuery } from './viz.schema.ts';

export interface VizRoutesOptions {
  operator: OperatorAccess;
}

export const vizRoutes: FastifyPluginAsyncTypebox<VizRoutesOptions> = async (app, opts) => {
  requireOperator(app, opts.operator);
  let page: string | undefined;

  app.get(
    '/',
    {
      schema: {
        operationId: 'getVisualiser',
        tags: ['Runtime'],
        summary: 'The machine visualiser page',
        description:
          'Operator route, an HTML page for a browser. The trade statechart; ?trade_id= highlights a trade’s ' +
          'state, plays its history and follows it live. Open it with ?access_token= when a token is configured.',
        security: OPERATOR_SECURITY,
        querystring: VizQuery,
        response: { 200: HtmlPageResponse, ...errorResponses('unauthorized') },
      },
    },
    async function getVisualiser(_request, reply) {
      page ??= vizPage(machineDefinition());
      return reply.type('text/html; charset=utf-8').send(page);
    },
  );
};
