// Metrics group: GET /metrics, this service's Prometheus exposition (src/metrics) for scrapers. It takes the
// operator token like the other operator routes: required when listening beyond loopback.
import type { TypeBoxApp } from '../app.ts';
import { errorResponses } from '../errors.ts';
import type { HttpDeps } from './index.ts';
import { MetricsResponse } from './metrics.schema.ts';
import { OPERATOR_SECURITY, OperatorQuery, requireOperator } from './operator.ts';

export async function metricsRoutes(app: TypeBoxApp, deps: HttpDeps): Promise<void> {
  app.get(
    '/metrics',
    {
      preHandler: requireOperator(deps),
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
    async (_request, reply) => {
      const text = await deps.metrics.exposition();
      return reply.type(deps.metrics.contentType).send(text);
    },
  );
}
