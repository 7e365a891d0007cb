// The embedded chain's store opens a chain.sqlite written before token balances were kept: the column
// is added on open, older records say they kept none (null), newer ones carry them.

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import Database from 'better-sqlite3';
import { afterEach, expect, test } from 'vitest';
import { createEmbeddedChain } from '../../src/chain/embedded/index.ts';
import { INVENTORY, MINTS, tempDir, USDC } from './fixtures.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test('a chain.sqlite from before token balances opens, old records answering null, new ones the balances', async () => {
  const dataDir = tempDir('store');
  dirs.push(dataDir);
  const maker = Keypair.generate();
  const open = () =>
    createEmbeddedChain({ dataDir, makerKeypair: maker, mints: MINTS, makerInventory: INVENTORY });

  const first = open();
  const { signature: old } = await first.airdrop({
    wallet: Keypair.generate().publicKey,
    mint: USDC,
    amount: 5n,
  });
  await first.close();
  // Make it the file an older release wrote: no token_balances column.
  const db = new Database(join(dataDir, 'chain.sqlite'));
  db.exec('ALTER TABLE transactions DROP COLUMN token_balances');
  db.close();

  const chain = open();
  try {
    expect(await chain.getTransaction(old, 'finalized')).toMatchObject({
      signature: old,
      tokenBalances: null,
    });
    const wallet = Keypair.generate();
    const { signature } = await chain.airdrop({ wallet: wallet.publicKey, mint: USDC, amount: 7n });
    expect((await chain.getTransaction(signature, 'finalized'))?.tokenBalances).toEqual([
      expect.objectContaining({
        mint: USDC.toBase58(),
        owner: wallet.publicKey.toBase58(),
        pre: 0n,
        post: 7n,
      }),
    ]);
  } finally {
    await chain.close();
  }
  // Opening again finds the column in place.
  await open().close();
});
