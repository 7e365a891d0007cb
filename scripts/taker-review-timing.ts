// `npx tsx scripts/taker-review-timing.ts [swaps]`: what checking the lock before the wallet signs it adds to a
// swap. The service on the embedded defaults (a fresh DATA_DIR), a taker with the client package reading through
// the service's dev RPC; for each swap a quote and a settlement start, then `reviewLock` timed: the agreement
// (one read of the chain's clock), the pure checks of the bytes, the simulation (one account read, one
// simulateTransaction) and the check of its effects. The pure parts are timed again on their own. Figures,
// not a verdict: the RPC is on loopback here; on a cluster add three round trips to the taker's RPC.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkLockSimulation,
  checkLockTransaction,
  cryptoKeyWallet,
  generateWalletKeys,
  MemorySwapStore,
  TakerClient,
} from '../packages/taker/src/index.ts';
import { createService } from '../src/service.ts';

const swaps = Number(process.argv[2] ?? 30);
const dataDir = mkdtempSync(join(tmpdir(), 'rfq-review-timing-'));
const service = await createService({ dataDir });
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
try {
  const base = await service.app.listen({ host: '127.0.0.1', port: 0 });
  const client = new TakerClient({
    serviceUrl: base,
    rpcUrl: `${base}/v1/dev/rpc`,
    store: new MemorySwapStore(),
  });
  const keys = await generateWalletKeys();
  if (!keys) throw new Error('this Node has no WebCrypto Ed25519');
  const wallet = await cryptoKeyWallet(keys);
  await client.service.airdrop({ wallet: wallet.address, asset: 'USDC', amount: '100000' });

  const reviewMs: number[] = [];
  const pureUs: number[] = [];
  for (let i = 0; i < swaps + 3; i++) {
    const quote = await client.quote({
      input_asset: 'USDC',
      output_asset: 'USDT',
      amount: '10',
      taker_wallet: wallet.address,
    });
    if (quote.status !== 'accepted') throw new Error(`quote rejected: ${JSON.stringify(quote.reasons)}`);
    const record = await client.start(quote, { address: wallet.address });
    const started = performance.now();
    const review = await client.reviewLock(record);
    const took = performance.now() - started;
    // The pure part alone: decoding and every check of the bytes, and the check of the simulated effects.
    const rounds = 200;
    const pureStart = performance.now();
    for (let r = 0; r < rounds; r++) {
      checkLockTransaction(review.transactionBase64, review.agreement);
      checkLockSimulation(review.agreement, {
        err: null,
        logs: review.simulation.logs,
        unitsConsumed: review.simulation.unitsConsumed,
        baseFeeLamports: review.check.lock?.baseFeeLamports ?? 0n,
        priorityFeeLamports: review.check.lock?.priorityFeeLamports ?? 0n,
        accounts: [],
      });
    }
    const pure = ((performance.now() - pureStart) * 1000) / rounds;
    await client.abandon(record);
    if (i < 3) continue; // warm-up
    reviewMs.push(took);
    pureUs.push(pure);
  }
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  const us = (v: number) => `${v.toFixed(0)} µs`;
  process.stdout.write(
    `${swaps} locks reviewed (Node ${process.version}, dev RPC on loopback):\n` +
      `  reviewLock (agreement, checks, simulation, effects): median ${ms(quantile(reviewMs, 0.5))}, p90 ${ms(quantile(reviewMs, 0.9))}\n` +
      `  of which the pure checks (decode + every check + effects): median ${us(quantile(pureUs, 0.5))}, p90 ${us(quantile(pureUs, 0.9))}\n` +
      '  RPC calls added per swap: 3 (the clock, the watched accounts, simulateTransaction)\n',
  );
} finally {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}
