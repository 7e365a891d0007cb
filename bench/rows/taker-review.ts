// Row 7: what the taker's check of the lock adds to a swap. The taker package (`@rfq-maker/taker`) drives whole
// swaps one at a time against the service in its own process, reading the chain through the service's dev RPC
// as a front end on the embedded chain does: quote, settlement start, then `reviewLock` — the lock decoded from
// its bytes, every check of it, its simulation on the taker's RPC and the check of the simulated effects —
// then the wallet signs, the maker locks, the client verifies the maker's escrow and redeems from the wallet.
// The review is timed inside each swap, the whole swap around it (quote → the taker's redeem landed, the
// output in its wallet): the baseline is the swap it belongs to, measured in the same run. The pure part
// (decode, checks, effects; no RPC) is timed again on its own in this process. Reported, not judged: the RPC
// is on loopback here; on a cluster add three round trips to the taker's RPC.
import { readFileSync } from 'node:fs';
import {
  checkLockSimulation,
  checkLockTransaction,
  cryptoKeyWallet,
  generateWalletKeys,
  type LockReview,
  MemorySwapStore,
  type SwapRecord,
  TakerClient,
  type TakerWallet,
  type Trade,
} from '@rfq-maker/taker';
import { DEFAULT_CONFIG_PATH } from '../../src/config/index.ts';
import { writeBenchConfig } from '../config.ts';
import type { BenchContext, Row } from '../context.ts';
import { type Line, ms, num } from '../report.ts';
import { startServiceProcess } from '../service.ts';

/** Swaps before the timed ones: the JIT and the service's caches warm. */
const WARM_UP = 3;
/** Rounds of the pure checks per swap, timed together. */
const PURE_ROUNDS = 100;

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

/** Resolves once the service says the maker locked (the taker may redeem), over the trade's stream. */
function makerLocked(client: TakerClient, record: SwapRecord): Promise<Trade> {
  return new Promise((resolve, reject) => {
    const follower = client.follow(record, {
      onTrade: (trade) => {
        if (trade.next_action?.type !== 'redeem') return;
        follower.stop();
        resolve(trade);
      },
      onError: (error) => {
        follower.stop();
        reject(error);
      },
    });
  });
}

async function run(ctx: BenchContext): Promise<Line[]> {
  const dataDir = ctx.dir('taker-review');
  // The lock's timings as shipped: the bench config's hour-long window would put the lock's expiry past what
  // the client accepts (`maxLockSeconds`), and the client would rightly refuse every lock.
  const shipped = JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')) as { settlement: object };
  const configPath = writeBenchConfig(dataDir, 'bench-config.json', (doc) => {
    doc.settlement = shipped.settlement as typeof doc.settlement;
    (doc.hedging as Record<string, unknown>).enabled = false;
  });
  const swaps = Math.max(20, Math.round(ctx.seconds * 6));
  const service = await startServiceProcess({ dataDir, configPath });
  const reviewMs: number[] = [];
  const swapMs: number[] = [];
  const pureUs: number[] = [];
  try {
    const client = new TakerClient({
      serviceUrl: service.url,
      rpcUrl: `${service.url}/v1/dev/rpc`,
      store: new MemorySwapStore(),
    });
    const wallet = await fundedWallet(client);
    for (let i = 0; i < WARM_UP + swaps; i++) {
      const swap = await timedSwap(client, wallet, i);
      // The pure part alone, off the clock of the swap.
      const pure = timePureChecks(swap.review);
      if (i < WARM_UP) continue;
      reviewMs.push(swap.reviewMs);
      swapMs.push(swap.swapMs);
      pureUs.push(pure);
    }
  } finally {
    await service.stop();
  }
  ctx.note(
    `row 7: ${swaps} swaps one at a time by the taker package (SOL → USDC, 0.05 SOL), the taker's RPC the ` +
      'service’s dev RPC on loopback; the review adds 3 RPC calls (the clock, the watched accounts, the simulation).',
  );
  return reviewLines(swaps, reviewMs, swapMs, pureUs);
}

/** A fresh WebCrypto wallet with 100 SOL from the dev airdrop. */
async function fundedWallet(client: TakerClient): Promise<TakerWallet> {
  const keys = await generateWalletKeys();
  if (!keys) throw new Error('this Node has no WebCrypto Ed25519');
  const wallet = await cryptoKeyWallet(keys);
  await client.service.airdrop({ wallet: wallet.address, asset: 'SOL', amount: '100' });
  return wallet;
}

/** One whole swap (quote → the taker's redeem landed), timed, with its lock review timed inside it. */
async function timedSwap(
  client: TakerClient,
  wallet: TakerWallet,
  i: number,
): Promise<{ review: LockReview; reviewMs: number; swapMs: number }> {
  const started = performance.now();
  const quote = await client.quote({
    input_asset: 'SOL',
    output_asset: 'USDC',
    amount: '0.05',
    taker_wallet: wallet.address,
  });
  if (quote.status !== 'accepted') throw new Error(`quote rejected: ${JSON.stringify(quote.reasons)}`);
  const record = await client.start(quote, { address: wallet.address });
  const reviewStarted = performance.now();
  const review = await client.reviewLock(record);
  const reviewMs = performance.now() - reviewStarted;
  const ready = makerLocked(client, record);
  await client.lock(record, wallet);
  await ready;
  const outcome = await client.redeem(record, { via: 'chain', wallet });
  const swapMs = performance.now() - started;
  if (!outcome.signature) throw new Error(`swap ${i}: the taker's redeem did not land`);
  return { review, reviewMs, swapMs };
}

/** The review's pure checks (decode, checks, effects; no RPC) on a reviewed lock: µs per round. */
function timePureChecks(review: LockReview): number {
  const pureStarted = performance.now();
  for (let r = 0; r < PURE_ROUNDS; r++) {
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
  return ((performance.now() - pureStarted) * 1_000) / PURE_ROUNDS;
}

function reviewLines(swaps: number, reviewMs: number[], swapMs: number[], pureUs: number[]): Line[] {
  const share = quantile(reviewMs, 0.5) / quantile(swapMs, 0.5);
  return [
    {
      row: '7',
      what: `whole swap by the taker package, one at a time (quote → its redeem landed; ${swaps} swaps)`,
      figure: `p50 ${ms(quantile(swapMs, 0.5))}, p99 ${ms(quantile(swapMs, 0.99))}`,
    },
    {
      row: '7',
      what: 'of which the lock review (decode, checks, simulate, effects)',
      figure: `p50 ${ms(quantile(reviewMs, 0.5))}, p99 ${ms(quantile(reviewMs, 0.99))}`,
    },
    {
      row: '7',
      what: 'lock review / whole swap (p50)',
      figure: `${num(share * 100, 1)} % of the swap`,
    },
    {
      row: '7',
      what: 'of the review, the pure checks alone (no RPC)',
      figure: `p50 ${num(quantile(pureUs, 0.5))} µs, p99 ${num(quantile(pureUs, 0.99))} µs`,
    },
  ];
}

export const takerReviewRow: Row = {
  id: '7',
  title: 'the taker’s lock review (decode + simulate) within a whole swap',
  run,
};
