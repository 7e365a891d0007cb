// Several instances, one truth: a command for a trade another live instance owns is served by that owner.
// The instance the request reached forwards it — same method, path, query and body, the caller's request id
// and credentials, signed for the owner (peer.ts) — to the owner's advertised origin, and streams the answer
// back. The target is that origin and the request's own origin-form path: nothing the caller writes can name
// another host (app.ts refuses request lines in absolute form before any route runs). A request is forwarded
// at most once (a header marks it): if the owner does not answer, or the forwarded request lands on yet
// another non-owner, the caller gets 503 runtime_unavailable with Retry-After, and the trade is taken over by
// a live instance once the silent owner's lease lapses. The answer is capped in bytes and in time: an owner
// whose answer announces more than the cap is a 503; one that sends more than announced, or is still
// sending at the time cap, has the caller's answer cut off (the status line has left already).
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OwnerWatch } from './owner-watch.ts';
import { type ClusterPeers, FORWARDED_BY } from './peer.ts';
import type { TradeOwnedElsewhere } from './port.ts';

/** Headers a forwarded request keeps: what the owner needs to answer the caller as this instance would. */
const KEPT = ['content-type', 'accept', 'authorization', 'x-request-id', 'last-event-id'] as const;

/** A command's answer is one TradeResponse (a few KB): a megabyte is far more than any owner sends. */
export const FORWARD_MAX_ANSWER_BYTES = 1024 * 1024;

export interface ForwardOptions {
  /** This instance's run, named on forwarded requests. */
  runId: string;
  /** How long the owner may take, its whole answer included (a lock wait too). */
  timeoutMs: number;
  /** Seconds a caller should wait before retrying when the owner is silent (about a lease). */
  retryAfterSeconds: number;
  /** The most bytes of an owner's answer relayed; default FORWARD_MAX_ANSWER_BYTES. */
  maxAnswerBytes?: number;
  /** Signs the forward; without it (or its secret) the owner counts the command as this instance's. */
  peers?: ClusterPeers;
  /**
   * The instance's shared watch on owners: a frozen owner holds the request without answering while its
   * lease lapses; once this instance took the trade, the forward is given up.
   */
  owners?: OwnerWatch;
  /** The body of a 503 this instance answers itself (the API's error envelope, runtime_unavailable). */
  unavailable: (message: string) => unknown;
  /** Each forward's outcome (the service's metrics). */
  onOutcome?: (outcome: 'answered' | 'unreachable' | 'taken_over' | 'refused') => void;
}

/** The path and query of a request line in origin form; null for any other form (absolute, authority, *). */
export function originFormTarget(rawUrl: string | undefined): string | null {
  if (rawUrl === undefined || !rawUrl.startsWith('/') || rawUrl.startsWith('//')) return null;
  return rawUrl;
}

/** The owner's URL for this request: its advertised origin and the request's own path and query, or null. */
export function forwardTarget(ownerUrl: string, rawUrl: string | undefined): URL | null {
  const path = originFormTarget(rawUrl);
  if (path === null) return null;
  let origin: string;
  try {
    origin = new URL(ownerUrl).origin;
  } catch {
    return null;
  }
  if (origin === 'null') return null;
  const target = new URL(`${origin}${path}`);
  // As sent, byte for byte: a path the URL parser would rewrite (dot segments, escapes) is not forwarded.
  return target.origin === origin && `${target.pathname}${target.search}` === path ? target : null;
}

export async function forwardToOwner(
  elsewhere: TradeOwnedElsewhere,
  request: FastifyRequest,
  reply: FastifyReply,
  options: ForwardOptions,
): Promise<FastifyReply> {
  const unavailable = (why: string) =>
    reply
      .code(503)
      .header('retry-after', String(options.retryAfterSeconds))
      .send(
        options.unavailable(
          `Trade ${elsewhere.tradeId} is owned by another instance (run ${elsewhere.ownerRunId}), which ${why}; ` +
            'a live instance takes it over once that run’s lease lapses. Retry.',
        ),
      );
  if (request.headers[FORWARDED_BY] !== undefined) {
    options.onOutcome?.('refused');
    return unavailable('did not hold it when asked');
  }
  const target = elsewhere.ownerUrl === null ? null : forwardTarget(elsewhere.ownerUrl, request.raw.url);
  if (target === null) {
    options.onOutcome?.('unreachable');
    return unavailable('cannot be reached');
  }
  const abandon = new AbortController();
  const asked = await askOwner(elsewhere, request, target, options, abandon);
  if (asked.kind === 'taken_over') {
    // The owner went silent past its lease and this instance holds the trade now: the retry is served here.
    options.onOutcome?.('taken_over');
    return reply
      .code(503)
      .header('retry-after', '1')
      .send(
        options.unavailable(
          `Trade ${elsewhere.tradeId}'s owner (run ${elsewhere.ownerRunId}) stopped answering and this ` +
            'instance took the trade over. Retry.',
        ),
      );
  }
  if (asked.kind === 'failed') {
    request.log.warn({ owner: target.origin, err: asked.error.message }, 'trade owner unreachable');
    options.onOutcome?.('unreachable');
    return unavailable('does not answer');
  }
  return relayAnswer(asked.answer, { elsewhere, request, reply, target, abandon, options, unavailable });
}

/** The request as the owner gets it: same method and body, the kept headers, signed as this instance's. */
function forwardedRequest(
  request: FastifyRequest,
  target: URL,
  options: ForwardOptions,
): { headers: Record<string, string>; body: Buffer<ArrayBuffer> | null } {
  const hasBody = request.body !== undefined && request.method !== 'GET' && request.method !== 'HEAD';
  const body = hasBody ? Buffer.from(JSON.stringify(request.body)) : null;
  const headers: Record<string, string> = {};
  for (const name of KEPT) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const peer = {
    method: request.method,
    pathAndQuery: `${target.pathname}${target.search}`,
    body,
    forwardedBy: options.runId,
    client: request.ip,
  };
  Object.assign(headers, options.peers ? options.peers.headers(peer) : { [FORWARDED_BY]: options.runId });
  return { headers, body };
}

type Asked =
  | { kind: 'answered'; answer: Response }
  | { kind: 'taken_over' }
  | { kind: 'failed'; error: Error };

/**
 * Sends the request to the owner and waits for its answer's head, given up when this instance takes the
 * trade over meanwhile (the owner's watch) or at the deadline.
 */
async function askOwner(
  elsewhere: TradeOwnedElsewhere,
  request: FastifyRequest,
  target: URL,
  options: ForwardOptions,
  abandon: AbortController,
): Promise<Asked> {
  const { headers, body } = forwardedRequest(request, target, options);
  let tookOver = false;
  const stopWatching = options.owners?.watch(elsewhere.tradeId, elsewhere.ownerRunId, () => {
    tookOver = true;
    abandon.abort();
  });
  // One deadline for the whole answer, its body included: the body is read after forwardToOwner returns.
  const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs), abandon.signal]);
  try {
    const answer = await fetch(target, {
      method: request.method,
      headers,
      ...(body !== null ? { body } : {}),
      redirect: 'manual',
      signal,
    });
    return { kind: 'answered', answer };
  } catch (error) {
    return tookOver ? { kind: 'taken_over' } : { kind: 'failed', error: error as Error };
  } finally {
    stopWatching?.();
  }
}

interface Relay {
  elsewhere: TradeOwnedElsewhere;
  request: FastifyRequest;
  reply: FastifyReply;
  target: URL;
  abandon: AbortController;
  options: ForwardOptions;
  unavailable: (why: string) => FastifyReply;
}

/** The owner's status, content type and Retry-After, and its body streamed back under the byte cap. */
function relayAnswer(
  answer: Response,
  { elsewhere, request, reply, target, abandon, options, unavailable }: Relay,
): FastifyReply {
  const maxBytes = options.maxAnswerBytes ?? FORWARD_MAX_ANSWER_BYTES;
  const declared = Number(answer.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    abandon.abort();
    request.log.warn({ owner: target.origin, bytes: declared }, 'trade owner’s answer over the cap');
    options.onOutcome?.('unreachable');
    return unavailable(`answered with more than ${maxBytes} bytes`);
  }
  options.onOutcome?.('answered');
  reply.code(answer.status);
  for (const name of ['content-type', 'retry-after'] as const) {
    const value = answer.headers.get(name);
    if (value !== null) reply.header(name, value);
  }
  reply.header('x-rfq-served-by', elsewhere.ownerRunId);
  if (answer.body === null) return reply.send('');
  const capped = new ByteCap(maxBytes);
  const source = Readable.fromWeb(answer.body as unknown as WebReadableStream<Uint8Array>);
  pipeline(source, capped).catch((error: unknown) => {
    // The status line has left: the caller's answer is cut off, and the owner's connection closed.
    abandon.abort();
    request.log.warn(
      { owner: target.origin, err: (error as Error).message },
      'relaying the owner’s answer failed',
    );
  });
  return reply.send(capped);
}

/** Passes at most maxBytes through; one byte more fails the stream. */
class ByteCap extends Transform {
  private passed = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.passed += chunk.length;
    if (this.passed > this.maxBytes) {
      done(new Error(`the owner's answer exceeds ${this.maxBytes} bytes`));
      return;
    }
    done(null, chunk);
  }
}
