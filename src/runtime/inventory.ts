// The maker's balances as the quote desk reads them: synchronous reads of a cache that follows the chain,
// refreshed on a timer, so an RFQ never waits for the chain.
import type { ChainPort } from '../chain/index.ts';
import { publicKey } from '../chain/index.ts';
import type { InventorySource } from '../quotes/index.ts';

export class MakerInventory implements InventorySource {
  private readonly balances = new Map<string, bigint>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly chain: ChainPort,
    private readonly mints: readonly string[],
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
    const amounts = await Promise.all(
      this.mints.map((mint) => this.chain.tokenBalance(owner, publicKey(mint))),
    );
    this.mints.forEach((mint, i) => {
      this.balances.set(mint, amounts[i] ?? 0n);
    });
  }

  /** Keeps the cache current; a failed read keeps the last known balances. */
  follow(intervalMs: number, onError: (error: unknown) => void): void {
    const loop = () => {
      this.timer = setTimeout(() => {
        this.refresh()
          .catch(onError)
          .finally(() => {
            if (this.timer !== null) loop();
          });
      }, intervalMs);
      this.timer.unref?.();
    };
    loop();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
