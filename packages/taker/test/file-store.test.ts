// The Node store: a record survives the store object (a new one on the same directory reads it), is
// replaced whole, is listed newest first, and leaves no temp file behind; a key that is not a secret_hash is
// refused before it can name a path.
import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { tempDir } from '../../../test/support/service.ts';
import { newSecret, type SwapRecord } from '../src/index.ts';
import { FileSwapStore } from '../src/node.ts';

const dirs: { remove(): void }[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

async function record(createdAt: string): Promise<SwapRecord> {
  const secret = await newSecret();
  const view = { asset: 'USDC', amount: '1.000000', amount_raw: '1000000', decimals: 6, mint: 'm' };
  return {
    ...secret,
    wallet: { address: 'w' },
    quoteId: 'q',
    input: view,
    output: view,
    spreadBps: 1,
    createdAt,
    tradeId: null,
    lockIssuedAt: null,
    lockTransaction: null,
    status: null,
    substate: null,
    trade: null,
    lastSeq: 0,
    revealed: null,
  };
}

describe('FileSwapStore', () => {
  test('a record put by one store is read by another on the same directory, replaced whole, newest first', async () => {
    const dir = tempDir('rfq-taker-store-');
    dirs.push(dir);
    const first = new FileSwapStore(`${dir.path}/swaps`);
    const older = await record('2026-01-01T00:00:00.000Z');
    const newer = await record('2026-01-02T00:00:00.000Z');
    await first.put(older);
    await first.put(newer);
    await first.put({ ...older, tradeId: 't', lastSeq: 3 });

    const second = new FileSwapStore(`${dir.path}/swaps`);
    expect(await second.get(older.secretHash)).toMatchObject({
      preimage: older.preimage,
      tradeId: 't',
      lastSeq: 3,
    });
    expect((await second.list()).map((r) => r.secretHash)).toEqual([newer.secretHash, older.secretHash]);
    expect(readdirSync(`${dir.path}/swaps`).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    await second.delete(newer.secretHash);
    expect(await first.get(newer.secretHash)).toBeUndefined();
    expect(await new FileSwapStore(`${dir.path}/none`).list()).toEqual([]);
  });

  test('refuses a key that is not a 64-hex secret_hash', async () => {
    const store = new FileSwapStore('/nonexistent');
    await expect(store.get('../../etc/passwd')).rejects.toThrow(/secret_hash/);
  });
});
