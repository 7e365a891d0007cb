// The rpc chain's JSON-RPC endpoints: one web3.js Connection per configured URL, what each has shown (the
// slots its answers were evaluated at, whether it answers), and the read policy that follows: a read is
// tried endpoint after endpoint until one answers, and an answer that something is ABSENT (an account, a
// signature) is believed only from an endpoint no more than maxSlotLag slots behind the highest slot any
// endpoint has shown — a node that has not caught up does not know what landed since.

import { Connection } from '@solana/web3.js';
import { ChainError } from '../errors.ts';

/**
 * The commitment an answer's slot was taken at. A slot is judged only against slots of the same or a
 * stronger commitment, which a node's slot there can never trail.
 */
export type SlotCommitment = 'processed' | 'confirmed' | 'finalized';
const COMMITMENTS: readonly SlotCommitment[] = ['processed', 'confirmed', 'finalized'];
/** A node's slot at a commitment is at least its slot at every stronger one. */
const AT_LEAST: Record<SlotCommitment, readonly SlotCommitment[]> = {
  processed: COMMITMENTS,
  confirmed: ['confirmed', 'finalized'],
  finalized: ['finalized'],
};

export interface EndpointsOptions {
  /** JSON-RPC URLs, the primary first. */
  urls: readonly string[];
  /** How many slots an endpoint may trail the best known slot and still be believed about absence. */
  maxSlotLag: number;
  /** A request unanswered this long is abandoned (and tried elsewhere). */
  requestTimeoutMs: number;
  /**
   * With several endpoints, each one's slot is asked this often so that a lagging one is known. Whatever
   * it is (0: no periodic probe), an answer about absence first asks the slot of every other endpoint not
   * heard from at that commitment for twice this long (or a second).
   */
  slotProbeIntervalMs: number;
}

/** How long an answer about absence waits for the other endpoints' slots before it is judged without them. */
const REFRESH_BUDGET_MS = 1_000;
/**
 * A read every endpoint failed is asked again after these pauses, while the failures came fast: a cluster
 * drops single requests (a reset, a 503 or 429 passing, a lost reply) far more often than it goes dark, and
 * an effect that fails on one lost read waits out a backoff that a deadline may not have room for. A read
 * whose round took longer (endpoints hanging until the timeout) is not asked again: that is an outage, which
 * the reachability watch handles.
 */
const READ_ROUND_PAUSES_MS = [150, 400] as const;
const FAST_ROUND_MS = 2_000;

/** An answer and the slot the node evaluated it at (null when the method reports none). */
export interface Answer<T> {
  value: T;
  slot: number | null;
}

export interface ReadPolicy<T> {
  commitment: SlotCommitment;
  /** True when the answer says something is not there: believed only from a current endpoint. */
  absent?: (value: T) => boolean;
}

/** Only the origin of an RPC URL is shown anywhere: paths and queries often carry API keys. */
export const redactUrl = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return 'rpc';
  }
};

export class Endpoint {
  readonly connection: Connection;
  /** The highest slot each commitment's answers (and probes) have shown, and when it was last shown. */
  private readonly seen = new Map<SlotCommitment, number>();
  private readonly seenAt = new Map<SlotCommitment, number>();
  /** The highest slot of an answer this process used: an answer older than it is one going backwards. */
  private readonly acted = new Map<SlotCommitment, number>();
  /** Consecutive calls that got no answer; 0 while it answers. */
  failures = 0;
  /** When it last answered (ms since epoch; 0: never). */
  answeredAt = 0;

  constructor(
    readonly index: number,
    readonly url: string,
    /** How it is named in errors, logs and health: the origin, never the URL. */
    readonly label: string,
    options: { requestTimeoutMs: number },
  ) {
    this.connection = new Connection(url, {
      commitment: 'confirmed',
      // A 429 fails the request at once: the read is tried at the next endpoint, and asked again in a moment
      // (READ_ROUND_PAUSES_MS) when all failed; a send is rebroadcast. web3.js's own retry would hold one
      // request for up to ~15 s of doubling waits (a deadline's time) and print each wait to stdout.
      disableRetryOnRateLimit: true,
      fetchMiddleware: (info, init, next) =>
        next(info, { ...init, signal: AbortSignal.timeout(options.requestTimeoutMs) }),
    });
  }

  /** The most this endpoint is known to have reached at the commitment: its slot there or at a stronger one. */
  reached(commitment: SlotCommitment): number | null {
    let reached: number | null = null;
    for (const c of AT_LEAST[commitment]) {
      const slot = this.seen.get(c);
      if (slot !== undefined && (reached === null || slot > reached)) reached = slot;
    }
    return reached;
  }

  actedSlot(commitment: SlotCommitment): number | null {
    return this.acted.get(commitment) ?? null;
  }

  observe(commitment: SlotCommitment, slot: number) {
    if (slot > (this.seen.get(commitment) ?? -1)) this.seen.set(commitment, slot);
    this.seenAt.set(commitment, Date.now());
  }

  /** When it last showed its slot at the commitment or a stronger one (ms since epoch; 0: never). */
  heardAt(commitment: SlotCommitment): number {
    return Math.max(0, ...AT_LEAST[commitment].map((c) => this.seenAt.get(c) ?? 0));
  }

  act(commitment: SlotCommitment, slot: number) {
    this.observe(commitment, slot);
    if (slot > (this.acted.get(commitment) ?? -1)) this.acted.set(commitment, slot);
  }
}

/** What a round of reads returns when no endpoint gave a usable answer. */
const NO_ANSWER = Symbol('no answer');

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

export class Endpoints {
  readonly list: readonly Endpoint[];
  readonly maxSlotLag: number;
  /** Another endpoint's slot older than this is asked again before an answer about absence is judged. */
  private readonly staleAfterMs: number;
  private probeTimer: NodeJS.Timeout | null = null;
  private probing: Promise<void> | null = null;

  constructor(options: EndpointsOptions) {
    if (options.urls.length === 0) throw new Error('rpc chain: at least one RPC URL is required');
    const origins = options.urls.map(redactUrl);
    const several = options.urls.length > 1;
    this.list = options.urls.map((url, i) => {
      const origin = origins[i] ?? 'rpc';
      // Two endpoints of one provider share an origin: their place in the list tells them apart.
      const label = origins.filter((o) => o === origin).length > 1 ? `${origin}#${i + 1}` : origin;
      return new Endpoint(i, url, label, { requestTimeoutMs: options.requestTimeoutMs });
    });
    this.maxSlotLag = options.maxSlotLag;
    this.staleAfterMs = options.slotProbeIntervalMs > 0 ? 2 * options.slotProbeIntervalMs : 1_000;
    if (several && options.slotProbeIntervalMs > 0) {
      void this.probe();
      this.probeTimer = setInterval(() => void this.probe(), options.slotProbeIntervalMs);
      this.probeTimer.unref();
    }
  }

  get primary(): Endpoint {
    return this.list[0] as Endpoint;
  }

  /** The highest slot any endpoint has shown at the commitment (or at a stronger one, which it cannot trail). */
  best(commitment: SlotCommitment): number | null {
    let best: number | null = null;
    for (const endpoint of this.list) {
      const slot = endpoint.reached(commitment);
      if (slot !== null && (best === null || slot > best)) best = slot;
    }
    return best;
  }

  /** How far the slot trails the best known one (0 when nothing better is known). */
  lagOf(slot: number, commitment: SlotCommitment): number {
    const best = this.best(commitment);
    return best === null ? 0 : Math.max(0, best - slot);
  }

  private lagging(endpoint: Endpoint, commitment: SlotCommitment): boolean {
    const slot = endpoint.reached(commitment);
    return slot !== null && this.lagOf(slot, commitment) > this.maxSlotLag;
  }

  /**
   * The order a read tries the endpoints in: those answering and current in the configured order (the
   * primary first), then lagging ones (least behind first), then failing ones (most recently answering first).
   */
  order(commitment: SlotCommitment): Endpoint[] {
    const rank = (e: Endpoint) => (e.failures > 0 ? 2 : this.lagging(e, commitment) ? 1 : 0);
    const lag = (e: Endpoint) => this.lagOf(e.reached(commitment) ?? 0, commitment);
    return [...this.list].sort(
      (a, b) =>
        rank(a) - rank(b) ||
        (rank(a) === 1 ? lag(a) - lag(b) : 0) ||
        (rank(a) === 2 ? b.answeredAt - a.answeredAt : 0) ||
        a.index - b.index,
    );
  }

  answered(endpoint: Endpoint) {
    endpoint.failures = 0;
    endpoint.answeredAt = Date.now();
  }

  failed(endpoint: Endpoint) {
    endpoint.failures += 1;
  }

  /**
   * Whether an endpoint is current enough to be believed that something is absent: its answer's slot (or,
   * for a method that reports none, the last slot it showed) is within maxSlotLag of the best known. With
   * one endpoint there is nothing to compare with.
   */
  async current(endpoint: Endpoint, commitment: SlotCommitment, slot: number | null): Promise<boolean> {
    if (this.list.length === 1) return true;
    await this.hearOthers(endpoint, commitment);
    let at = slot ?? endpoint.reached(commitment);
    if (at === null) {
      // Nothing known of it yet: ask its slot before believing it.
      try {
        at = await this.slotOf(endpoint, commitment);
      } catch {
        return false;
      }
    }
    return this.lagOf(at, commitment) <= this.maxSlotLag;
  }

  /**
   * The best known slot is only as good as what was last heard from the others: those answering but not
   * heard from lately are asked their slot now, for at most REFRESH_BUDGET_MS.
   */
  private async hearOthers(endpoint: Endpoint, commitment: SlotCommitment): Promise<void> {
    const since = Date.now() - this.staleAfterMs;
    const asks = this.list
      .filter((e) => e !== endpoint && e.failures === 0 && e.heardAt(commitment) < since)
      .map((e) => this.slotOf(e, commitment).catch(() => {}));
    if (asks.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(asks),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, REFRESH_BUDGET_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  /**
   * Asks the endpoints in order() until one gives an answer that can be used: not an error, not older than
   * an answer already used from the same endpoint, and — when it says something is absent — from a current
   * endpoint. When none did and that went fast, asks them all again after each of READ_ROUND_PAUSES_MS.
   * Throws ChainError `unavailable` naming what the endpoints did when no round got an answer.
   */
  async read<T>(
    what: string,
    call: (connection: Connection) => Promise<Answer<T>>,
    policy: ReadPolicy<NoInfer<T>>,
  ): Promise<T> {
    const problems: string[] = [];
    for (let round = 0; ; round++) {
      const started = Date.now();
      const answer = await this.readRound(call, policy, problems);
      if (answer !== NO_ANSWER) return answer as T;
      const pause = READ_ROUND_PAUSES_MS[round];
      if (pause === undefined || Date.now() - started > FAST_ROUND_MS) break;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
    const where = this.list.length === 1 ? '' : ` at all ${this.list.length} endpoints`;
    throw new ChainError('unavailable', `${what} failed${where}: ${[...new Set(problems)].join('; ')}`);
  }

  /** One pass over the endpoints in order(): the first usable answer, or NO_ANSWER with why in `problems`. */
  private async readRound<T>(
    call: (connection: Connection) => Promise<Answer<T>>,
    policy: ReadPolicy<NoInfer<T>>,
    problems: string[],
  ): Promise<T | typeof NO_ANSWER> {
    const { commitment } = policy;
    for (const endpoint of this.order(commitment)) {
      const floor = endpoint.actedSlot(commitment);
      let answer: Answer<T>;
      try {
        answer = await call(endpoint.connection);
      } catch (e) {
        if (e instanceof ChainError && e.code !== 'unavailable') throw e;
        this.failed(endpoint);
        problems.push(`${endpoint.label}: ${messageOf(e)}`);
        continue;
      }
      this.answered(endpoint);
      if (answer.slot !== null) {
        if (floor !== null && answer.slot < floor) {
          problems.push(
            `${endpoint.label} answered from slot ${answer.slot}, older than slot ${floor} it showed`,
          );
          continue;
        }
        endpoint.observe(commitment, answer.slot);
      }
      if (policy.absent?.(answer.value) && !(await this.current(endpoint, commitment, answer.slot))) {
        const at = answer.slot ?? endpoint.reached(commitment);
        problems.push(
          `${endpoint.label} lags (slot ${at ?? 'unknown'}, best known ${this.best(commitment)}): its "not found" is not believed`,
        );
        continue;
      }
      if (answer.slot !== null) endpoint.act(commitment, answer.slot);
      return answer.value;
    }
    return NO_ANSWER;
  }

  /** The endpoint's slot at the commitment, recorded. */
  async slotOf(endpoint: Endpoint, commitment: SlotCommitment): Promise<number> {
    try {
      const slot = await endpoint.connection.getSlot(commitment);
      this.answered(endpoint);
      endpoint.observe(commitment, slot);
      return slot;
    } catch (e) {
      this.failed(endpoint);
      throw e;
    }
  }

  /** Every endpoint's confirmed and finalized slot: who lags, and who answers again after failing. */
  probe(): Promise<void> {
    this.probing ??= Promise.allSettled(
      this.list.flatMap((endpoint) => [
        this.slotOf(endpoint, 'confirmed'),
        this.slotOf(endpoint, 'finalized'),
      ]),
    ).then(() => {
      this.probing = null;
    });
    return this.probing;
  }

  close() {
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = null;
  }
}
