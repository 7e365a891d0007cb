// Counts the JSON-RPC calls a loopback chain server answers, by method. Uses the server's own stats()
// when it has one (HTTP and websocket); on a server without it, reads each HTTP JSON-RPC body as it
// arrives (a Fastify hook cannot be added once the server listens, so the tap sits on the node:http
// server in front of Fastify and only copies the body chunks it passes on).
import type { IncomingMessage } from 'node:http';
import type { ChainServer } from '../src/dev-chain/index.ts';

export interface CallCounter {
  /** Where the counts come from, for the report. */
  readonly source: string;
  /** Calls the service made so far, by `transport.method` (http.getAccountInfo, ws.accountSubscribe). */
  calls(): Map<string, number>;
  /** Pushes the server made (notifications), by method: not calls, reported beside them. */
  pushes(): Map<string, number>;
}

/** Numeric leaves of a stats table, by dotted path. */
function flatten(value: unknown, prefix = '', into = new Map<string, number>()): Map<string, number> {
  if (typeof value === 'number') into.set(prefix, value);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, into);
  }
  return into;
}

function tapRequests(server: ChainServer): CallCounter {
  const counts = new Map<string, number>();
  const count = (method: unknown) => {
    const name = typeof method === 'string' ? method : '(invalid)';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  };
  server.app.server.prependListener('request', (req: IncomingMessage) => {
    if (req.method !== 'POST') return;
    const chunks: Buffer[] = [];
    const push = req.push.bind(req);
    req.push = (chunk: unknown, encoding?: BufferEncoding) => {
      if (chunk === null) {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
          for (const call of Array.isArray(body) ? body : [body])
            count((call as { method?: unknown })?.method);
        } catch {
          count(undefined);
        }
      } else if (chunk) {
        chunks.push(Buffer.from(chunk as Buffer));
      }
      return push(chunk, encoding);
    };
  });
  return {
    source: 'HTTP JSON-RPC bodies read at the server (this chain server has no stats())',
    calls: () => new Map([...counts].map(([k, v]) => [`http.${k}`, v])),
    pushes: () => new Map(),
  };
}

/** ChainServer.stats(): { http, ws, notifications }, each calls per method. */
export function countCalls(server: ChainServer): CallCounter {
  const stats = (server as { stats?: unknown }).stats;
  if (typeof stats !== 'function') return tapRequests(server);
  const read = () => (stats.call(server) ?? {}) as Record<string, unknown>;
  return {
    source: 'ChainServer.stats() (HTTP and websocket)',
    calls: () => {
      const { notifications: _, ...calls } = read();
      return flatten(calls);
    },
    pushes: () => flatten(read().notifications),
  };
}

/** Calls between two snapshots, by key, largest first. */
export function callsBetween(before: Map<string, number>, after: Map<string, number>): [string, number][] {
  return [...after]
    .map(([k, v]): [string, number] => [k, v - (before.get(k) ?? 0)])
    .filter(([, v]) => v !== 0)
    .sort((a, b) => b[1] - a[1]);
}
