// What an operator sees of the maker's inventory (GET /v1/inventory) and what the metrics export: each
// asset's balance as the quote desk last read it, what open quotes and trades reserve of it, its target and
// band when one is configured and whether it is outside, and the hedges in flight and lately made. Reads
// caches and one store query each for hedges; no chain call.
import { rawMid, type Slippage, slippageOf } from '../aggregator/index.ts';
import type { Asset, AssetRegistry, HedgedAsset, HedgingConfig } from '../config/index.ts';
import { dividePrices } from '../money/index.ts';
import { type HedgeRecord, type HedgesRepository, isHedgeInFlight, type Store } from '../store/index.ts';
import type { AssetHedgingState, Hedger } from './hedger.ts';
import { deviation, outsideBand } from './plan.ts';
import { parseRatio } from './record.ts';

export interface InventoryAsset {
  asset: Asset;
  /** As the desk last read it; undefined until the chain answered once. */
  balanceRaw: bigint | undefined;
  reservedRaw: bigint;
  hedged: HedgedAsset | null;
  /** balance − target; null without a target or a balance. */
  deviationRaw: bigint | null;
  /** Further from the target than the band; null without a target or a balance. */
  outsideBand: boolean | null;
  state: AssetHedgingState | null;
}

export interface InventoryReading {
  /** When the balances were last read (unix ms); null before the first read. */
  balancesReadAtMs: number | null;
  hedging: HedgingConfig | null;
  assets: InventoryAsset[];
  inFlight: HedgeRecord[];
  recent: HedgeRecord[];
}

export interface InventorySources {
  assets: AssetRegistry;
  hedging: HedgingConfig | null;
  hedger: Pick<Hedger, 'states'> | null;
  store: Pick<HedgesRepository, 'hedgesInFlight' | 'recentHedges'> & Pick<Store, 'kind'>;
  balance(mint: string): bigint | undefined;
  reserved(mint: string): bigint;
  balancesReadAtMs(): number | null;
}

/** Every configured asset's position now, without hedges (metrics read this at each scrape). */
export function positions(sources: Omit<InventorySources, 'store' | 'runId'>): InventoryAsset[] {
  const hedgedByMint = new Map((sources.hedging?.assets ?? []).map((h) => [h.asset.mint, h]));
  const states = new Map((sources.hedger?.states() ?? []).map((s) => [s.hedged.asset.mint, s]));
  return sources.assets.list.map((asset) => {
    const balanceRaw = sources.balance(asset.mint);
    const hedged = hedgedByMint.get(asset.mint) ?? null;
    const known = hedged !== null && balanceRaw !== undefined;
    return {
      asset,
      balanceRaw,
      reservedRaw: sources.reserved(asset.mint),
      hedged,
      deviationRaw: known ? deviation(balanceRaw, hedged) : null,
      outsideBand: known ? outsideBand(balanceRaw, hedged) : null,
      state: states.get(asset.mint) ?? null,
    };
  });
}

/** How many recent hedges the view lists. */
const RECENT = 20;

export async function readInventory(sources: InventorySources): Promise<InventoryReading> {
  // Every instance's (a hedge whose instance is gone shows here until another takes it over). Two reads, not
  // one snapshot (PostgreSQL answers them on different connections): a hedge recorded or settled between them
  // is shown as the later read has it, so a hedge listed as sending is always among those in flight.
  const earlier = await sources.store.hedgesInFlight();
  const recent = await sources.store.recentHedges(RECENT);
  const latest = new Set(recent.map((hedge) => hedge.hedgeId));
  const inFlight = [
    ...earlier.filter((hedge) => !latest.has(hedge.hedgeId)),
    ...recent.filter((hedge) => isHedgeInFlight(hedge.status)),
  ].sort((a, b) =>
    a.createdAt === b.createdAt ? a.hedgeId.localeCompare(b.hedgeId) : a.createdAt.localeCompare(b.createdAt),
  );
  return {
    balancesReadAtMs: sources.balancesReadAtMs(),
    hedging: sources.hedging,
    assets: positions(sources),
    inFlight,
    recent,
  };
}

/** What a landed hedge paid against the mid it was bounded by; null until it landed. */
export function hedgeSlippage(hedge: HedgeRecord, assets: AssetRegistry): Slippage | null {
  if (hedge.landedInRaw === null || hedge.landedOutRaw === null) return null;
  const input = assets.find(hedge.inputMint);
  const output = assets.find(hedge.outputMint);
  if (!input || !output) return null;
  const mid = rawMid(
    dividePrices(parseRatio(hedge.inputUsd), parseRatio(hedge.outputUsd)),
    input.decimals,
    output.decimals,
  );
  return slippageOf(hedge.landedInRaw, hedge.landedOutRaw, mid);
}
