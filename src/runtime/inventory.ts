// The maker's balances as the quote desk reads them: synchronous reads of a cache that follows the chain,
// refreshed on a timer, so an RFQ never waits for the chain. Readiness reads the same cache (the fee balance,
// and when the chain last answered) instead of asking the chain at every probe.

import type { ChainPort } from '../chain/index.ts';
import { publicKey } from '../chain/index.ts';
import type { InventorySource } from '../quotes/index.ts';
import { Repeating } from '../repeating.ts';

export class MakerInventory implements InventorySource {
  private readonly balances = new Map<string, bigint>();
  private repeating: Repeating | null = null;
  /** The maker's SOL for fees and rent (lamports), as last read; undefined until the chain answered it once. */
  feeLamports: bigint | undefined;
  /** When a refresh last succeeded (unix ms, the service's clock); null before the first. */
  lastReadAtMs: number | null = null;

  constructor(
    private readonly chain: ChainPort,
    private readonly mints: readonly string[],
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** The balance as last read; undefined until the chain answered once (never mistaken for zero). */
  balance(mint: string): bigint | undefined {
    return this.balances.get(mint);
  }

  /** Every mint's balance has been read at least once. */
  get read(): boolean {
    return this.mints.every((mint) => this.balances.has(mint));
  }

  async refresh(): Promise<void> {
    const owner = this.chain.makerWallet;
    // The fee balance rides along; its failure alone keeps the last known one and fails nothing else.
    const fee = (async () => this.chain.solBalance(owner))().catch(() => undefined);
    const amounts = await Promise.all(
      this.mints.map((mint) => this.chain.tokenBalance(owner, publicKey(mint))),
    );
    this.mints.forEach((mint, i) => {
      this.balances.set(mint, amounts[i] ?? 0n);
    });
    this.feeLamports = (await fee) ?? this.feeLamports;
    this.lastReadAtMs = this.nowMs();
  }

  /** Keeps the cache current; a failed read keeps the last known balances. */
  follow(intervalMs: number, onError: (error: unknown) => void): void {
    this.repeating = new Repeating(() => this.refresh().catch(onError), intervalMs);
    this.repeating.start();
  }

  /** Stops the timer (a refresh under way ends on its own). */
  stop(): void {
    void this.repeating?.stop();
  }
}

/**
 * The desk's inventory with the unified balance counted in the Gateway USDC's balance: quotes may take it as
 * output, and reservations hold against the sum like any inventory. Undefined (never read) stays undefined.
 */
export function withUnifiedBalance(
  solana: InventorySource,
  mint: string,
  unified: () => bigint,
): InventorySource {
  return {
    balance(of: string) {
      const balance = solana.balance(of);
      return balance === undefined || of !== mint ? balance : balance + unified();
    },
  };
}
