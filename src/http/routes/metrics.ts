// Metrics group (/metrics): this service's Prometheus exposition (src/metrics) for scrapers. It takes the
// operator token like the other operator groups: required when listening beyond loopback.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ServiceMetrics } from '../../metrics/index.ts';
import { errorResponses } from '../errors.ts';
import { MetricsResponse } from './metrics.schema.ts';
import { OPERATOR_SECURITY, type OperatorAccess, OperatorQuery, requireOperator } from './operator.ts';

export interface MetricsRoutesOptions {
  metrics: ServiceMetrics;
  operator: OperatorAccess;
}

export const metricsRoutes: FastifyPluginAsyncTypebox<MetricsRoutesOptions> = async (app, opts) => {
  const { metrics } = opts;
  requireOperator(app, opts.operator);

  app.get(
    '/',
    {
      schema: {
        operationId: 'getMetrics',
        tags: ['Runtime'],
        summary: 'Prometheus metrics of this service and its process',
        description:
          'Operator route, for a Prometheus scraper: RFQs, settlements, trades by state, actors, escrowed ' +
          'funds, deadlines, maker balances, effects, chain calls, store commits, and the process (event-loop ' +
          'lag, memory, CPU), in the Prometheus text format 0.0.4. Gauges of state are read when scraped; the ' +
          'fee balance and the chain health cost one chain call each per scrape.',
        security: OPERATOR_SECURITY,
        querystring: OperatorQuery,
        response: { 200: MetricsResponse, ...errorResponses('unauthorized') },
      },
    },
    async function getMetrics(_request, reply) {
      const text = await metrics.exposition();
      return reply.type(metrics.contentType).send(text);
    },
  );
};
