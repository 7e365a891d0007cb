// Whom the client trusts: the service only for its own embedded chain (the same genesis hash as the service's
// dev RPC, and no public cluster's, even when a service claims one), and what a pinned client must have.
import { describe, expect, test } from 'vitest';
import {
  CANONICAL_MINTS,
  CLUSTER_GENESIS_HASHES,
  decideTrust,
  knownMints,
  missingPins,
} from '../src/index.ts';

const LOCAL = 'Ad5ZGLxVLqmkxKS5zZeRGhTMHqrD2ksX5XnUEAX8Bxws';

describe('which trust applies', () => {
  test('a public cluster is always pinned, whatever the service says its chain is', () => {
    for (const [cluster, hash] of Object.entries(CLUSTER_GENESIS_HASHES))
      expect(
        decideTrust({ rpcGenesisHash: hash, serviceGenesisHash: hash, trustEmbeddedService: true }),
      ).toEqual({
        trust: 'pinned',
        cluster,
        genesisHash: hash,
      });
  });

  test('the service’s own chain (same genesis hash as its dev RPC) is trusted, unless the front end says no', () => {
    expect(
      decideTrust({ rpcGenesisHash: LOCAL, serviceGenesisHash: LOCAL, trustEmbeddedService: true }),
    ).toMatchObject({ trust: 'embedded-service', cluster: 'embedded' });
    expect(
      decideTrust({ rpcGenesisHash: LOCAL, serviceGenesisHash: LOCAL, trustEmbeddedService: false }),
    ).toMatchObject({ trust: 'pinned', cluster: 'other' });
  });

  test('another chain than the service’s, or a service with no dev RPC, is pinned', () => {
    expect(
      decideTrust({
        rpcGenesisHash: LOCAL,
        serviceGenesisHash: CLUSTER_GENESIS_HASHES.devnet,
        trustEmbeddedService: true,
      }),
    ).toMatchObject({ trust: 'pinned', cluster: 'other' });
    expect(
      decideTrust({ rpcGenesisHash: LOCAL, serviceGenesisHash: null, trustEmbeddedService: true }),
    ).toMatchObject({
      trust: 'pinned',
      cluster: 'other',
    });
  });
});

describe('what a pinned client knows and lacks', () => {
  const mainnet = decideTrust({
    rpcGenesisHash: CLUSTER_GENESIS_HASHES.mainnet,
    serviceGenesisHash: null,
    trustEmbeddedService: true,
  });
  const local = decideTrust({ rpcGenesisHash: LOCAL, serviceGenesisHash: null, trustEmbeddedService: true });

  test('the canonical mints of the cluster, with the front end’s own over them', () => {
    expect(knownMints(mainnet, {}).USDC).toBe('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
    expect(knownMints(mainnet, { USDC: LOCAL }).USDC).toBe(LOCAL);
    expect(knownMints(local, {})).toEqual({});
    expect(CANONICAL_MINTS.devnet.USDC).toBe('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU');
  });

  test('program, maker and each asset’s mint must be pinned; on the embedded service’s chain nothing is', () => {
    const none = { programId: null, maker: null, mints: {} };
    expect(missingPins(local, none, ['USDC', 'SOL'])).toEqual([
      'programId',
      'maker',
      'mints.USDC',
      'mints.SOL',
    ]);
    expect(
      missingPins(mainnet, { programId: LOCAL, maker: LOCAL, mints: knownMints(mainnet, {}) }, [
        'USDC',
        'SOL',
      ]),
    ).toEqual([]);
    expect(
      missingPins(mainnet, { programId: LOCAL, maker: LOCAL, mints: knownMints(mainnet, {}) }, ['WIF']),
    ).toEqual(['mints.WIF']);
    const embedded = decideTrust({
      rpcGenesisHash: LOCAL,
      serviceGenesisHash: LOCAL,
      trustEmbeddedService: true,
    });
    expect(missingPins(embedded, none, ['USDC'])).toEqual([]);
  });
});
