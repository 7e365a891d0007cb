// The runtime's view of chain time. Reading the Clock sysvar is a chain call, so the runtime keeps the last
// reading and estimates the present from it with the host's clock: deadlines are checked against the
// estimate, and the chain is asked only when a deadline may be due (or the reading is getting old). A
// chain clock that runs behind the host's only makes the runtime ask early; one that runs ahead is
// bounded by `maxAgeMs`, after which any check reads the chain.
import type { ChainPort } from '../chain/index.ts';

export class ChainClock {
  private last = 0;
  private lastAtMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly chain: Pick<ChainPort, 'now'>,
    readonly maxAgeMs: number,
    private readonly wallMs: () => number = Date.now,
  ) {}

  /** Reads the chain's clock (one call) and remembers it. */
  async read(): Promise<number> {
    const now = Number(await this.chain.now());
    this.observe(now);
    return now;
  }

  /** A chain time learnt some other way (e.g. read along with escrows). */
  observe(now: number): void {
    if (now >= this.last || this.wallMs() - this.lastAtMs > this.maxAgeMs) {
      this.last = now;
      this.lastAtMs = this.wallMs();
    }
  }

  /** The last reading, if it is younger than `maxAgeMs`. */
  fresh(maxAgeMs = this.maxAgeMs): number | null {
    return this.wallMs() - this.lastAtMs <= maxAgeMs ? this.last : null;
  }

  /** Chain time now, estimated from the last reading (0 before any). */
  estimate(): number {
    if (this.lastAtMs === Number.NEGATIVE_INFINITY) return 0;
    return this.last + Math.floor((this.wallMs() - this.lastAtMs) / 1000);
  }
}
