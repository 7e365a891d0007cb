// A taker's HTTP client as a real front end has one: each request to an instance that answers (a load
// balancer's choice), sent again after a connection failure, after a 503's or 429's Retry-After, or when
// the caller says the answer means "not yet" (409 lock_not_found), until its patience runs out.
import type { Random } from '../../src/dev-chain/faults/index.ts';
import type { Instance, World } from './world.ts';

/** A parsed JSON body: takers read whatever fields they need. */
export type Json = ReturnType<typeof JSON.parse>;

export interface Answer {
  status: number;
  json: Json;
  instance: string;
}

export interface ClientStats {
  requests: number;
  unanswered: number;
  unavailable: number;
  rateLimited: number;
}

export class GaveUp extends Error {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ServiceClient {
  constructor(
    private readonly world: World,
    private readonly random: Random,
    readonly stats: ClientStats,
    private readonly patienceMs: number,
  ) {}

  /** One request to one instance, as it answers; throws when it does not answer in timeoutMs. */
  async once(instance: Instance, method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs = 15_000) {
    this.stats.requests++;
    const res = await fetch(`${instance.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let json: Json = null;
    try {
      json = text === '' ? null : JSON.parse(text);
    } catch {
      json = { raw: text.slice(0, 300) };
    }
    const retryAfter = Number(res.headers.get('retry-after'));
    return {
      answer: { status: res.status, json, instance: instance.name } as Answer,
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : null,
    };
  }

  /**
   * The request until an answer that is not a 503/429 and that `again` does not ask to retry, or until the
   * client's patience (or `patienceMs`) runs out: then GaveUp with the last thing it met.
   */
  async call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    options: {
      again?: (answer: Answer) => boolean;
      /** Told of every answer, those retried too (a 503 may still mean the request reached the service). */
      seen?: (answer: Answer) => void;
      patienceMs?: number;
    } = {},
  ): Promise<Answer> {
    const deadline = Date.now() + (options.patienceMs ?? this.patienceMs);
    let last = 'no instance reachable';
    for (;;) {
      const choices = this.world.reachable();
      let waitMs = 250;
      if (choices.length > 0) {
        const instance = this.random.pick(choices);
        try {
          const { answer, retryAfterMs } = await this.once(instance, method, path, body);
          options.seen?.(answer);
          if (answer.status === 503 || answer.status === 429) {
            if (answer.status === 503) this.stats.unavailable++;
            else this.stats.rateLimited++;
            waitMs = Math.min(retryAfterMs ?? 1_000, 5_000);
            last = `${answer.status} ${JSON.stringify(answer.json).slice(0, 300)}`;
          } else if (options.again?.(answer)) {
            waitMs = 1_000;
            last = `${answer.status} ${JSON.stringify(answer.json).slice(0, 300)}`;
          } else {
            return answer;
          }
        } catch (error) {
          this.stats.unanswered++;
          last = `no answer from ${instance.name}: ${(error as Error).message}`;
          waitMs = 250 + this.random.between(0, 250);
        }
      }
      if (Date.now() + waitMs > deadline) throw new GaveUp(`${method} ${path}: gave up (last: ${last})`);
      await sleep(waitMs);
    }
  }
}
