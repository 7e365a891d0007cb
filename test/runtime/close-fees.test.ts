// The trade's last effect closes its books: every maker transaction it recorded an intent for has its fee in
// the ledger, or is proved never to have landed. After a kill -9 the dead process may have recorded an intent
// it never sent: until the chain passes that transaction's last valid block height (a blockhash's life, a minute
// of blocks) it could still land, and the effect waits for that within its attempt as long as blocks go by,
// however long past a landing's timeout, instead of failing and backing off again and again.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import type { EmbeddedChain } from '../../src/chain/embedded/index.ts';
import { SLOT_MS } from '../../src/chain/embedded/ledger.ts';
import { chainEffects, type EffectHooks } from '../../src/runtime/effects.ts';
import { tempDir, testEmbeddedChain } from '../chain/fixtures.ts';

describe('closing the books of a trade', () => {
  let dir: string;
  let chain: EmbeddedChain;
  /** A chain whose clock stands still: no block goes by. */
  let stalled: EmbeddedChain;
  beforeAll(() => {
    dir = tempDir('close-fees');
    chain = testEmbeddedChain(join(dir, 'moving'));
    const frozenAt = Date.now();
    stalled = testEmbeddedChain(join(dir, 'stalled'), Keypair.generate(), { clock: () => frozenAt });
  });
  afterAll(async () => {
    await chain.close();
    await stalled.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** closeEscrows for a trade whose only unposted intent is `signature`, with no maker escrow left to close. */
  function closeBooks(
    intent: { signature: string; lastValidBlockHeight: number },
    landTimeoutMs: number,
    on: EmbeddedChain = chain,
  ) {
    const posted: string[] = [];
    const hooks = {
      barrier: async () => undefined,
      unpostedFees: async () => (posted.includes(intent.signature) ? [] : [intent]),
      postFee: async (_tradeId: string, signature: string) => {
        posted.push(signature);
      },
      chainTime: () => 0,
      landTimeoutMs,
    } as unknown as EffectHooks;
    const actor = createActor(chainEffects(on, hooks).closeEscrows, {
      input: { tradeId: 'trade', makerEscrow: Keypair.generate().publicKey.toBase58() },
    });
    actor.start();
    return { done: toPromise(actor), posted };
  }

  const neverSent = () => bs58.encode(Keypair.generate().secretKey);

  it('an intent never sent is waited for until the chain passes its last valid block height, however long past the landing timeout', async () => {
    const height = await chain.blockHeight();
    const began = Date.now();
    // Five blocks (2 s) to go, a landing timeout of a fraction of that: as after a kill -9, when the dead
    // run's transaction has up to a blockhash's life (a minute) left and a landing times out in seconds.
    const { done, posted } = closeBooks({ signature: neverSent(), lastValidBlockHeight: height + 5 }, 300);
    await expect(done).resolves.toBeNull();
    // It answered once the chain was past the transaction's last valid block height, and posted no fee.
    expect(await chain.blockHeight()).toBeGreaterThan(height + 5);
    expect(Date.now() - began).toBeGreaterThanOrEqual(4 * SLOT_MS);
    expect(posted).toEqual([]);
  });

  it('on a chain whose blocks stand still it fails the attempt after the landing timeout, saying why', async () => {
    const height = await stalled.blockHeight();
    const { done } = closeBooks({ signature: neverSent(), lastValidBlockHeight: height + 3 }, 600, stalled);
    await expect(done).rejects.toThrow(
      /may still land \(block height \d+ ≤ \d+\); the chain stayed at block height \d+ for 600 ms/,
    );
  });

  it('one already past its last valid block height is settled at once', async () => {
    const height = await chain.blockHeight();
    const began = Date.now();
    const { done, posted } = closeBooks({ signature: neverSent(), lastValidBlockHeight: height - 1 }, 10_000);
    await expect(done).resolves.toBeNull();
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(posted).toEqual([]);
  });
});
