// The proxy's websocket side: each client socket is paired with one to the target's PubSub endpoint and
// frames pass both ways, except that every few seconds each pair is cut (both closed, so its
// subscriptions are gone) or muted (left open, pings answered, notifications silently dropped until the
// next cut), single notifications are lost, and during an outage every socket is closed and refused.
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { listenWebSocket } from '../listen.ts';
import type { Random } from './random.ts';
import type { StatsCounter } from './stats.ts';

export interface WebSocketSideOptions {
  host: string;
  port: number;
  target: string;
  stats: StatsCounter;
  /** The random stream of the n-th connection. */
  random: (stream: string) => Random;
  /** Read at each decision, so a profile change applies at once. */
  muteShare: () => number;
  notificationDropRate: () => number;
  refusing: () => boolean;
}

interface Pair {
  client: WebSocket;
  upstream: WebSocket;
  random: Random;
  muted: boolean;
}

const METHOD = 'websocket';

export interface WebSocketSide {
  readonly port: number;
  readonly open: number;
  /** Cuts or mutes every open pair, as the profile's share says; answers how many were cut. */
  cutAll(muteShare: number): number;
  /** Closes every pair (an outage). */
  closeAll(): number;
  close(): Promise<void>;
}

export async function startWebSocketSide(options: WebSocketSideOptions): Promise<WebSocketSide> {
  const { stats } = options;
  const wss = await listenWebSocket(options.host, options.port);
  const pairs = new Set<Pair>();
  let connections = 0;

  const end = (pair: Pair) => {
    pairs.delete(pair);
    pair.client.terminate();
    pair.upstream.terminate();
  };

  wss.on('connection', (client: WebSocket, request: IncomingMessage) => {
    client.on('error', () => {});
    if (options.refusing()) {
      stats.fault('ws_refused', METHOD);
      client.terminate();
      return;
    }
    connections++;
    stats.wsConnections++;
    const upstream = new WebSocket(
      `${options.target}${request.url && request.url !== '/' ? request.url : ''}`,
    );
    const pair: Pair = { client, upstream, random: options.random(`ws:${connections}`), muted: false };
    pairs.add(pair);
    const waiting: WebSocket.RawData[] = [];
    upstream.on('error', () => {});
    upstream.on('open', () => {
      for (const data of waiting.splice(0)) upstream.send(data);
    });
    client.on('message', (data, isBinary) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary });
      else waiting.push(data);
    });
    upstream.on('message', (data, isBinary) => {
      if (isNotification(data)) {
        if (pair.muted) return;
        if (pair.random.chance(options.notificationDropRate())) {
          stats.fault('ws_notification_dropped', METHOD);
          return;
        }
      }
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
    });
    client.on('close', () => end(pair));
    upstream.on('close', () => end(pair));
  });

  return {
    port: (wss.address() as { port: number }).port,
    get open() {
      return pairs.size;
    },
    cutAll(muteShare) {
      let cut = 0;
      for (const pair of [...pairs]) {
        if (!pair.muted && pair.random.chance(muteShare)) {
          pair.muted = true;
          stats.fault('ws_muted', METHOD);
          continue;
        }
        stats.fault('ws_cut', METHOD);
        end(pair);
        cut++;
      }
      return cut;
    },
    closeAll() {
      const n = pairs.size;
      for (const pair of [...pairs]) end(pair);
      return n;
    },
    close: async () => {
      for (const pair of [...pairs]) end(pair);
      for (const socket of wss.clients) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** A server push (has a method, no id), as opposed to an answer to a request of the client's. */
function isNotification(data: WebSocket.RawData): boolean {
  const text = String(data);
  // Cheap test first: answers carry "id", notifications "method" and "params".
  if (!text.includes('"method"')) return false;
  try {
    const message = JSON.parse(text) as { id?: unknown; method?: unknown };
    return typeof message.method === 'string' && message.id === undefined;
  } catch {
    return false;
  }
}
