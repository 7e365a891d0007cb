// `npm run cluster`'s instance config (scripts/cluster/config.ts): the shipped defaults pointed at the shared
// loopback chain must pass the same validation the instances run at start, real-cluster floors included.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { clusterConfigDocument } from '../../scripts/cluster/config.ts';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import { ConfigError, DEFAULT_CONFIG_PATH, resolveConfig } from '../../src/config/index.ts';

const shipped = () => JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')) as Record<string, unknown>;

const chain = {
  url: 'http://127.0.0.1:8899',
  wsUrl: 'ws://127.0.0.1:8900',
  programId: DEFAULT_HTLC_PROGRAM_ID.toBase58(),
  makerKeypairPath: '/tmp/rfq-cluster-x/maker-keypair.json',
};

describe('the cluster script’s instance config', () => {
  test('the shipped defaults on the loopback chain resolve as an rpc chain, with the default lease', () => {
    const config = resolveConfig(clusterConfigDocument(shipped(), chain));
    expect(config.chain).toMatchObject({
      kind: 'rpc',
      url: chain.url,
      wsUrl: chain.wsUrl,
      programId: chain.programId,
      makerKeypairPath: chain.makerKeypairPath,
    });
    expect(config.priceSource.kind).toBe('pyth');
    expect(config.cluster.leaseTtlSeconds).toBe(10);
  });

  test('the chain publishes the feeds on rpc, so the service’s own publisher is dropped', () => {
    const doc = clusterConfigDocument(shipped(), chain);
    expect(doc.price_source).not.toHaveProperty('embedded_publisher');
  });

  test('--lease-ttl sets cluster.lease_ttl_seconds, still held to a third of the safety margin', () => {
    expect(
      resolveConfig(clusterConfigDocument(shipped(), chain, { leaseTtlSeconds: 5 })).cluster,
    ).toMatchObject({
      leaseTtlSeconds: 5,
    });
    expect(() => resolveConfig(clusterConfigDocument(shipped(), chain, { leaseTtlSeconds: 101 }))).toThrow(
      ConfigError,
    );
  });

  test('the instances share the secret they sign their forwards with', () => {
    const secret = 'a'.repeat(64);
    expect(resolveConfig(clusterConfigDocument(shipped(), chain, { secret })).cluster.secret).toBe(secret);
  });

  test('the base document is left as it was', () => {
    const base = shipped();
    const before = structuredClone(base);
    clusterConfigDocument(base, chain, { leaseTtlSeconds: 5 });
    expect(base).toEqual(before);
  });
});
