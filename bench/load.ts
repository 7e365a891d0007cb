// The load generator: keep-alive HTTP clients (node:http) in the bench's own process, driven closed-loop
// (each connection sends its next request when the last one answered), with latency percentiles.
import { Agent, request } from 'node:http';

export interface Answer {
  status: number;
  body: string;
}

/** JSON over keep-alive connections to one origin; `connections` bounds the sockets in use. */
export class HttpClient {
  private readonly agent: Agent;
  private readonly host: string;
  private readonly port: number;

  constructor(origin: string, connections: number) {
    const url = new URL(origin);
    this.host = url.hostname;
    this.port = Number(url.port);
    this.agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  }

  send(method: 'GET' | 'POST', path: string, payload?: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> =
        payload === undefined
          ? {}
          : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
      const req = request(
        { agent: this.agent, host: this.host, port: this.port, path, method, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  post(path: string, body: unknown): Promise<Answer> {
    return this.send('POST', path, typeof body === 'string' ? body : JSON.stringify(body));
  }

  get(path: string): Promise<Answer> {
    return this.send('GET', path);
  }

  close(): void {
    this.agent.destroy();
  }
}

/** An answer with the expected status, parsed; anything else throws with what came back. */
export function expectJson<T = Record<string, unknown>>(answer: Answer, status: number, what: string): T {
  if (answer.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${answer.status} ${answer.body.slice(0, 300)}`);
  }
  return JSON.parse(answer.body) as T;
}

export interface LoadResult {
  /** performance.now() at the window's start and end. */
  startedAt: number;
  endedAt: number;
  /** Steps that completed inside the window. */
  count: number;
  /** The window actually run (shorter than asked when the work ran out). */
  seconds: number;
  perSecond: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  errors: number;
  firstError: string | null;
  /** Every counted step's latency in ms, sorted. */
  latencies: number[];
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

/**
 * Runs `step` on `workers` concurrent loops for `seconds`. A step is one timed unit of work (a request, or
 * a whole swap); it resolves to false when there is no more work. Steps that finish after the window are not
 * counted. Errors are counted, not retried; more than `maxErrors` stops the run.
 */
export async function closedLoop(options: {
  workers: number;
  seconds: number;
  step: (worker: number) => Promise<unknown>;
  maxErrors?: number;
}): Promise<LoadResult> {
  const { workers, seconds, step } = options;
  const maxErrors = options.maxErrors ?? 50;
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  let exhausted = false;
  let lastDone = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (!exhausted && errors <= maxErrors && performance.now() < end) {
        const started = performance.now();
        try {
          if ((await step(worker)) === false) {
            exhausted = true;
            break;
          }
          const done = performance.now();
          if (done <= end) {
            latencies.push(done - started);
            lastDone = done;
          }
        } catch (error) {
          errors += 1;
          firstError ??= (error as Error).message;
        }
      }
    }),
  );
  // Ran out of work or stopped on errors: the window is what was used, not what was asked.
  const elapsed = (exhausted || errors > maxErrors ? Math.max(lastDone, start + 1) : end) - start;
  return summarize(start, start + elapsed, latencies, errors, firstError);
}

function summarize(
  startedAt: number,
  endedAt: number,
  latencies: number[],
  errors: number,
  firstError: string | null,
  seconds = (endedAt - startedAt) / 1000,
): LoadResult {
  latencies.sort((a, b) => a - b);
  return {
    startedAt,
    endedAt,
    count: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p90: percentile(latencies, 0.9),
    p99: percentile(latencies, 0.99),
    max: latencies.at(-1) ?? Number.NaN,
    errors,
    firstError,
    latencies,
  };
}

/** Slices of one measurement taken apart (interleaved with a baseline's), as one result. */
export function combine(slices: LoadResult[]): LoadResult {
  const first = slices[0];
  if (!first) throw new Error('combine: no slices');
  return summarize(
    first.startedAt,
    slices.at(-1)?.endedAt ?? first.endedAt,
    slices.flatMap((s) => s.latencies),
    slices.reduce((n, s) => n + s.errors, 0),
    slices.find((s) => s.firstError)?.firstError ?? null,
    slices.reduce((n, s) => n + s.seconds, 0),
  );
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `task` `total` times on `workers` concurrent loops (untimed preparation: quotes, pending trades). */
export async function repeat(
  total: number,
  workers: number,
  task: (i: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(workers, total) }, async () => {
      while (next < total) await task(next++);
    }),
  );
  return (performance.now() - start) / 1000;
}
