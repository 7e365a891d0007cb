// Start-up checks against the chain: only classic SPL Token mints with the configured decimals trade, and a
// chain that does not answer at start leaves the service not ready and quoting nothing until every mint is
// checked (fail closed: no mint is ever skipped).
import type { PublicKey } from '@solana/web3.js';
import { afterEach, expect, test } from 'vitest';
import { type ChainPort, classifyMint, TOKEN_2022_PROGRAM_ID } from '../../src/chain/index.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { createService, type Service } from '../../src/service.ts';
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

/** The real embedded chain, except that mint reads fail (as an unreachable RPC node's) while `down` is set. */
function mintReadsDown(chain: ChainPort, state: { down: boolean; reads: string[] }): ChainPort {
  return new Proxy(chain, {
    get(target, key, receiver) {
      if (key === 'readMint') {
        return async (address: PublicKey) => {
          state.reads.push(address.toBase58());
          if (state.down) throw new Error('fetch failed: connect ECONNREFUSED');
          return target.readMint(address);
        };
      }
      const value = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const rfq = (service: Service) =>
  service.app.inject({
    method: 'POST',
    url: '/v1/rfq',
    payload: { input_asset: 'SOL', output_asset: 'USDC', amount: '1', taker_wallet: WALLET },
  });

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a chain unreachable at start fails closed: not ready and no quote until every mint is checked', async () => {
  const dir = tempDir();
  dirs.push(dir);
  const state = { down: true, reads: [] as string[] };
  const service = await createService({
    dataDir: dir.path,
    config: resolveConfig(defaultConfigDocument()),
    wrapChain: (chain) => mintReadsDown(chain, state),
  });
  try {
    const ready = await service.app.inject('/v1/health/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json().error.details).toContain('mints: not checked yet: the chain has not answered');
    const refused = await rfq(service);
    expect(refused.statusCode).toBe(503);
    expect(refused.json().error.code).toBe('chain_unavailable');
    expect(refused.headers['retry-after']).toBe('5');

    state.down = false;
    await until('every mint checked', async () =>
      (await service.app.inject('/v1/health/ready')).statusCode === 200 ? true : undefined,
    );
    // Every configured mint was read once it answered, none skipped.
    const mints = service.config.assets.list.map((asset) => asset.mint);
    expect(new Set(state.reads)).toEqual(new Set(mints));
    expect((await rfq(service)).json().status).toBe('accepted');
  } finally {
    await service.close();
  }
});

test('a mint found unfit once the chain answers is refused, not skipped: no quote, and the process is told', async () => {
  const dir = tempDir();
  dirs.push(dir);
  const token2022 = new Uint8Array(82 + 100);
  token2022[44] = 5;
  const state = { down: true, reads: [] as string[] };
  const refusals: string[] = [];
  const service = await createService({
    dataDir: dir.path,
    config: resolveConfig(defaultConfigDocument()),
    // SOL's read fails at start; BONK, later in the list, is a Token-2022 mint the old check never reached.
    wrapChain: (chain) =>
      mintReadsDown(mintAs(chain, BONK, TOKEN_2022_PROGRAM_ID.toBase58(), token2022), state),
    onMintRefused: (error) => refusals.push(error.message),
  });
  try {
    expect((await rfq(service)).statusCode).toBe(503);
    state.down = false;
    const refusal = await until('the refusal', async () => refusals[0]);
    expect(refusal).toMatch(/config assets\[3\]\.mint: BONK is a token-2022 mint/);
    const ready = await service.app.inject('/v1/health/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json().error.details).toContain('mints: a configured mint is unfit');
    expect((await rfq(service)).statusCode).toBe(503);
  } finally {
    await service.close();
  }
});
