// The config's venue and aggregator sections: their defaults, the base URL each chain kind falls back to,
// and the refusals that name the field.

import { readFileSync } from 'node:fs';
import { PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { openAggregator, trustedPools } from '../../src/aggregator/index.ts';
import {
  ConfigError,
  DEFAULT_CONFIG_PATH,
  JUPITER_PUBLIC_BASE_URL,
  resolveConfig,
} from '../../src/config/index.ts';

const doc = () => JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')) as Record<string, unknown>;

const rpcChain = {
  kind: 'rpc',
  url: 'https://api.mainnet-beta.solana.com',
  program_id: 'FkwXEvVTwK8CjPKJHF5j91PWFsq2nNp4ecXHvu9qWRfh',
  maker_keypair_path: '/secrets/maker.json',
};

function fieldOf(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    if (e instanceof ConfigError) return e.field;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('venue and aggregator config', () => {
  it('ships a venue of $2M a side, fee 30 bps, keeper at 10 bps, and the embedded venue as the aggregator', () => {
    const config = resolveConfig(doc());
    expect(config.venue).toEqual({ liquidityMicroUsd: 2_000_000_000_000n, feeBps: 30, keeperTriggerBps: 10 });
    expect(config.aggregator).toMatchObject({
      kind: 'jupiter',
      baseUrl: null,
      maxSlippageBps: 100,
      maxPriorityFeeLamports: 1_000_000n,
      allowedPrograms: [
        'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4',
        'EBJ1xbLGuBBN1327KM7MYz5Wv2mHXiZ4E9KbV2ks5KNH',
      ],
    });
  });

  it('defaults the base URL to Jupiter’s public Swap API on a real cluster, and keeps a configured one', () => {
    const d = {
      ...doc(),
      chain: rpcChain,
      settlement: { ...(doc().settlement as object), lock_window_seconds: 120 },
    };
    expect(resolveConfig(d).aggregator.baseUrl).toBe(JUPITER_PUBLIC_BASE_URL);
    const keyed = {
      ...d,
      aggregator: {
        kind: 'jupiter',
        base_url: 'https://api.jup.ag/swap/v1/',
        api_key_env: 'JUPITER_API_KEY',
      },
    };
    expect(resolveConfig(keyed).aggregator).toMatchObject({
      baseUrl: 'https://api.jup.ag/swap/v1',
      apiKeyEnv: 'JUPITER_API_KEY',
    });
  });

  it('has no venue without the section, and none of either section is required', () => {
    const d = doc();
    delete d.venue;
    delete d.aggregator;
    // Hedging swaps through the venue on the embedded chain: without one it is refused (test/hedging).
    delete d.hedging;
    const config = resolveConfig(d);
    expect(config.venue).toBeNull();
    expect(config.aggregator.maxSlippageBps).toBe(100);
  });

  it('refuses what cannot be meant, naming the field', () => {
    expect(fieldOf(() => resolveConfig({ ...doc(), venue: { liquidity_usd_per_side: '0' } }))).toBe(
      'venue.liquidity_usd_per_side',
    );
    expect(fieldOf(() => resolveConfig({ ...doc(), venue: { fee_bps: 5000 } }))).toBe('venue.fee_bps');
    expect(
      fieldOf(() => resolveConfig({ ...doc(), aggregator: { kind: 'jupiter', max_slippage_bps: 0 } })),
    ).toBe('aggregator.max_slippage_bps');
    expect(
      fieldOf(() => resolveConfig({ ...doc(), aggregator: { kind: 'jupiter', base_url: 'ftp://x' } })),
    ).toBe('aggregator.base_url');
    expect(fieldOf(() => resolveConfig({ ...doc(), aggregator: { kind: 'oneinch' } }))).toBe(
      'aggregator.kind',
    );
  });

  it('sets every swap’s minimum 20 bps under the route by default, never looser than the slippage limit', () => {
    expect(resolveConfig(doc()).aggregator).toMatchObject({ routeToleranceBps: 20, trustedPools: null });
    const tight = { kind: 'jupiter', max_slippage_bps: 10 };
    const noHedging = () => {
      const d = doc();
      delete d.hedging;
      return d;
    };
    expect(resolveConfig({ ...noHedging(), aggregator: tight }).aggregator.routeToleranceBps).toBe(10);
    expect(
      fieldOf(() => resolveConfig({ ...noHedging(), aggregator: { ...tight, route_tolerance_bps: 11 } })),
    ).toBe('aggregator.route_tolerance_bps');
    const pools = ['FkwXEvVTwK8CjPKJHF5j91PWFsq2nNp4ecXHvu9qWRfh'];
    expect(
      resolveConfig({ ...doc(), aggregator: { kind: 'jupiter', trusted_pools: pools } }).aggregator
        .trustedPools,
    ).toEqual(pools);
    expect(
      fieldOf(() =>
        resolveConfig({
          ...doc(),
          aggregator: { kind: 'jupiter', trusted_pools: ['1111111111111111111111111111111111'] },
        }),
      ),
    ).toBe('aggregator.trusted_pools[0]');
  });
});

describe('openAggregator', () => {
  const chain = {
    makerWallet: PublicKey.default,
    signMakerInstructions: async () => Promise.reject(new Error('unused')),
  };
  const aggregator = resolveConfig(doc()).aggregator;

  it('needs a base URL or an embedded venue to default to', async () => {
    await expect(openAggregator({ config: aggregator, chain })).rejects.toThrow(/no base_url/);
    const port = await openAggregator({
      config: aggregator,
      chain,
      venue: { serve: async () => 'http://127.0.0.1:1/jupiter/swap/v1', pools: [] },
    });
    expect(port.baseUrl).toBe('http://127.0.0.1:1/jupiter/swap/v1');
  });

  it('trusts the configured pools and the embedded venue’s own; neither: pools are not pinned', () => {
    const pool = new PublicKey('FkwXEvVTwK8CjPKJHF5j91PWFsq2nNp4ecXHvu9qWRfh');
    const listed = 'EBJ1xbLGuBBN1327KM7MYz5Wv2mHXiZ4E9KbV2ks5KNH';
    expect(trustedPools({ trustedPools: null }, null)).toBeNull();
    expect(trustedPools({ trustedPools: null }, { pools: [{ pool }] })).toEqual([pool.toBase58()]);
    expect(trustedPools({ trustedPools: [listed] }, { pools: [{ pool }] })).toEqual([
      listed,
      pool.toBase58(),
    ]);
  });

  it('reads an API key from the environment variable it names, and refuses one that is unset', async () => {
    const keyed = { ...aggregator, baseUrl: 'https://api.jup.ag/swap/v1', apiKeyEnv: 'JUPITER_API_KEY' };
    await expect(openAggregator({ config: keyed, chain, env: {} })).rejects.toThrow(/JUPITER_API_KEY/);
    await expect(
      openAggregator({ config: keyed, chain, env: { JUPITER_API_KEY: 'k' } }),
    ).resolves.toBeDefined();
  });

  it('refuses an allowed program whose swap it cannot check', async () => {
    const other = {
      ...aggregator,
      baseUrl: 'https://x',
      allowedPrograms: ['11111111111111111111111111111111'],
    };
    await expect(openAggregator({ config: other, chain })).rejects.toThrow(/cannot check|can check/);
  });
});
