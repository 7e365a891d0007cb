// Several instances, one truth: a command for a trade another live instance owns is served by that owner.
// The instance the request reached forwards it — same method, path, query and body, the caller's request id
// and credentials — to the owner's advertised URL and relays the answer as it is. A request is forwarded at
// most once (a header marks it): if the owner does not answer, or the forwarded request lands on yet another
// non-owner, the caller gets 503 runtime_unavailable with Retry-After, and the trade is taken over by a live
// instance once the silent owner's lease lapses.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TradeOwnedElsewhere } from '../runtime/errors.ts';
import { envelope } from './errors.ts';

export const FORWARDED_BY = 'x-rfq-forwarded-by';

/** Headers a forwarded request keeps: what the owner needs to answer the caller as this instance would. */
const KEPT = ['content-type', 'accept', 'authorization', 'x-request-id', 'last-event-id'] as const;

export interface ForwardOptions {
  /** This instance's run, named on forwarded requests. */
  runId: string;
  /** How long the owner may take (a lock wait included). */
  timeoutMs: number;
  /** Seconds a caller should wait before retrying when the owner is silent (about a lease). */
  retryAfterSeconds: number;
  /**
   * Asked every pollMs while the owner has not answered: true once the owner is gone and this instance took
   * the trade (a frozen owner holds the request without answering; its lease lapses meanwhile).
   */
  ownerGone?: (elsewhere: TradeOwnedElsewhere) => Promise<boolean>;
  pollMs?: number;
  /** Each forward's outcome (the service's metrics). */
  onOutcome?: (outcome: 'answered' | 'unreachable' | 'taken_over' | 'refused') => void;
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
        envelope(
          'runtime_unavailable',
          `Trade ${elsewhere.tradeId} is owned by another instance (run ${elsewhere.ownerRunId}), which ${why}; ` +
            'a live instance takes it over once that run’s lease lapses. Retry.',
        ),
      );
  if (request.headers[FORWARDED_BY] !== undefined) {
    options.onOutcome?.('refused');
    return unavailable('did not hold it when asked');
  }
  if (elsewhere.ownerUrl === null) {
    options.onOutcome?.('unreachable');
    return unavailable('cannot be reached');
  }

  const headers: Record<string, string> = { [FORWARDED_BY]: options.runId };
  for (const name of KEPT) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const hasBody = request.body !== undefined && request.method !== 'GET' && request.method !== 'HEAD';
  const abandon = new AbortController();
  let tookOver = false;
  const watch =
    options.ownerGone &&
    setInterval(() => {
      void options.ownerGone?.(elsewhere).then(
        (gone) => {
          if (!gone) return;
          tookOver = true;
          abandon.abort();
        },
        () => undefined,
      );
    }, options.pollMs ?? 1_000);
  let answer: Response;
  try {
    answer = await fetch(new URL(request.url, elsewhere.ownerUrl), {
      method: request.method,
      headers,
      ...(hasBody ? { body: JSON.stringify(request.body) } : {}),
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(options.timeoutMs), abandon.signal]),
    });
  } catch (error) {
    if (tookOver) {
      // The owner went silent past its lease and this instance holds the trade now: the retry is served here.
      options.onOutcome?.('taken_over');
      return reply
        .code(503)
        .header('retry-after', '1')
        .send(
          envelope(
            'runtime_unavailable',
            `Trade ${elsewhere.tradeId}'s owner (run ${elsewhere.ownerRunId}) stopped answering and this ` +
              'instance took the trade over. Retry.',
          ),
        );
    }
    request.log.warn({ owner: elsewhere.ownerUrl, err: (error as Error).message }, 'trade owner unreachable');
    options.onOutcome?.('unreachable');
    return unavailable('does not answer');
  } finally {
    if (watch) clearInterval(watch);
  }
  options.onOutcome?.('answered');
  reply.code(answer.status);
  for (const name of ['content-type', 'retry-after'] as const) {
    const value = answer.headers.get(name);
    if (value !== null) reply.header(name, value);
  }
  reply.header('x-rfq-served-by', elsewhere.ownerRunId);
  return reply.send(await answer.text());
}
