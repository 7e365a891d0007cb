// readPriceUpdates reads price update accounts the same way on both chain kinds: in input order, null for
// anything that is not a receiver-owned PriceUpdateV2, with the clock of the same read; over JSON-RPC in
// getMultipleAccounts calls of at most 100 keys, the Clock sysvar riding along.

import { rmSync } from 'node:fs';
import { Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddedLedger } from '../../src/chain/embedded/index.ts';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import type { ChainPort } from '../../src/chain/port.ts';
import {
  encodePriceUpdateV2,
  type PriceUpdate,
  PYTH_RECEIVER_PROGRAM_ID,
  type PythPublisher,
  SPONSORED_FEEDS,
  sponsoredFeedSpecs,
} from '../../src/chain/pyth/index.ts';
import { createRpcChain } from '../../src/chain/rpc/index.ts';
import { type ChainServer, loopbackDevChain } from '../../src/dev-chain/index.ts';
import { tempDir, testChainServer, testEmbeddedChain } from './fixtures.ts';

const T0 = Date.parse('2026-11-23T12:00:00Z');
const pyth = { feeds: sponsoredFeedSpecs(), seed: 'read', intervalMs: 0 };
const SPONSORED = Object.values(SPONSORED_FEEDS).map((f) => new PublicKey(f.account));

interface Side {
  chain: ChainPort;
  ledger: EmbeddedLedger;
  publisher: PythPublisher;
  server?: ChainServer;
  advanceClock(seconds: number): Promise<void>;
  close(): Promise<void>;
}

async function embeddedSide(): Promise<Side> {
  const dataDir = tempDir('pyth-read');
  const chain = testEmbeddedChain(dataDir, Keypair.generate(), { clock: () => T0, pyth });
  if (!chain.pyth) throw new Error('no publisher');
  return {
    chain,
    ledger: chain.ledger,
    publisher: chain.pyth,
    advanceClock: (seconds) => chain.advanceClock(seconds),
    close: async () => {
      await chain.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function rpcSide(): Promise<Side> {
  const dataDir = tempDir('pyth-read-rpc');
  const { server, keypairPath } = await testChainServer(dataDir, Keypair.generate(), {
    clock: () => T0,
    pyth,
  });
  if (!server.pyth) throw new Error('no publisher');
  const chain = createRpcChain({
    url: server.url,
    programId: DEFAULT_HTLC_PROGRAM_ID,
    makerKeypairPath: keypairPath,
  });
  return {
    chain,
    ledger: server.ledger,
    publisher: server.pyth,
    server,
    advanceClock: (seconds) => loopbackDevChain(server.url).advanceClock(seconds),
    close: async () => {
      await chain.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const plain = (u: PriceUpdate | null) =>
  u === null ? null : { ...u, writeAuthority: u.writeAuthority.toBase58() };

describe.each([
  ['embedded', embeddedSide],
  ['rpc', rpcSide],
] as const)('readPriceUpdates on the %s chain', (_name, open) => {
  let side: Side;
  const foreign = Keypair.generate().publicKey;
  const garbage = Keypair.generate().publicKey;
  const missing = Keypair.generate().publicKey;
  beforeAll(async () => {
    side = await open();
    // A valid PriceUpdateV2 owned by someone else, and receiver-owned bytes that are not one.
    const copy = side.ledger.getAccount(SPONSORED_FEEDS.SOL.account)?.data ?? new Uint8Array();
    side.ledger.placeAccount(foreign, SystemProgram.programId, copy);
    side.ledger.placeAccount(garbage, PYTH_RECEIVER_PROGRAM_ID, new Uint8Array(134).fill(7));
  });
  afterAll(async () => {
    await side?.close();
  });

  it('answers the published updates in input order, with the chain clock of the read', async () => {
    const { updates, clockUnix } = await side.chain.readPriceUpdates([...SPONSORED].reverse(), 'confirmed');
    expect(clockUnix).toBe(Number(await side.chain.now()));
    const expected = side.publisher.symbols.map((s) => side.publisher.latest(s)).reverse();
    expect(updates.map(plain)).toEqual(expected.map(plain));
    expect(updates.map((u) => u?.feedId)).toEqual(
      Object.values(SPONSORED_FEEDS)
        .map((f) => f.feedId)
        .reverse(),
    );
  });

  it('is null for a missing account, one the receiver does not own, and receiver bytes that do not decode', async () => {
    const { updates } = await side.chain.readPriceUpdates(
      [missing, SPONSORED[0] as PublicKey, foreign, garbage],
      'finalized',
    );
    expect(updates[0]).toBeNull();
    expect(updates[1]?.feedId).toBe(SPONSORED_FEEDS.SOL.feedId);
    expect(updates[2]).toBeNull();
    expect(updates[3]).toBeNull();
  });

  it('reads a stale feed as the account left it: its age is the chain clock minus its publish time', async () => {
    side.publisher.stale('BONK');
    await side.advanceClock(90);
    side.publisher.publishNow();
    const bonk = new PublicKey(SPONSORED_FEEDS.BONK.account);
    const sol = new PublicKey(SPONSORED_FEEDS.SOL.account);
    const { updates, clockUnix } = await side.chain.readPriceUpdates([bonk, sol], 'confirmed');
    expect(BigInt(clockUnix) - (updates[0]?.publishTime ?? 0n)).toBe(90n);
    expect(BigInt(clockUnix) - (updates[1]?.publishTime ?? 0n)).toBe(0n);
    side.publisher.resume('BONK');
  });

  it('reads any number of accounts, 250 of them included, in input order', async () => {
    const keys = Array.from(
      { length: 250 },
      (_, i) => (i % 7 === 0 ? SPONSORED[i % 5] : missing) as PublicKey,
    );
    const { updates } = await side.chain.readPriceUpdates(keys, 'confirmed');
    expect(updates).toHaveLength(250);
    updates.forEach((u, i) => {
      if (i % 7 === 0) expect(u?.writeAuthority.toBase58()).toBe(keys[i]?.toBase58());
      else expect(u).toBeNull();
    });
  });
});

describe('readPriceUpdates over JSON-RPC', () => {
  let side: Side;
  beforeAll(async () => {
    side = await rpcSide();
  });
  afterAll(async () => {
    await side?.close();
  });

  const callsFor = async (n: number) => {
    const server = side.server as ChainServer;
    const before = server.stats().http.getMultipleAccounts ?? 0;
    const keys = Array.from({ length: n }, (_, i) => SPONSORED[i % 5] as PublicKey);
    const { updates } = await side.chain.readPriceUpdates(keys, 'confirmed');
    expect(updates.every((u) => u !== null)).toBe(true);
    return (server.stats().http.getMultipleAccounts ?? 0) - before;
  };

  it('asks getMultipleAccounts for at most 100 keys a call, the Clock riding in the last one', async () => {
    expect(await callsFor(5)).toBe(1);
    expect(await callsFor(99)).toBe(1);
    expect(await callsFor(100)).toBe(2);
    expect(await callsFor(250)).toBe(3);
  });

  it('the loopback dev_pyth controls the same publisher: a jump shows in the next read', async () => {
    const dev = loopbackDevChain((side.server as ChainServer).url);
    const sol = new PublicKey(SPONSORED_FEEDS.SOL.account);
    const before = (await side.chain.readPriceUpdates([sol], 'confirmed')).updates[0]?.price ?? 0n;
    const status = await dev.pyth('jump', 'SOL', 500);
    expect(status.find((f) => f.symbol === 'SOL')).toMatchObject({
      mode: 'live',
      price: String((before * 10_500n) / 10_000n),
    });
    expect((await side.chain.readPriceUpdates([sol], 'confirmed')).updates[0]?.price).toBe(
      (before * 10_500n) / 10_000n,
    );
    await expect(dev.pyth('freeze', 'DOGE')).rejects.toThrow(/DOGE/);
  });
});

it('encodes what the rpc chain decodes: a hand-placed update reads back field for field', async () => {
  const side = await rpcSide();
  try {
    const address = Keypair.generate().publicKey;
    const update: PriceUpdate = {
      writeAuthority: address,
      verificationLevel: { kind: 'partial', numSignatures: 13 },
      feedId: SPONSORED_FEEDS.JUP.feedId,
      price: -42n,
      conf: 3n,
      exponent: -5,
      publishTime: 1_700_000_000n,
      prevPublishTime: 1_699_999_999n,
      emaPrice: 41n,
      emaConf: 2n,
      postedSlot: 99n,
    };
    side.ledger.placeAccount(address, PYTH_RECEIVER_PROGRAM_ID, encodePriceUpdateV2(update));
    const { updates } = await side.chain.readPriceUpdates([address], 'confirmed');
    expect(plain(updates[0] ?? null)).toEqual(plain(update));
  } finally {
    await side.close();
  }
});
