// Server-Sent Events: the runtime event log (GET /v1/runtime/events/stream) and one trade's events with the
// trade after each (GET /v1/trades/{id}/stream). Each client gets the items after its cursor, page by page,
// then each new one as the runtime reports it, with heartbeats; a slow client is waited for (the socket's
// drain), never buffered for without bound.
import type { FastifyReply, FastifyRequest } from 'fastify';

const HEARTBEAT_MS = 15_000;
const STREAM_PAGE = 200;

/** One stream's content: what it says first, the items after a seq in seq order, and how each is written. */
export interface StreamSource<T extends { seq: number }> {
  /** Written once when the stream opens, after the retry hint (e.g. the trade as it is now). */
  opening?: string;
  items(afterSeq: number, limit: number): Promise<readonly T[]>;
  /** One whole SSE message (ending in a blank line) for an item; may read the current state. */
  message(item: T): Promise<string> | string;
  /** Calls the listener whenever new items may exist; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

/** An SSE message: `id`, `event` and one `data` line (JSON never contains a raw newline). */
export const sseMessage = (id: number | null, event: string, data: string) =>
  `${id === null ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`;

/** Told when a stream opens and when it ends (the open-streams gauge). */
export interface StreamCounter {
  opened(): void;
  closed(): void;
}

export class EventStreams {
  private readonly open = new Set<() => void>();

  constructor(private readonly counter?: StreamCounter) {}

  /** Streams open now, for a cap set by the route. */
  get size(): number {
    return this.open.size;
  }

  /** Ends every open stream: one would otherwise keep app.close() waiting for its connection. */
  endAll(): void {
    for (const end of [...this.open]) end();
  }

  /** Streams `source` after `after` to one client until it leaves or the streams end. */
  stream<T extends { seq: number }>(
    request: FastifyRequest,
    reply: FastifyReply,
    after: number,
    source: StreamSource<T>,
  ): void {
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    });
    raw.write(`retry: 2000\n: events after ${after}\n\n`);
    let cursor = after;
    let closed = false;
    let pumping = false;
    let again = false;

    const write = async (text: string) => {
      if (!raw.write(text)) await drained(raw);
    };

    const pump = async (): Promise<void> => {
      if (pumping) {
        again = true;
        return;
      }
      pumping = true;
      try {
        do {
          again = false;
          for (;;) {
            if (closed) return;
            const items = await source.items(cursor, STREAM_PAGE);
            for (const item of items) {
              if (closed) return;
              cursor = item.seq;
              const text = await source.message(item);
              if (closed) return;
              await write(text);
            }
            if (items.length < STREAM_PAGE) break;
          }
        } while (again);
      } catch (error) {
        request.log.warn({ err: (error as Error).message }, 'event stream failed');
        end();
      } finally {
        pumping = false;
      }
    };

    const heartbeat = setInterval(() => raw.write(': heartbeat\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    const unsubscribe = source.subscribe(() => void pump());
    const end = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      unsubscribe();
      this.open.delete(end);
      this.counter?.closed();
      raw.end();
    };
    this.open.add(end);
    this.counter?.opened();
    // The response closes when the client goes away (the request's own 'close' fires once its body is read).
    raw.on('close', end);
    if (source.opening) raw.write(source.opening);
    void pump();
  }
}

/** Resolves once the socket takes more data, or is gone. */
function drained(raw: NodeJS.WritableStream & { once: NodeJS.EventEmitter['once'] }): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      raw.removeListener('drain', done);
      raw.removeListener('close', done);
      resolve();
    };
    raw.once('drain', done);
    raw.once('close', done);
  });
}
