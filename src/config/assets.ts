// The configured assets: resolved from the file, and found by mint or symbol as the interface matches them.
import { ConfigError, checkAddress } from './fields.ts';
import type { ConfigFile } from './schema.ts';

export interface Asset {
  /** The asset's id is its mint address. */
  readonly id: string;
  readonly mint: string;
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
  /**
   * The config accepts the mint's freeze authority: its issuer is trusted not to freeze an escrow vault.
   * Absent means not trusted (the config always sets it; hand-built assets in tests may leave it out).
   */
  readonly trustFreezeAuthority?: boolean;
}

/** Assets by id (mint) or symbol, case-insensitively, as the interface matches them. */
export class AssetRegistry {
  readonly list: readonly Asset[];
  private readonly byKey = new Map<string, Asset>();

  constructor(assets: readonly Asset[]) {
    this.list = assets;
    assets.forEach((asset, index) => {
      for (const key of new Set([asset.mint.toLowerCase(), asset.symbol.toLowerCase()])) {
        const other = this.byKey.get(key);
        if (other && other !== asset) {
          throw new ConfigError(
            `assets[${index}]`,
            `'${key}' would match both ${other.symbol} and ${asset.symbol}`,
          );
        }
        this.byKey.set(key, asset);
      }
    });
  }

  find(idOrSymbol: string): Asset | undefined {
    return this.byKey.get(idOrSymbol.toLowerCase());
  }
}

/** One configured asset, its mint checked. */
export function resolveAsset(raw: ConfigFile['assets'][number], field: string): Asset {
  const mint = checkAddress(raw.mint, `${field}.mint`) as string;
  return {
    id: mint,
    mint,
    symbol: raw.symbol,
    name: raw.name,
    decimals: raw.decimals,
    trustFreezeAuthority: raw.trust_freeze_authority ?? false,
  };
}
