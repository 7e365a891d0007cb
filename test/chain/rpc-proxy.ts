// A small JSON-RPC proxy in front of the loopback chain server, switched by a test into the ways an RPC
// endpoint misbehaves: down (connection refused), 503 / 429, reset connections, never answering, sends
// answered with their signature but never forwarded, and stale — every call answered with the answer the
// proxy last forwarded for the same method and params (getSlot: the last slot it saw), as a node that
// stopped following the chain does.

import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeBase58 } from '../../src/vocabulary/base58.ts';

export type ProxyMode = 'up' | 'down' | '503' | '429' | 'reset' | 'hang' | 'drop-sends' | 'stale';

export interface RpcProxy {
  /** The proxy's URL, with a path and query standing for an API key that must never be shown. */
  readonly url: string;
  readonly origin: string;
  readonly mode: ProxyMode;
  /** 'down' closes the listener (connection refused); any other mode listens again on the same port. */
  set(mode: ProxyMode): Promise<void>;
  /** While set (in any mode that answers), every sendTransaction is refused as its preflight failing with this custom program error. */
  refuseSends: number | null;
  /** The next this many calls (any mode that answers) get a 503, as a passing fault does; counts down. */
  failNext: number;
  /** JSON-RPC calls that reached the proxy, per method (whatever the mode made of them). */
  readonly calls: Record<string, number>;
  /** Calls the proxy answered from its stale cache, per method. */
  readonly staleAnswers: Record<string, number>;
  /** Forgets the cached answers. */
  clearCache(): void;
  close(): Promise<void>;
}

interface JsonRpcCall {
  id?: unknown;
  method?: string;
  params?: unknown[];
}

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const keyOf = (call: JsonRpcCall) => `${call.method}:${JSON.stringify(call.params ?? [])}`;

/** The first signature of a base64 wire transaction, as sendTransaction answers it. */
function signatureOfBase64(encoded: string): string {
  const bytes = Buffer.from(encoded, 'base64');
  return encodeBase58(bytes.subarray(1, 65));
}

export async function startRpcProxy(
  target: string,
  secretPath = '/rpc/SECRET-KEY?api-key=SECRET',
): Promise<RpcProxy> {
  const cache = new Map<string, unknown>();
  const calls: Record<string, number> = {};
  const staleAnswers: Record<string, number> = {};
  const hanging = new Set<ServerResponse>();
  let mode: ProxyMode = 'up';
  /** The highest slot a forwarded answer showed: where a stale proxy's chain stopped. */
  let lastSlot = 0;
  let server: Server;
  let port = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const text = await readBody(req);
    let call: JsonRpcCall;
    try {
      call = JSON.parse(text) as JsonRpcCall;
    } catch {
      res.writeHead(400).end();
      return;
    }
    const method = call.method ?? '?';
    calls[method] = (calls[method] ?? 0) + 1;
    const answer = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (proxy.failNext > 0 && mode !== 'down' && mode !== 'reset') {
      proxy.failNext -= 1;
      res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream unavailable (passing)');
      return;
    }
    if (proxy.refuseSends !== null && method === 'sendTransaction' && mode !== 'down' && mode !== 'reset') {
      answer({
        jsonrpc: '2.0',
        id: call.id,
        error: {
          code: -32002,
          message: `Transaction simulation failed: Error processing Instruction 0: custom program error: 0x${proxy.refuseSends.toString(16)}`,
          data: { err: { InstructionError: [0, { Custom: proxy.refuseSends }] }, logs: [] },
        },
      });
      return;
    }
    switch (mode) {
      case 'down':
      case 'reset':
        req.socket.destroy();
        return;
      case '503':
        res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream unavailable');
        return;
      case '429':
        res.writeHead(429, { 'content-type': 'text/plain' }).end('too many requests');
        return;
      case 'hang':
        hanging.add(res);
        return;
      case 'drop-sends':
        if (method === 'sendTransaction') {
          const encoded = String(call.params?.[0] ?? '');
          answer({ jsonrpc: '2.0', id: call.id, result: signatureOfBase64(encoded) });
          return;
        }
        break;
      case 'stale': {
        const cached =
          cache.get(keyOf(call)) ?? (method === 'getSlot' ? { jsonrpc: '2.0', result: lastSlot } : undefined);
        if (cached !== undefined) {
          staleAnswers[method] = (staleAnswers[method] ?? 0) + 1;
          answer({ ...(cached as object), id: call.id });
          return;
        }
        break;
      }
      case 'up':
        break;
    }
    const upstream = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: text,
    });
    const json = (await upstream.json()) as { result?: unknown };
    if (mode === 'up' && method !== 'sendTransaction') {
      cache.set(keyOf(call), json);
      const result = json.result;
      const slot =
        typeof result === 'number'
          ? method === 'getSlot' && result
          : (result as { context?: { slot?: unknown } } | null | undefined)?.context?.slot;
      if (typeof slot === 'number' && slot > lastSlot) lastSlot = slot;
    }
    answer(json);
  };

  const listen = async () => {
    server = createServer((req, res) => {
      handle(req, res).catch(() => req.socket.destroy());
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  };
  const stop = async () => {
    for (const res of hanging) res.socket?.destroy();
    hanging.clear();
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closed;
  };
  await listen();
  const origin = `http://127.0.0.1:${port}`;

  const proxy: RpcProxy = {
    url: `${origin}${secretPath}`,
    origin,
    get mode() {
      return mode;
    },
    set: async (next) => {
      const was = mode;
      mode = next;
      if (next === 'down' && was !== 'down') await stop();
      if (next !== 'down' && was === 'down') await listen();
      if (next !== 'hang') {
        for (const res of hanging) res.socket?.destroy();
        hanging.clear();
      }
    },
    refuseSends: null,
    failNext: 0,
    calls,
    staleAnswers,
    clearCache: () => cache.clear(),
    close: async () => {
      if (mode !== 'down') await stop();
    },
  };
  return proxy;
}
