// The venue's Jupiter-shaped HTTP routes (api.ts), as a Fastify plugin the loopback chain server mounts
// under JUPITER_PATH, and as a server of their own on loopback for a process whose chain is embedded (the
// service's aggregator port talks to it over real HTTP, through the official client).

import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import { quote, swapInstructions } from './api.ts';
import type { VenueBook } from './book.ts';

/** Where the routes live under a server's root: Jupiter's own path, so a base URL ends like the real one. */
export const JUPITER_PATH = '/jupiter/swap/v1';

/** GET /quote, POST /swap-instructions and GET /program-id-to-label, relative to the mount point. */
export function venueRoutes(venue: VenueBook): FastifyPluginAsync {
  return async (app) => {
    app.get('/quote', async (request, reply) => {
      const answer = quote(venue, request.query as Record<string, unknown>);
      return reply.code(answer.status).send(answer.body);
    });
    app.post('/swap-instructions', async (request, reply) => {
      const answer = swapInstructions(venue, request.body);
      return reply.code(answer.status).send(answer.body);
    });
    app.get('/program-id-to-label', async () => ({ [venue.programId.toBase58()]: venue.label }));
  };
}

export interface VenueServer {
  /** The base URL a Jupiter client takes (…/jupiter/swap/v1). */
  readonly baseUrl: string;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/** The routes on a server of their own, on 127.0.0.1 at a free port unless told otherwise. */
export async function startVenueServer(
  venue: VenueBook,
  options: { host?: string; port?: number } = {},
): Promise<VenueServer> {
  const app = Fastify({ logger: false });
  await app.register(venueRoutes(venue), { prefix: JUPITER_PATH });
  const address = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const root = address.replace('[::1]', '127.0.0.1');
  return { baseUrl: `${root}${JUPITER_PATH}`, app, close: () => app.close() };
}
