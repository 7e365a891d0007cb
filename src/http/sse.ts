// The runtime event log as Server-Sent Events (GET /v1/runtime/events/stream): each client gets the events
// after its cursor, page by page, then each new one as the runtime reports it, with heartbeats; a slow
// client is waited for (the socket's drain), never buffered for without bound.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { stringifyJson } from './json.ts';

const HEARTBEAT_MS = 15_000;
const STREAM_PAGE = 200;

/** What the streams read: the log after a seq, in seq order, and word that new events were stored. */
export interface EventLog {
  events(afterSeq: number, limit: number): readonly { seq: number }[];
  onEvents(listener: () => void): () => void;
}

export class EventStreams {
  private readonly open = new Set<() => void>();

  constructor(private readonly log: EventLog) {}

  /** Ends every open stream: one would otherwise keep app.close() waiting for its connection. */
  endAll(): void {
    for (const end of [...this.open]) end();
  }

  /** Streams the log after `after` to one client until it leaves or the streams end. */
  stream(request: FastifyRequest, reply: FastifyReply, after: number): void {
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
            const events = this.log.events(cursor, STREAM_PAGE);
            for (const event of events) {
              if (closed) return;
              cursor = event.seq;
              const ok = raw.write(`id: ${event.seq}\nevent: trade\ndata: ${stringifyJson(event)}\n\n`);
              if (!ok) await drained(raw);
            }
            if (events.length < STREAM_PAGE) break;
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
    const unsubscribe = this.log.onEvents(() => void pump());
    const end = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      unsubscribe();
      this.open.delete(end);
      raw.end();
    };
    this.open.add(end);
    // The response closes when the client goes away (the request's own 'close' fires once its body is read).
    raw.on('close', end);
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
