import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { SERVICE_BUNDLE } from '../../scripts/build-service.ts';
import { SPONSORED_FEEDS } from '../../src/chain/index.ts';
import { loadConfig, resolveConfig } from '../../src/config/index.ts';
import {
  type ConfigDocument,
  defaultConfigDocument,
  nth,
  shippedPriceSource,
  tempDir,
} from '../support/service.ts';
import { refusal } from './refusal.ts';

const refused = (change: (doc: ConfigDocument) => void) => {
  const doc = defaultConfigDocument();
  change(doc);
  return refusal(doc);
};

describe('the config file', () => {
  test('the shipped defaults load: five real mints, one with 5 decimals, and generous inventory', () => {
    const config = loadConfig();
    expect(config.assets.list.map((a) => [a.symbol, a.mint, a.decimals])).toEqual([
      ['SOL', 'So11111111111111111111111111111111111111112', 9],
      ['USDC', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 6],
      ['USDT', 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', 6],
      ['BONK', 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263', 5],
      ['JUP', 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN', 6],
    ]);
    expect(config.quotes).toEqual({ defaultExpirySeconds: 30, maxExpirySeconds: 300 });
    expect(config.http.rateLimitPerMinute).toBe(1000);
    // At least $1M of every asset at the reference prices (docs/quotes-and-ledger.md).
    for (const asset of config.assets.list) {
      const price = config.prices.get(asset.mint);
      const raw = config.inventory.get(asset.mint) ?? 0n;
      const usd = (raw * (price?.usd.num ?? 0n)) / ((price?.usd.den ?? 1n) * 10n ** BigInt(asset.decimals));
      expect(usd, asset.symbol).toBeGreaterThanOrEqual(1_000_000n);
    }
  });

  test.each<[string, (doc: ConfigDocument) => void, string]>([
    [
      'decimals out of range',
      (d) => {
        nth(d.assets, 0).decimals = 19;
      },
      'config assets[0].decimals',
    ],
    [
      'a mint that is not base58',
      (d) => {
        nth(d.assets, 1).mint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1O';
      },
      'config assets[1].mint',
    ],
    [
      'a mint of the wrong length',
      (d) => {
        nth(d.assets, 1).mint = '11111111111111111111111111111111111';
      },
      'config assets[1].mint',
    ],
    [
      'a symbol colliding with another',
      (d) => {
        nth(d.assets, 2).symbol = 'usdc';
      },
      'config assets[2]',
    ],
    [
      'a symbol colliding with a mint',
      (d) => {
        d.assets.push({
          symbol: 'X',
          name: 'x',
          mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
          decimals: 6,
        });
      },
      'config assets[5]',
    ],
    [
      'a trust_freeze_authority that is not a boolean',
      (d) => {
        nth(d.assets, 3).trust_freeze_authority = 'yes';
      },
      'config assets[3].trust_freeze_authority',
    ],
    [
      'a pair of an unknown asset',
      (d) => {
        nth(d.pairs, 0).output = 'DOGE';
      },
      'config pairs[0].output',
    ],
    [
      'a pair min above its max',
      (d) => {
        nth(d.pairs, 0).min_input = '3000';
      },
      'config pairs[0].max_input',
    ],
    [
      'a pair size with too many decimals',
      (d) => {
        nth(d.pairs, 0).min_input = '0.0000000001';
      },
      'config pairs[0].min_input',
    ],
    [
      'a spread above 10000',
      (d) => {
        nth(d.pairs, 0).base_spread_bps = 10001;
      },
      'config pairs[0].base_spread_bps',
    ],
    [
      'a missing price',
      (d) => {
        d.prices.splice(0, 1);
      },
      'config prices',
    ],
    [
      'a quote expiry above 300',
      (d) => {
        d.quotes.max_expiry_seconds = 301;
      },
      'config quotes.max_expiry_seconds',
    ],
    [
      'a default expiry above the max',
      (d) => {
        d.quotes.default_expiry_seconds = 200;
        d.quotes.max_expiry_seconds = 100;
      },
      'config quotes.default_expiry_seconds',
    ],
    [
      'an unknown key',
      (d) => {
        (d as Record<string, unknown>).colour = 'blue';
      },
      'config colour: is not a known setting',
    ],
    [
      'a landing margin not below the redeem window',
      (d) => {
        d.settlement.landing_margin_seconds = 200;
      },
      'config settlement.landing_margin_seconds',
    ],
    [
      'a taker timelock too short for any maker lock',
      (d) => {
        d.settlement.taker_timelock_seconds = 400;
      },
      'config settlement.taker_timelock_seconds',
    ],
    [
      'real-cluster floors',
      (d) => {
        d.chain = {
          kind: 'rpc',
          url: 'http://127.0.0.1:8899',
          program_id: 'So11111111111111111111111111111111111111112',
          maker_keypair_path: 'k.json',
        };
        d.settlement.landing_margin_seconds = 5;
      },
      'config settlement.landing_margin_seconds',
    ],
    [
      'a priority fee cap below its base',
      (d) => {
        d.chain = {
          kind: 'rpc',
          url: 'http://127.0.0.1:8899',
          program_id: 'So11111111111111111111111111111111111111112',
          maker_keypair_path: 'k.json',
          priority_fee_micro_lamports: 10_000,
          max_priority_fee_micro_lamports: 5_000,
        };
      },
      'config chain.max_priority_fee_micro_lamports',
    ],
    [
      'a short operator token',
      (d) => {
        d.http.operator_token = 'short';
      },
      'config http.operator_token',
    ],
    [
      'a short cluster secret',
      (d) => {
        d.cluster = { secret: 'too-short' };
      },
      'config cluster.secret',
    ],
    [
      'a CORS origin with a path',
      (d) => {
        d.http.cors_origins = ['https://taker.example/app'];
      },
      'config http.cors_origins[0]',
    ],
    [
      'a trusted proxy that is not an address or range',
      (d) => {
        d.http.trust_proxy = ['10.0.0.0/33'];
      },
      'config http.trust_proxy[0]',
    ],
  ])('refuses %s, naming the field', (_name, change, field) => {
    expect(refused(change)).toContain(field);
  });

  test('trust_freeze_authority is optional and off unless set; the defaults trust the USDC and USDT issuers only', () => {
    const trusted = (doc: ConfigDocument) =>
      resolveConfig(doc)
        .assets.list.filter((a) => a.trustFreezeAuthority)
        .map((a) => a.symbol);
    expect(trusted(defaultConfigDocument())).toEqual(['USDC', 'USDT']);
    const doc = defaultConfigDocument();
    nth(doc.assets, 3).trust_freeze_authority = true;
    delete nth(doc.assets, 1).trust_freeze_authority;
    nth(doc.assets, 2).trust_freeze_authority = false;
    expect(trusted(doc)).toEqual(['BONK']);
  });

  test('the lease of a run is at most a third of the safety margin (default 10 s, or a third of a shorter margin)', () => {
    expect(loadConfig().cluster).toEqual({ leaseTtlSeconds: 10, claimBatch: 500, secret: null });
    const doc = defaultConfigDocument();
    doc.settlement.safety_margin_seconds = 30;
    doc.cluster = { lease_ttl_seconds: 10, claim_batch: 50 };
    expect(resolveConfig(doc).cluster).toEqual({ leaseTtlSeconds: 10, claimBatch: 50, secret: null });
    expect(
      refused((d) => {
        d.settlement.safety_margin_seconds = 29;
        d.cluster = { lease_ttl_seconds: 10 };
      }),
    ).toMatch(/cluster\.lease_ttl_seconds.*a third of settlement\.safety_margin_seconds \(29 s\)/);
    const short = defaultConfigDocument();
    short.settlement.safety_margin_seconds = 12;
    expect(resolveConfig(short).cluster.leaseTtlSeconds).toBe(4);
  });

  test('the security settings: same-origin CORS, no trusted proxy and no cluster secret unless configured', () => {
    const shipped = loadConfig();
    expect(shipped.http.corsOrigins).toEqual([]);
    expect(shipped.http.trustProxy).toBe(false);
    expect(shipped.cluster.secret).toBeNull();
    const doc = defaultConfigDocument();
    doc.http.cors_origins = ['https://taker.example', 'http://127.0.0.1:5173'];
    doc.http.trust_proxy = ['loopback', '10.0.0.0/8', '::1'];
    doc.cluster = { secret: 'x'.repeat(32) };
    const config = resolveConfig(doc);
    expect(config.http.corsOrigins).toEqual(['https://taker.example', 'http://127.0.0.1:5173']);
    expect(config.http.trustProxy).toEqual(['loopback', '10.0.0.0/8', '::1']);
    expect(config.cluster.secret).toBe('x'.repeat(32));
    // A price is also judged on the service's clock, 10 s of tolerance past its max age by default.
    expect(shipped.priceSource.kind === 'pyth' && shipped.priceSource.clockToleranceSeconds).toBe(10);
  });

  test('embedded timings of a few seconds are accepted for tests and demos', () => {
    const doc = defaultConfigDocument();
    Object.assign(doc.settlement, {
      lock_window_seconds: 3,
      taker_timelock_seconds: 20,
      maker_timelock_seconds: 6,
      safety_margin_seconds: 4,
      min_redeem_window_seconds: 4,
      landing_margin_seconds: 1,
    });
    expect(resolveConfig(doc).settlement.lockWindowSeconds).toBe(3);
  });

  test('a bad value stops the process with a message naming the field', () => {
    const dir = tempDir();
    try {
      const doc = defaultConfigDocument();
      doc.risk.max_open_per_wallet = 0;
      const path = join(dir.path, 'bad.json');
      writeFileSync(path, JSON.stringify(doc));
      const run = spawnSync(process.execPath, [SERVICE_BUNDLE], {
        env: { ...process.env, CONFIG: path, DATA_DIR: dir.path, PORT: '0' },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('config risk.max_open_per_wallet');
    } finally {
      dir.remove();
    }
  });

  test('with DATABASE_URL, a wildcard HOST needs ADVERTISE_URL (instances tell each other apart by address)', () => {
    const dir = tempDir();
    try {
      const run = spawnSync(process.execPath, [SERVICE_BUNDLE], {
        env: {
          ...process.env,
          DATA_DIR: dir.path,
          PORT: '0',
          HOST: '0.0.0.0',
          DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
        },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('ADVERTISE_URL');
      expect(run.stderr).toContain('HOST=0.0.0.0');
    } finally {
      dir.remove();
    }
  });

  test('with DATABASE_URL a cluster secret is required (config or CLUSTER_SECRET), and a short one is refused', () => {
    const dir = tempDir();
    try {
      const start = (env: Record<string, string>) =>
        spawnSync(process.execPath, [SERVICE_BUNDLE], {
          env: {
            ...process.env,
            DATA_DIR: dir.path,
            PORT: '0',
            DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
            ...env,
          },
          encoding: 'utf8',
          timeout: 20_000,
        });
      const none = start({});
      expect(none.status).toBe(1);
      expect(none.stderr).toContain('config cluster.secret: required with DATABASE_URL');
      const short = start({ CLUSTER_SECRET: 'short' });
      expect(short.status).toBe(1);
      expect(short.stderr).toContain('config CLUSTER_SECRET');
    } finally {
      dir.remove();
    }
  });
});

describe('the price source', () => {
  /** The default document with the shipped Pyth source, changed by `change`. */
  const pythDoc = (
    change: (source: { feeds: Record<string, unknown>[] } & Record<string, unknown>) => void = () => {},
  ) => {
    const doc = defaultConfigDocument();
    const source = shippedPriceSource() as { feeds: Record<string, unknown>[] } & Record<string, unknown>;
    change(source);
    doc.price_source = source;
    return doc;
  };
  const refusedPyth = (change: Parameters<typeof pythDoc>[0]) =>
    refused((doc) => {
      doc.price_source = pythDoc(change).price_source;
    });

  test('the shipped source is Pyth: every asset at its sponsored account and feed id, with its own bounds', () => {
    const source = loadConfig().priceSource;
    if (source.kind !== 'pyth') throw new Error('expected pyth');
    expect(source.commitment).toBe('confirmed');
    expect(source.refreshIntervalMs).toBe(400);
    expect(source.embeddedPublisher).toEqual({ seed: 1, intervalMs: 1000 });
    for (const feed of source.feeds) {
      const sponsored = SPONSORED_FEEDS[feed.asset.symbol as keyof typeof SPONSORED_FEEDS];
      expect(feed.account, feed.asset.symbol).toBe(sponsored.account);
      expect(feed.feedId, feed.asset.symbol).toBe(sponsored.feedId);
      expect(feed.maxAgeSeconds).toBe(90);
    }
    expect(source.feeds.map((f) => [f.asset.symbol, f.maxConfidenceBps, f.maxDeviationBps])).toEqual([
      ['SOL', 100, 500],
      ['USDC', 50, 100],
      ['USDT', 50, 100],
      ['BONK', 200, 800],
      ['JUP', 150, 800],
    ]);
  });

  test('static reads the prices section; an explicit account and feed id (0x, either case) replace the sponsored ones', () => {
    expect(resolveConfig(defaultConfigDocument()).priceSource).toEqual({ kind: 'static' });
    const doc = pythDoc((source) => {
      Object.assign(nth(source.feeds, 0), {
        account: '7UVimffxr9ow1uXYxsr4LHAcV58mLzhmwaeKvJ1pjLiE',
        feed_id: `0x${'AB'.repeat(32)}`,
      });
    });
    const source = resolveConfig(doc).priceSource;
    if (source.kind !== 'pyth') throw new Error('expected pyth');
    expect(source.feeds[0]).toMatchObject({
      account: '7UVimffxr9ow1uXYxsr4LHAcV58mLzhmwaeKvJ1pjLiE',
      feedId: 'ab'.repeat(32),
    });
  });

  test.each<[string, Parameters<typeof pythDoc>[0], string]>([
    [
      'a feed of an unknown asset',
      (s) => void Object.assign(nth(s.feeds, 0), { asset: 'DOGE' }),
      'price_source.feeds[0].asset',
    ],
    ['a second feed for an asset', (s) => void s.feeds.push({ ...nth(s.feeds, 0) }), 'price_source.feeds[5]'],
    ['a traded asset without a feed', (s) => void s.feeds.splice(4, 1), 'no feed for JUP'],
    [
      'a feed id that is not 32 bytes of hex',
      (s) => void Object.assign(nth(s.feeds, 0), { feed_id: 'ef0d' }),
      'price_source',
    ],
    [
      'a feed account that is not an address',
      (s) => void Object.assign(nth(s.feeds, 1), { account: 'not-base58-0OIl' }),
      'price_source',
    ],
    [
      'two feeds at one account',
      (s) => void Object.assign(nth(s.feeds, 1), { account: SPONSORED_FEEDS.SOL.account }),
      'two feeds share an account',
    ],
    [
      'a refresh interval below 50 ms',
      (s) => void Object.assign(s, { refresh_interval_ms: 10 }),
      'price_source',
    ],
    [
      'a confidence bound above 25%',
      (s) => void Object.assign(nth(s.feeds, 0), { max_confidence_bps: 2501 }),
      'price_source',
    ],
  ])('refuses %s', (_name, change, message) => {
    expect(refusedPyth(change)).toContain(message);
  });

  test('an asset without a sponsored feed needs its account and feed id', () => {
    const message = refused((doc) => {
      doc.assets.push({
        symbol: 'WETH',
        name: 'Wrapped Ether',
        mint: '7vfCXTUXx5WJV5JADk17DUJ4ksgau7utNKj4b963voxs',
        decimals: 8,
      });
      doc.price_source = pythDoc((source) => {
        source.feeds.push({
          asset: 'WETH',
          max_age_seconds: 60,
          max_confidence_bps: 50,
          max_deviation_bps: 500,
        });
      }).price_source;
    });
    expect(message).toContain(
      'price_source.feeds[5]: WETH has no sponsored feed: give its account and feed_id',
    );
  });

  test("the spread caps leave room for both sides' confidence bounds", () => {
    const message = refused((doc) => {
      nth(doc.pairs, 0).base_spread_bps = 9_900;
      doc.price_source = pythDoc().price_source;
    });
    expect(message).toContain(
      'base + size + skew + confidence + option spread of SOL→USDC exceeds 10000 bps',
    );
  });
});

describe('the budget of unfunded holds, the option term and the pairs’ own bounds', () => {
  test('the shipped defaults: a quarter per client address, 15 % per wallet, half in all, a 30 s landing window; k = 0.4', () => {
    const config = loadConfig();
    expect(config.reservations).toEqual({
      clientShareBps: 2500,
      walletShareBps: 1500,
      unfundedShareBps: 5000,
      lockLandingSeconds: 30,
    });
    expect(config.pricing.option).toEqual({ k: 0.4, maxBps: 100, volatilityHalfLifeSeconds: 900 });
    const bounds = (input: string, output: string) => {
      const pair = config.pairs.find((p) => p.input.symbol === input && p.output.symbol === output);
      return [pair?.maxExpirySeconds, pair?.makerTimelockSeconds];
    };
    // The volatile pairs keep their quotes and their takers' options shorter.
    expect(bounds('SOL', 'USDC')).toEqual([300, 300]);
    expect(bounds('USDC', 'BONK')).toEqual([120, 240]);
    expect(bounds('JUP', 'SOL')).toEqual([120, 240]);
  });

  test('without the sections the same defaults apply; the landing window never outlasts the lock window', () => {
    const doc = defaultConfigDocument();
    delete doc.reservations;
    (doc.pricing as Record<string, unknown>).option = undefined;
    doc.settlement = { ...doc.settlement, lock_window_seconds: 12 };
    const config = resolveConfig(doc);
    expect(config.reservations.lockLandingSeconds).toBe(12);
    expect(config.reservations.clientShareBps).toBe(2500);
    expect(config.pricing.option.k).toBe(0.4);
  });

  test('a pair may only shorten: the global bound applies when it is the shorter', () => {
    const doc = defaultConfigDocument();
    doc.quotes.max_expiry_seconds = 60;
    doc.settlement = { ...doc.settlement, maker_timelock_seconds: 200 };
    const config = resolveConfig(doc);
    const bonk = config.pairs.find((p) => p.output.symbol === 'BONK');
    expect([bonk?.maxExpirySeconds, bonk?.makerTimelockSeconds]).toEqual([60, 200]);
  });

  test.each<[string, (doc: ConfigDocument) => void, string]>([
    [
      'a maker timelock below the minimum redeem window',
      (d) => {
        nth(d.pairs, 0).maker_timelock_seconds = 119;
      },
      'config pairs[0].maker_timelock_seconds: must be at least settlement.min_redeem_window_seconds',
    ],
    [
      'a pair expiry beyond 300 s',
      (d) => {
        nth(d.pairs, 0).max_expiry_seconds = 301;
      },
      'config pairs[0].max_expiry_seconds',
    ],
    [
      'a share beyond the whole',
      (d) => {
        d.reservations = { client_share_bps: 10_001 };
      },
      'config reservations.client_share_bps',
    ],
    [
      'an unknown reservations setting',
      (d) => {
        d.reservations = { share: 1 };
      },
      'config reservations.share',
    ],
    [
      'a negative k',
      (d) => {
        (d.pricing as Record<string, unknown>).option = { k: -0.1 };
      },
      'config pricing.option.k',
    ],
  ])('refuses %s, naming the field', (_name, change, field) => {
    expect(refused(change)).toContain(field);
  });

  test('on a real cluster a pair’s maker timelock keeps the floor', () => {
    const message = refused((doc) => {
      doc.chain = {
        kind: 'rpc',
        url: 'http://127.0.0.1:8899',
        program_id: 'EBJ1xbLGuBBN1327KM7MYz5Wv2mHXiZ4E9KbV2ks5KNH',
        maker_keypair_path: 'maker.json',
      };
      nth(doc.pairs, 0).maker_timelock_seconds = 179;
      doc.settlement = { ...doc.settlement, min_redeem_window_seconds: 90 };
    });
    expect(message).toBe('config pairs[0].maker_timelock_seconds: must be at least 180 s on a real cluster');
  });

  test('both legs’ option caps join the spread caps; k = 0 takes them out', () => {
    const tight = (doc: ConfigDocument, k: number) => {
      doc.price_source = shippedPriceSource();
      // 9780 + 20 + 50 + SOL 100 + USDC 50 confidence = 10000: no room left for an option term.
      nth(doc.pairs, 0).base_spread_bps = 9_780;
      (doc.pricing as Record<string, unknown>).option = { k, max_bps: 1 };
    };
    expect(refused((doc) => tight(doc, 0.4))).toContain('base + size + skew + confidence + option spread');
    const doc = defaultConfigDocument();
    tight(doc, 0);
    expect(resolveConfig(doc).pairs[0]?.baseSpreadBps).toBe(9_780);
  });
});
