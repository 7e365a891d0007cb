// Health group (/v1/health): liveness (always 200 while the process serves) and readiness (store, chain,
// runtime, fees, prices, mints), in words only: the numbers behind it are the operator's
// (GET /v1/runtime/readiness).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorEnvelopeSchema, envelope, errorResponses } from '../errors.ts';
import { HealthSchema, type ReadinessPart, ReadySchema } from './health.schema.ts';
import { PUBLIC_SECURITY } from './operator.ts';

export interface HealthRoutesOptions {
  version: string;
  run: { runId: string; startedAt: Date };
  readiness: () => Promise<ReadinessPart[]>;
}

export const healthRoutes: FastifyPluginAsyncTypebox<HealthRoutesOptions> = async (app, opts) => {
  const { version, run, readiness } = opts;

  app.get(
    '/',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['Health'],
        summary: 'Liveness',
        description:
          'Always 200 while the process serves HTTP, whatever the chain or store do: a liveness probe. The ' +
          'run_id changes at every start.',
        security: PUBLIC_SECURITY,
        response: { 200: HealthSchema, ...errorResponses() },
      },
    },
    async () => ({
      status: 'ok' as const,
      version,
      run_id: run.runId,
      uptime_seconds: Math.floor((Date.now() - run.startedAt.getTime()) / 1000),
    }),
  );

  app.get(
    '/ready',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['Health'],
        summary: 'Readiness: store, chain, runtime, the maker’s fee balance, prices and mints are usable',
        description:
          '200 with every part and its reason in words when the service can take trades; 503 not_ready ' +
          'otherwise, its details naming each failing part and why ("chain: not answering"). For a load ' +
          'balancer deciding whether to send traffic here. No balance, count, store kind or chain time is ' +
          'shown (the operator reads them at GET /v1/runtime/readiness), and a probe costs no chain call: ' +
          'the parts read what the service learnt from the chain lately. The prices part names every feed ' +
          'that is not fresh (stale, wide or deviating: RFQs on its pairs are refused) and fails only when no ' +
          'pair has two fresh prices: settling running trades needs no price. The mints part fails until every ' +
          'configured mint was checked on the chain (no quote is given meanwhile). The store part fails with ' +
          'storage_full while writes fail for lack of space, and passes again by itself once they succeed.',
        security: PUBLIC_SECURITY,
        response: { 200: ReadySchema, ...errorResponses(), 503: ErrorEnvelopeSchema },
      },
    },
    async (_request, reply) => {
      const parts = await readiness();
      const failing = parts.filter((part) => !part.ok);
      if (failing.length > 0) {
        return reply.code(503).send(
          envelope(
            'not_ready',
            `Not ready: ${failing.map((part) => part.name).join(', ')}.`,
            failing.map((part) => `${part.name}: ${part.reason}`),
          ),
        );
      }
      return { status: 'ready' as const, parts: parts.map(({ name, ok, reason }) => ({ name, ok, reason })) };
    },
  );
};
