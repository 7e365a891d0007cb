// Whether the chain answers, as the service's own chain calls tell it. A call that could not reach the chain
// makes the chain suspect: it is asked itself (its clock) a moment later, and only if that fails too is it
// an outage, counted from the first failure — a single method failing (a rate limit, one flaky read) is not
// one, and its effect keeps its own backoff. While an outage lasts the chain is asked with a pause that
// grows to `maxProbeMs`, so its end is noticed within that even when nothing else calls; any answer ends
// it, and listeners then act at once (the runtime retries what failed meanwhile). Readiness, metrics and
// alerts read how long it has lasted.
import type { ChainCallRecorder, ChainFailure, ChainMethod } from '../chain/index.ts';

/** Failures that are the chain's own answer: it refused the transaction, knew its blockhash expired, … */
const ANSWERS: ReadonlySet<ChainFailure> = new Set(['rejected', 'blockhash_expired', 'insufficient_funds']);

export interface Outage {
  /** When the first call of the outage failed (wall clock, ms). */
  sinceMs: number;
}

export interface ReachabilityOptions {
  /** Asks the chain once (through the observed port: its outcome reaches chainCall too). */
  probe: () => Promise<unknown>;
  /** Pause before the first probe after a failure (and after an outage is confirmed). */
  firstProbeMs?: number;
  maxProbeMs: number;
  wallMs?: () => number;
}

export class ChainReachability implements ChainCallRecorder {
  /** The first failure not followed by an answer yet, while it is only suspected. */
  private suspectSinceMs: number | null = null;
  private outage: Outage | null = null;
  private answeredAtMs: number | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private probeDelayMs: number;
  private readonly listeners = new Set<() => void>();
  private stopped = false;

  constructor(private readonly options: ReachabilityOptions) {
    this.probeDelayMs = this.firstProbeMs;
  }

  private get firstProbeMs(): number {
    return this.options.firstProbeMs ?? 250;
  }

  private get now(): number {
    return (this.options.wallMs ?? Date.now)();
  }

  /** The outage under way, or null while the chain answers (or before anything was asked). */
  get current(): Outage | null {
    return this.outage;
  }

  /** Seconds the chain has been unreachable, 0 while it answers. */
  get unreachableSeconds(): number {
    return this.outage === null ? 0 : Math.max(0, (this.now - this.outage.sinceMs) / 1000);
  }

  /** When the chain last answered anything (wall clock, ms); null before it ever did. */
  get lastAnsweredAtMs(): number | null {
    return this.answeredAtMs;
  }

  /** Called each time an outage ends; returns the unsubscribe function. */
  onRecovered(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  chainCall(_method: ChainMethod, _seconds: number, failure: ChainFailure | null): void {
    if (failure === 'unavailable' || failure === 'timeout') this.failed();
    else if (failure === null || ANSWERS.has(failure)) this.answered();
    // The rest were decided before anything reached the chain (bad bytes, our own code): they tell nothing.
  }

  private failed(): void {
    if (this.stopped || this.outage !== null || this.suspectSinceMs !== null) return;
    this.suspectSinceMs = this.now;
    this.probeDelayMs = this.firstProbeMs;
    this.scheduleProbe();
  }

  private answered(): void {
    this.answeredAtMs = this.now;
    this.suspectSinceMs = null;
    if (this.outage === null) return;
    this.outage = null;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
    for (const listener of this.listeners) listener();
  }

  private scheduleProbe(): void {
    if (this.stopped || this.probeTimer !== null) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      if (this.stopped || (this.outage === null && this.suspectSinceMs === null)) return;
      void this.options.probe().then(
        () => this.answered(),
        () => {
          // The chain itself does not answer either: an outage since the first failure.
          if (this.outage === null && this.suspectSinceMs !== null) {
            this.outage = { sinceMs: this.suspectSinceMs };
            this.suspectSinceMs = null;
          } else {
            this.probeDelayMs = Math.min(this.options.maxProbeMs, this.probeDelayMs * 2);
          }
          if (this.outage !== null) this.scheduleProbe();
        },
      );
    }, this.probeDelayMs);
    this.probeTimer.unref?.();
  }

  stop(): void {
    this.stopped = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
  }
}
