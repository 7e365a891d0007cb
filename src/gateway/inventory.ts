// The unified USDC balance as inventory: a cache of what Gateway holds for the maker's depositor on each source
// domain, and what moving all of it to Solana would cost, refreshed on a timer (as MakerInventory follows the
// chain), so an RFQ never waits for Gateway. What quotes may count is exact (bigint raw units): per domain its
// balance less the estimated fee of minting all of it, summed, less the configured reserve. A failed read
// counts 0 at once, and so does a read older than one refresh and the longest it may take: Gateway
// unreachable never leaves a stale figure counted. docs/gateway.md#unified-balance-as-inventory.

import { Repeating } from '../repeating.ts';
import type { BurnIntent } from './formats/index.ts';
import type { GatewayPort } from './port.ts';

export interface UnifiedDomain {
  domain: number;
  /** What Gateway would attest now: deposits less burns and less what is attested but not burned yet. */
  available: bigint;
  /** Attested and not burned yet (value + fee); null where the API does not say (Circle's balances). */
  pendingBurn: bigint | null;
  /** What minting all of `available` would cost (Gateway's estimate); null when not estimated. */
  fee: bigint | null;
  /** Why there is no estimate: the API refused it, or it is above the configured cap. */
  feeError: string | null;
}

export interface UnifiedReading {
  depositor: string;
  /** When the balances below were read (unix ms); null before the first successful read. */
  readAtMs: number | null;
  /** As of readAtMs. */
  domains: UnifiedDomain[];
  /** Why the latest read failed; null when it succeeded (or none was made yet). */
  error: string | null;
  /** The reserve quotes never count, raw units. */
  reserveRaw: bigint;
  /** What quotes may count now, raw units: 0 when the latest read failed or is older than it may be. */
  countedRaw: bigint;
}

/** Per domain, the balance less the fee of minting it (0 without an estimate); summed; less the reserve. */
export function unifiedUsable(domains: readonly UnifiedDomain[], reserveRaw: bigint): bigint {
  let usable = 0n;
  for (const d of domains) {
    if (d.fee === null || d.available <= d.fee) continue;
    usable += d.available - d.fee;
  }
  return usable > reserveRaw ? usable - reserveRaw : 0n;
}

export interface GatewayInventoryOptions {
  port: GatewayPort;
  /** The maker's depositor as the API names it (0x-hex on EVM domains). */
  depositor: string;
  /** The source domains its balance is read on. */
  domains: readonly number[];
  /**
   * An intent minting `value` from the domain to the maker on Solana, for the fee estimate (only its transfer
   * spec is sent; nothing is signed).
   */
  intentFor: (domain: number, value: bigint) => BurnIntent;
  /** What is attested and not burned on the domain, where the Gateway says (the dev Gateway's records). */
  pendingBurn?: (domain: number) => bigint;
  reserveRaw: bigint;
  refreshIntervalMs: number;
  /** The port's per-request timeout: a refresh takes at most one per domain and one for the balances. */
  timeoutMs: number;
  nowMs?: () => number;
}

export class GatewayInventory {
  private domains: UnifiedDomain[] = [];
  private readAtMs: number | null = null;
  private error: string | null = null;
  /** The timer's refreshes; stop() waits for the one under way (it reads the dev Gateway's store). */
  private repeating: Repeating | null = null;
  private readonly nowMs: () => number;

  constructor(private readonly options: GatewayInventoryOptions) {
    this.nowMs = options.nowMs ?? Date.now;
  }

  /** Reads the balances, then each domain's fee estimate; a failure of the balances fails the refresh. */
  async refresh(): Promise<void> {
    const { port, depositor, domains } = this.options;
    let balances: Awaited<ReturnType<GatewayPort['balances']>>;
    try {
      balances = await port.balances(depositor, domains);
    } catch (error) {
      this.error = (error as Error).message;
      throw error;
    }
    const read: UnifiedDomain[] = [];
    for (const { domain, balance } of balances) {
      read.push({
        domain,
        available: balance,
        pendingBurn: this.options.pendingBurn?.(domain) ?? null,
        ...(await this.estimate(domain, balance)),
      });
    }
    this.domains = read;
    this.readAtMs = this.nowMs();
    this.error = null;
  }

  /** The oldest a read may be and still count: one refresh period and the longest a refresh may take. */
  get maxAgeMs(): number {
    const { refreshIntervalMs, timeoutMs, domains } = this.options;
    return refreshIntervalMs + timeoutMs * (domains.length + 1);
  }

  /** What quotes may count now (raw units). */
  counted(): bigint {
    if (this.error !== null || this.readAtMs === null) return 0n;
    if (this.nowMs() - this.readAtMs > this.maxAgeMs) return 0n;
    return unifiedUsable(this.domains, this.options.reserveRaw);
  }

  reading(): UnifiedReading {
    return {
      depositor: this.options.depositor,
      readAtMs: this.readAtMs,
      domains: this.domains.map((d) => ({ ...d })),
      error: this.error,
      reserveRaw: this.options.reserveRaw,
      countedRaw: this.counted(),
    };
  }

  /** Keeps the cache current; a failed read counts 0 until one succeeds. */
  follow(onError: (error: unknown) => void): void {
    this.repeating = new Repeating(() => this.refresh().catch(onError), this.options.refreshIntervalMs);
    this.repeating.start();
  }

  /** Stops the timer, once the refresh under way (if any) has ended. */
  async stop(): Promise<void> {
    await this.repeating?.stop();
  }

  private async estimate(domain: number, value: bigint): Promise<Pick<UnifiedDomain, 'fee' | 'feeError'>> {
    if (value === 0n) return { fee: 0n, feeError: null };
    try {
      const { total } = await this.options.port.estimate([this.options.intentFor(domain, value)]);
      return { fee: total, feeError: null };
    } catch (error) {
      return { fee: null, feeError: (error as Error).message };
    }
  }
}
