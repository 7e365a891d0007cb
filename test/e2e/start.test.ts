// Start-up checks against the chain: only classic SPL Token mints with the configured decimals trade.
import type { PublicKey } from '@solana/web3.js';
import { afterEach, expect, test } from 'vitest';
import { type ChainPort, classifyMint, TOKEN_2022_PROGRAM_ID } from '../../src/chain/index.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { createService } from '../../src/service.ts';
import { defaultConfigDocument, tempDir } from '../support/service.ts';

const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const dirs: { remove: () => void }[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

/** The real embedded chain, except that one mint reads as the given account (as a cluster could show it). */
function mintAs(chain: ChainPort, mint: string, owner: string, data: Uint8Array): ChainPort {
  return new Proxy(chain, {
    get(target, key, receiver) {
      if (key === 'readMint') {
        return async (address: PublicKey) =>
          address.toBase58() === mint ? classifyMint(owner, data) : target.readMint(address);
      }
      const value = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

test('a Token-2022 mint stops the service at start, naming the asset', async () => {
  const dir = tempDir();
  dirs.push(dir);
  const token2022 = new Uint8Array(82 + 100);
  token2022[44] = 5;
  await expect(
    createService({
      dataDir: dir.path,
      config: resolveConfig(defaultConfigDocument()),
      wrapChain: (chain) => mintAs(chain, BONK, TOKEN_2022_PROGRAM_ID.toBase58(), token2022),
    }),
  ).rejects.toThrow(/config assets\[3\]\.mint: BONK is a token-2022 mint/);
});

test('a mint whose decimals differ from the config stops the service at start', async () => {
  const dir = tempDir();
  dirs.push(dir);
  const doc = defaultConfigDocument();
  (doc.assets[3] as { decimals: number }).decimals = 5;
  const classic = new Uint8Array(82);
  classic[44] = 6;
  classic[45] = 1; // initialized
  await expect(
    createService({
      dataDir: dir.path,
      config: resolveConfig(doc),
      wrapChain: (chain) => mintAs(chain, BONK, 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', classic),
    }),
  ).rejects.toThrow(/config assets\[3\]\.decimals: the chain says 6/);
});
