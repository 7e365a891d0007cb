// What the embedded chain carries from genesis for what is built on it (the venue is one): an extension's
// programs are deployed with the chain, it starts on an open ledger once the Pyth publisher has published,
// and it closes with the chain while the ledger is still open. One that fails to start undoes the chain's
// creation: those started before it are closed and the ledger is released (its store is locked while open),
// so the data dir opens again.

import { rmSync } from 'node:fs';
import { Keypair, type PublicKey } from '@solana/web3.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { GenesisContext, GenesisExtension } from '../../src/chain/embedded/extension.ts';
import { createEmbeddedChain } from '../../src/chain/embedded/index.ts';
import { loadHtlcProgram } from '../../src/chain/htlc/index.ts';
import { sponsoredFeedSpecs } from '../../src/chain/pyth/publisher.ts';
import { INVENTORY, MINTS, tempDir } from './fixtures.ts';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop() as string, { recursive: true, force: true });
});
const open = (
  dataDir: string,
  maker: Keypair,
  more: Partial<Parameters<typeof createEmbeddedChain>[0]> = {},
) => createEmbeddedChain({ dataDir, makerKeypair: maker, mints: MINTS, makerInventory: INVENTORY, ...more });
const dir = (label: string) => {
  const d = tempDir(label);
  dirs.push(d);
  return d;
};

/**
 * An extension that writes down what it saw; `fail` makes its start throw. It reads the ledger's slot at start
 * and close (the ledger must be open then) but logs only that it could: the embedded chain's slot follows wall
 * time, and on a loaded machine a start can come a slot after genesis.
 */
const slotRead = (chain: GenesisContext) => (chain.ledger.slot() >= 0 ? 'a slot' : 'no slot');

function recorder(name: string, log: string[], options: { programId?: PublicKey; fail?: boolean } = {}) {
  let seen: GenesisContext | null = null;
  const extension: GenesisExtension = {
    programs: options.programId ? [{ programId: options.programId, program: loadHtlcProgram() }] : [],
    start(chain) {
      if (options.fail) throw new Error(`${name} refused to start`);
      seen = chain;
      const published = chain.pyth?.latest('SOL') ?? null;
      log.push(`${name} start at ${slotRead(chain)}, SOL ${published ? 'published' : 'unpublished'}`);
    },
    async close() {
      // The ledger is still open: an extension may read or write it while it stops.
      log.push(`${name} close at ${seen ? slotRead(seen) : 'never started'}`);
    },
  };
  return extension;
}

describe('genesis extensions of the embedded chain', () => {
  it('deploys their programs, starts them in order once the publisher has published, and closes them last first before the ledger', async () => {
    const log: string[] = [];
    const programId = Keypair.generate().publicKey;
    const chain = open(dir('extensions'), Keypair.generate(), {
      pyth: { feeds: sponsoredFeedSpecs(['SOL']), seed: 1, intervalMs: 0 },
      extensions: [recorder('first', log, { programId }), recorder('second', log)],
    });
    expect(chain.ledger.getAccount(programId)?.executable).toBe(true);
    expect(log).toEqual(['first start at a slot, SOL published', 'second start at a slot, SOL published']);
    await chain.close();
    expect(log.slice(2)).toEqual(['second close at a slot', 'first close at a slot']);
  });

  it('a chain without extensions deploys no program of theirs', async () => {
    const programId = Keypair.generate().publicKey;
    const chain = open(dir('no-extensions'), Keypair.generate());
    try {
      expect(chain.ledger.getAccount(programId)).toBeNull();
    } finally {
      await chain.close();
    }
  });

  it('one that fails to start undoes the creation: the started ones close, the ledger is released', async () => {
    const log: string[] = [];
    const dataDir = dir('failing');
    const maker = Keypair.generate();
    expect(() =>
      open(dataDir, maker, {
        extensions: [recorder('first', log), recorder('broken', log, { fail: true }), recorder('third', log)],
      }),
    ).toThrow('broken refused to start');
    await Promise.resolve();
    expect(log).toEqual(['first start at a slot, SOL unpublished', 'first close at a slot']);
    const again = open(dataDir, maker);
    expect(again.ledger.slot()).toBe(0);
    await again.close();
  });
});
