// The loopback chain keeping real time, met the way a client meets a cluster: through a web3.js Connection
// (HTTP and its websocket), directly and through the fault proxy. Slots of 200 ms, confirmed 2 slots and
// finalized 20 slots (4 s: a read that a loaded machine delays still lands inside the lag) behind the tip:
// each read and subscription sees a transaction at its commitment.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Commitment, Connection, Keypair, type SignatureStatus } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePortPair } from '../../scripts/net.ts';
import { ata } from '../../src/chain/token.ts';
import { type FaultProxy, startFaultProxy } from '../../src/dev-chain/faults/index.ts';
import { type ChainServer, loopbackDevChain } from '../../src/dev-chain/index.ts';
import { tempDir, testChainServer, USDC } from '../chain/fixtures.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TIMING = { slotMs: 200, confirmationSlots: 2, finalizationSlots: 20 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('not reached in time');
    await sleep(20);
  }
}

describe('the loopback chain keeping real time', () => {
  let dir: string;
  let server: ChainServer;
  let proxy: FaultProxy;
  let connection: Connection;
  beforeAll(async () => {
    dir = tempDir('timed-server');
    ({ server } = await testChainServer(dir, Keypair.generate(), { timing: TIMING }));
    proxy = await startFaultProxy({
      target: server.url,
      wsTarget: server.wsUrl,
      port: 0,
      profile: 'none',
      changes: { latencyRate: 1, latencyMinMs: 20, latencyMaxMs: 60 },
      seed: 5,
    });
    connection = new Connection(server.url, { commitment: 'processed', wsEndpoint: server.wsUrl });
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const airdrop = async (lamports = 1_000_000) => {
    const wallet = Keypair.generate().publicKey;
    return { wallet, signature: await connection.requestAirdrop(wallet, lamports) };
  };

  it('reports a signature processed, then confirmed with its confirmations, then finalized', async () => {
    const { signature } = await airdrop();
    const seen: SignatureStatus[] = [];
    await eventually(async () => {
      const { value } = await connection.getSignatureStatuses([signature]);
      const status = value[0] as SignatureStatus;
      if (seen.at(-1)?.confirmationStatus !== status.confirmationStatus) seen.push(status);
      return status.confirmationStatus === 'finalized' ? true : undefined;
    });
    expect(seen.map((s) => s.confirmationStatus)).toEqual(['processed', 'confirmed', 'finalized']);
    expect(seen[0]?.confirmations).toBeLessThan(TIMING.confirmationSlots);
    expect(seen[1]?.confirmations).toBeGreaterThanOrEqual(TIMING.confirmationSlots);
    expect(seen[2]?.confirmations).toBeNull();
  });

  it('reads balances and token accounts at each commitment, the finalized ones last', async () => {
    const { wallet, signature } = await airdrop(5_000_000);
    const balance = (commitment: Commitment) => connection.getBalance(wallet, commitment);
    expect(await balance('processed')).toBe(5_000_000);
    expect(await balance('finalized')).toBe(0);
    await connection.confirmTransaction(signature, 'confirmed');
    expect(await balance('confirmed')).toBe(5_000_000);
    expect(await balance('finalized')).toBe(0);
    await eventually(async () => ((await balance('finalized')) === 5_000_000 ? true : undefined));

    const taker = Keypair.generate().publicKey;
    await loopbackDevChain(server.url).airdrop({ wallet: taker, mint: USDC, amount: 7_000_000n });
    const tokens = (commitment: Commitment) =>
      connection.getTokenAccountBalance(ata(taker, USDC), commitment).then(
        (r) => r.value.amount,
        () => 'none',
      );
    expect(await tokens('processed')).toBe('7000000');
    expect(await tokens('finalized')).toBe('none');
    await eventually(async () => ((await tokens('finalized')) === '7000000' ? true : undefined));
  });

  it('answers slots, block heights and blockhashes behind the tip by each commitment’s lag', async () => {
    // Read one after the other, the most lagging first: however long each read takes on a loaded machine,
    // a later read of the tip sees the tip at least where the earlier reads saw it, so the lags show in full.
    const finalized = await connection.getSlot('finalized');
    const confirmed = await connection.getSlot('confirmed');
    const processed = await connection.getSlot('processed');
    expect(processed - confirmed).toBeGreaterThanOrEqual(TIMING.confirmationSlots - 1);
    expect(processed - finalized).toBeGreaterThanOrEqual(TIMING.finalizationSlots - 1);
    expect(await connection.getBlockHeight('finalized')).toBeLessThan(await connection.getBlockHeight());
    const fresh = await connection.getLatestBlockhash('processed');
    expect((await connection.isBlockhashValid(fresh.blockhash, { commitment: 'processed' })).value).toBe(
      true,
    );
    expect((await connection.isBlockhashValid(fresh.blockhash, { commitment: 'finalized' })).value).toBe(
      false,
    );
    const final = await connection.getLatestBlockhash('finalized');
    expect(final.lastValidBlockHeight).toBeLessThan(fresh.lastValidBlockHeight);
  });

  it('notifies account and signature subscriptions at their commitment', async () => {
    const wallet = Keypair.generate().publicKey;
    const heard: string[] = [];
    const ids = [
      connection.onAccountChange(wallet, () => heard.push('account confirmed'), { commitment: 'confirmed' }),
      connection.onAccountChange(wallet, () => heard.push('account finalized'), { commitment: 'finalized' }),
    ];
    await sleep(200);
    const signature = await connection.requestAirdrop(wallet, 3_000_000);
    ids.push(connection.onSignature(signature, () => heard.push('signature finalized'), 'finalized'));
    await eventually(() => (heard.length === 3 ? true : undefined));
    expect(heard[0]).toBe('account confirmed');
    expect(heard.slice(1).sort()).toEqual(['account finalized', 'signature finalized']);
    for (const id of ids.slice(0, 2)) await connection.removeAccountChangeListener(id);
  });

  it('rolls a confirmed slot back over dev_rollback: a fork its subscribers hear of', async () => {
    const dev = loopbackDevChain(server.url);
    const wallet = Keypair.generate().publicKey;
    const restored = new Promise<number>((resolve) => {
      let seen = 0;
      connection.onAccountChange(
        wallet,
        (account) => {
          // The airdrop first, then the fork taking it back.
          if (++seen === 2) resolve(account.lamports);
        },
        { commitment: 'confirmed' },
      );
    });
    await sleep(200);
    const signature = await connection.requestAirdrop(wallet, 4_000_000);
    await connection.confirmTransaction(signature, 'confirmed');
    const { slot } = (await connection.getSignatureStatuses([signature])).value[0] as SignatureStatus;
    expect((await dev.rollback(slot)).dropped).toEqual([signature]);
    expect((await connection.getSignatureStatuses([signature])).value[0]).toBeNull();
    expect(await connection.getBalance(wallet, 'confirmed')).toBe(0);
    expect(await restored).toBe(0);
    await eventually(async () => ((await connection.getSlot('finalized')) > slot ? true : undefined));
    await expect(dev.rollback(slot)).rejects.toThrow(/finalized up to/);
  });

  it('keeps its commitments behind the fault proxy: a slow cluster that also keeps real time', async () => {
    const through = new Connection(proxy.url, {
      commitment: 'confirmed',
      wsEndpoint: proxy.wsUrl,
      disableRetryOnRateLimit: true,
    });
    const wallet = Keypair.generate().publicKey;
    const signature = await through.requestAirdrop(wallet, 2_000_000);
    const finalized = new Promise<void>((resolve) => {
      through.onSignature(signature, () => resolve(), 'finalized');
    });
    expect(await through.getBalance(wallet, 'processed')).toBe(2_000_000);
    expect(await through.getBalance(wallet, 'finalized')).toBe(0);
    await finalized;
    expect(await through.getBalance(wallet, 'finalized')).toBe(2_000_000);
    expect(Object.keys(proxy.control.stats().faults.latency ?? {})).toContain('getBalance');
  });
});

describe('npm run chain --slot-ms', () => {
  it('comes up keeping real time, behind the fault proxy when asked', async () => {
    const dataDir = tempDir('chain-timed');
    const port = await freePortPair();
    const args = ['--slot-ms', '100', '--finalization-slots', '8', '--faults', 'mild', '--no-pyth'];
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/dev-chain/main.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, CHAIN_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += String(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        output += String(chunk);
      });
      const line = await eventually(
        () => output.split('\n').find((l) => l.includes('loopback chain listening')),
        40_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}\n${output}`);
      });
      const listening = JSON.parse(line) as { url: string; upstreamUrl: string; timing: unknown };
      expect(listening.timing).toEqual({ slotMs: 100, confirmationSlots: 2, finalizationSlots: 8 });
      const upstream = new Connection(listening.upstreamUrl);
      await eventually(async () => ((await upstream.getSlot('processed')) > 10 ? true : undefined));
      // The finalized slot first, as above: the tip read after it is at least as far on.
      const final = await upstream.getSlot('finalized');
      const tip = await upstream.getSlot('processed');
      expect(tip - final).toBeGreaterThanOrEqual(7);
      // Through the proxy's mild faults the same lag shows, once a read gets through.
      const through = new Connection(listening.url, { disableRetryOnRateLimit: true });
      const lag = await eventually(async () => {
        try {
          const finalThrough = await through.getSlot('finalized');
          return (await through.getSlot('processed')) - finalThrough;
        } catch {
          return undefined;
        }
      });
      expect(lag).toBeGreaterThanOrEqual(6);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
