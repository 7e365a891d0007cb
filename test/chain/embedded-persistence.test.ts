// The embedded chain keeps its state under its data dir like a cluster keeps its ledger: a restart,
// or a kill -9, finds every account, escrow, clock offset and signature it had acknowledged.

import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { createEmbeddedChain } from '../../src/chain/embedded/index.ts';
import { makerEscrowAddress, takerEscrowAddress } from '../../src/chain/htlc/index.ts';
import { embeddedHarness, INVENTORY, MINTS, SOL, secret, tempDir, USDC, walletSign } from './fixtures.ts';

describe('embedded chain persistence', () => {
  it('reopens on the same data dir with balances, escrows, clock and signatures intact', async () => {
    const dataDir = tempDir('persist');
    const maker = Keypair.generate();
    const first = await embeddedHarness(dataDir, maker);
    const chain = first.chain;
    const taker = Keypair.generate();
    await first.dev.airdrop({ wallet: taker.publicKey, mint: USDC, amount: 70n * 10n ** 6n });
    const s = secret();
    const now = await chain.now();
    const unsigned = await chain.buildTakerLock({
      taker: taker.publicKey,
      inputMint: USDC,
      outputMint: SOL,
      amount: 70n * 10n ** 6n,
      hashlock: s.hashlock,
      expiry: now + 900n,
      lockDeadline: now + 60n,
    });
    const { signature: lockSig } = await chain.submitSigned(walletSign(unsigned, taker));
    const [takerEscrow] = takerEscrowAddress(chain.programId, taker.publicKey, s.hashlock);
    const makerLock = await chain.signMakerLock({
      takerEscrow,
      taker: taker.publicKey,
      inputMint: USDC,
      inputAmount: 70n * 10n ** 6n,
      takerExpiry: now + 900n,
      outputMint: SOL,
      amount: 10n ** 9n,
      hashlock: s.hashlock,
      expiry: now + 600n,
      lockDeadline: now + 60n,
    });
    await chain.send(makerLock);
    await first.dev.advanceClock(20);
    // Signed before the restart, sent after it: its blockhash must still be valid then.
    const redeemFor = await chain.signRedeemFor({
      takerEscrow,
      taker: taker.publicKey,
      outputMint: SOL,
      preimage: s.preimage,
    });
    const before = {
      now: await chain.now(),
      height: await chain.blockHeight(),
      makerUsdc: await chain.tokenBalance(maker.publicKey, USDC),
      makerSol: await chain.tokenBalance(maker.publicKey, SOL),
      makerLamports: await chain.solBalance(maker.publicKey),
      takerLamports: await chain.solBalance(taker.publicKey),
      escrow: await chain.readEscrow(takerEscrow, 'finalized'),
      lockState: await chain.signatureState(lockSig),
      history: await chain.signaturesForAddress(takerEscrow, 'finalized'),
    };
    await chain.close();

    const reopened = createEmbeddedChain({
      dataDir,
      makerKeypair: maker,
      mints: MINTS,
      makerInventory: INVENTORY,
    });
    try {
      const skew = (await reopened.now()) - before.now;
      expect(skew >= 0n && skew <= 2n).toBe(true);
      expect(await reopened.blockHeight()).toBeGreaterThanOrEqual(before.height);
      // Inventory is funded once per data dir, not at every start.
      expect(await reopened.tokenBalance(maker.publicKey, USDC)).toBe(before.makerUsdc);
      expect(await reopened.tokenBalance(maker.publicKey, SOL)).toBe(before.makerSol);
      expect(await reopened.solBalance(maker.publicKey)).toBe(before.makerLamports);
      expect(await reopened.solBalance(taker.publicKey)).toBe(before.takerLamports);
      expect(await reopened.readEscrow(takerEscrow, 'finalized')).toEqual(before.escrow);
      expect(await reopened.signatureState(lockSig)).toEqual(before.lockState);
      expect(await reopened.signatureState(makerLock.signature)).toMatchObject({
        status: 'finalized',
        err: null,
      });
      expect(await reopened.signaturesForAddress(takerEscrow, 'finalized')).toEqual(before.history);

      await reopened.send(redeemFor);
      expect(await reopened.tokenBalance(taker.publicKey, SOL)).toBe(10n ** 9n);
      const preimage = (
        await reopened.readEscrow(makerEscrowAddress(reopened.programId, takerEscrow)[0], 'finalized')
      )?.preimage as Uint8Array;
      await reopened.send(await reopened.signMakerRedeem({ takerEscrow, inputMint: USDC, preimage }));
      expect(await reopened.tokenBalance(maker.publicKey, USDC)).toBe(before.makerUsdc + 70n * 10n ** 6n);
    } finally {
      await reopened.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a second opener of the same data dir while the first runs', async () => {
    const dataDir = tempDir('exclusive');
    const h = await embeddedHarness(dataDir);
    try {
      expect(() =>
        createEmbeddedChain({ dataDir, makerKeypair: h.maker, mints: MINTS, makerInventory: INVENTORY }),
      ).toThrow(/locked/);
      expect((await h.chain.health()).ok).toBe(true);
    } finally {
      await h.close();
    }
  });

  it('loses no acknowledged transaction when the process is killed with SIGKILL', async () => {
    const dataDir = tempDir('kill9');
    const maker = Keypair.generate();
    const wallet = Keypair.generate().publicKey;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('./crash-child.ts', import.meta.url)),
        dataDir,
        JSON.stringify(Array.from(maker.secretKey)),
        wallet.toBase58(),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const acknowledged: { i: number; signature: string }[] = [];
    await new Promise<void>((resolve, reject) => {
      let buffer = '';
      child.on('error', reject);
      child.on('exit', () => resolve());
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split('\n');
        buffer = lines.pop() ?? '';
        for (const line of lines) acknowledged.push(JSON.parse(line));
        if (acknowledged.length >= 25 && !child.killed) child.kill('SIGKILL');
      });
    });
    expect(acknowledged.length).toBeGreaterThanOrEqual(25);

    const chain = createEmbeddedChain({
      dataDir,
      makerKeypair: maker,
      mints: MINTS,
      makerInventory: INVENTORY,
    });
    try {
      for (const { signature } of acknowledged) {
        expect((await chain.signatureState(signature)).status).toBe('finalized');
      }
      // Airdrop i minted i units: at least everything acknowledged is there, and the history is gap-free.
      const balance = await chain.tokenBalance(wallet, USDC);
      const last = acknowledged.at(-1)?.i ?? 0;
      const expected = (n: number) => BigInt((n * (n + 1)) / 2);
      expect(balance === expected(last) || balance === expected(last + 1)).toBe(true);
    } finally {
      await chain.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
