// Row 8: time to swap, what a taker waits on a chain that keeps real time (the embedded chain with
// chain.timing: 400 ms slots, confirmed 2 and finalized 32 slots behind the tip by default) — from its
// signature on the lock to its output in its wallet at confirmed. Three policies, each one swap at a time and
// 16 at once: today's (the maker locks on a final taker lock, the taker checks the maker's escrow at
// finalized), under the confirmed cap (both sides trust confirmed) and above it (the maker waits for
// finality, the taker checks at confirmed). Each swap's time is split into the service's share — taker lock at
// the commitment the maker goes on → maker lock handed to the chain, and preimage handed over → the redeem for
// the taker handed to the chain, read from the trade's own event log (the events' times, to the millisecond, not a
// poll's) — and the chain's share, the rest: landing, commitment lags, and the taker's polls every POLL_MS.
// Env: BENCH_SLOT_MS (slot length, default 400), BENCH_SWAPS (swaps per taker per window, default 5).
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, PublicKey } from '@solana/web3.js';
import { writeBenchConfig } from '../config.ts';
import type { BenchContext, Row } from '../context.ts';
import { expectJson, HttpClient, sleep } from '../load.ts';
import { at, type Line, ms } from '../report.ts';
import { startServiceProcess } from '../service.ts';
import { newSecret, POLL_MS, signAsWallet, startSettlement, type TradeView, waitForTrade } from '../taker.ts';

type Commitment = 'confirmed' | 'finalized';

interface Policy {
  name: string;
  /** The maker's risk.confirmed_lock.max_trade_usd: "0" turns the commitment policy off. */
  maxTradeUsd: string;
  /** SOL in per swap: about $9 is under the default $250 cap, 2 SOL (about $375) above it. */
  amount: string;
  /** What the taker checks the maker's escrow at before it reveals. */
  takerChecks: Commitment;
  /** What the maker goes on: the taker lock at this commitment. */
  makerGoesOn: Commitment;
  /** Target of the p50 at one swap at a time, ms (issue 38); none for today's figure. */
  targetMs?: number;
}

const POLICIES: Policy[] = [
  { name: 'today', maxTradeUsd: '0', amount: '0.05', takerChecks: 'finalized', makerGoesOn: 'finalized' },
  {
    name: 'under the cap',
    maxTradeUsd: '250',
    amount: '0.05',
    takerChecks: 'confirmed',
    makerGoesOn: 'confirmed',
    targetMs: 3_000,
  },
  {
    name: 'above the cap',
    maxTradeUsd: '250',
    amount: '2',
    takerChecks: 'confirmed',
    makerGoesOn: 'finalized',
    targetMs: 16_000,
  },
];
const CONCURRENCY = [1, 16];

interface Timing {
  totalMs: number;
  /** The service's share: taker lock at the maker's commitment → maker lock sent, and preimage → redeem sent. */
  lockMs: number;
  redeemMs: number;
}

interface TradeDetail extends TradeView {
  maker_escrow?: string | null;
}

async function rpc<T>(client: HttpClient, method: string, params: unknown[]): Promise<T> {
  const answer = expectJson<{ result?: T; error?: { message: string } }>(
    await client.post('/v1/dev/rpc', { jsonrpc: '2.0', id: 1, method, params }),
    200,
    method,
  );
  if (answer.error || answer.result === undefined) throw new Error(`${method}: ${answer.error?.message}`);
  return answer.result;
}

const RANK = { processed: 0, confirmed: 1, finalized: 2 } as const;

/** Polls until the account exists at `commitment`; answers when that was seen. */
async function accountAt(client: HttpClient, address: string, commitment: keyof typeof RANK) {
  for (;;) {
    const { value } = await rpc<{ value: unknown }>(client, 'getAccountInfo', [
      address,
      { commitment, encoding: 'base64' },
    ]);
    if (value !== null) return performance.now();
    await sleep(POLL_MS);
  }
}

const USDC = new PublicKey('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');

/** The taker's USDC at `commitment`: 0 before its token account exists. */
async function usdcOf(client: HttpClient, owner: PublicKey, commitment: keyof typeof RANK): Promise<bigint> {
  const ata = getAssociatedTokenAddressSync(USDC, owner).toBase58();
  const answer = expectJson<{ result?: { value: { amount: string } }; error?: unknown }>(
    await client.post('/v1/dev/rpc', {
      jsonrpc: '2.0',
      id: 1,
      method: 'getTokenAccountBalance',
      params: [ata, { commitment }],
    }),
    200,
    'getTokenAccountBalance',
  );
  return answer.result ? BigInt(answer.result.value.amount) : 0n;
}

/** Polls until the taker's USDC at `commitment` is above `floor`; answers when that was seen. */
async function outputAt(client: HttpClient, owner: PublicKey, floor: bigint, commitment: keyof typeof RANK) {
  while ((await usdcOf(client, owner, commitment)) <= floor) await sleep(POLL_MS);
  return performance.now();
}

interface StoredEvent {
  type: string;
  at: string;
  settlement_status: string;
}

/**
 * The service's share of a swap, from the trade's event log: from the event that put the trade in `initiated`
 * (the maker went on the taker's lock) to the maker lock handed to the chain (its durable intent, written the
 * moment before it is sent), and from the taker's redeem request to the redeem for it handed to the chain. Its
 * landing is the chain's share: on this chain a transaction lands in the next slot.
 */
async function serviceShare(
  client: HttpClient,
  tradeId: string,
): Promise<Pick<Timing, 'lockMs' | 'redeemMs'>> {
  const { events } = expectJson<{ events: StoredEvent[] }>(
    await client.get(`/v1/trades/${tradeId}/events`),
    200,
    'events',
  );
  const at = (what: string, find: (e: StoredEvent) => boolean, after = 0) => {
    const event = events.find((e, i) => i >= after && find(e));
    if (event === undefined) throw new Error(`trade ${tradeId}: no ${what} in its event log`);
    return { ms: Date.parse(event.at), index: events.indexOf(event) };
  };
  const wentOn = at('move to initiated', (e) => e.settlement_status === 'initiated');
  const lockSent = at('maker lock intent', (e) => e.type === 'TX_INTENT', wentOn.index);
  const asked = at('redeem request', (e) => e.type === 'REDEEM_REQUESTED');
  const redeemSent = at('redeem intent', (e) => e.type === 'TX_INTENT', asked.index);
  return { lockMs: lockSent.ms - wentOn.ms, redeemMs: redeemSent.ms - asked.ms };
}

/** One swap as a careful taker does it, timed from its signature to its output at confirmed. */
async function timedSwap(client: HttpClient, wallet: Keypair, policy: Policy): Promise<Timing> {
  const address = wallet.publicKey.toBase58();
  const secret = newSecret();
  const order = { input_asset: 'SOL', output_asset: 'USDC', amount: policy.amount, taker_wallet: address };
  const quoted = expectJson<{ status: string; quote_id: string }>(
    await client.post('/v1/rfq', order),
    200,
    'rfq',
  );
  if (quoted.status !== 'accepted') throw new Error(`rfq: ${JSON.stringify(quoted).slice(0, 300)}`);
  const settlement = await startSettlement(client, quoted.quote_id, address, secret.secretHash);
  const tradeId = settlement.trade_id;
  const signedAt = performance.now();
  const lock = signAsWallet(settlement.taker_lock_transaction.transaction_base64, wallet);
  expectJson(await client.post(`/v1/trades/${tradeId}/lock`, { transaction_base64: lock }), 202, 'lock');
  const seen = (await waitForTrade(
    client,
    tradeId,
    (t) => (t as TradeDetail).maker_escrow != null,
  )) as TradeDetail;
  // The taker reveals only once it sees the maker's escrow at the commitment it trusts.
  await accountAt(client, seen.maker_escrow as string, policy.takerChecks);
  await waitForTrade(client, tradeId, (t) => t.next_action?.type === 'redeem');
  // The output in the wallet, seen in its balance (the trade shows the redeem's signature only once final).
  const held = await usdcOf(client, wallet.publicKey, 'processed');
  expectJson(await client.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage }), 202, 'redeem');
  const inWalletAt = await outputAt(client, wallet.publicKey, held, 'confirmed');
  return { totalMs: inWalletAt - signedAt, ...(await serviceShare(client, tradeId)) };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

function summary(timings: Timing[]) {
  const sorted = (pick: (t: Timing) => number) => timings.map(pick).sort((a, b) => a - b);
  const total = sorted((t) => t.totalMs);
  const service = sorted((t) => t.lockMs + t.redeemMs);
  const chain = sorted((t) => t.totalMs - t.lockMs - t.redeemMs);
  const both = (xs: number[]) => `p50 ${ms(quantile(xs, 0.5))} / p99 ${ms(quantile(xs, 0.99))}`;
  return {
    p50: quantile(total, 0.5),
    text:
      `${both(total)} (chain ${both(chain)}; service ${both(service)}: lock ${both(sorted((t) => t.lockMs))}, ` +
      `redeem ${both(sorted((t) => t.redeemMs))}; ${timings.length} swaps)`,
  };
}

/** One taker's swaps, one after another; with `paceMs`, each started no sooner than that after the last one. */
async function swapsOf(client: HttpClient, wallet: Keypair, policy: Policy, swaps: number, paceMs = 0) {
  const timings: Timing[] = [];
  for (let i = 0; i < swaps; i++) {
    const started = performance.now();
    timings.push(await timedSwap(client, wallet, policy));
    if (i < swaps - 1) await sleep(Math.max(0, paceMs - (performance.now() - started)));
  }
  return timings;
}

/**
 * `paceMs`: also measure 16 at once with each taker's swaps started that far apart — today's swap time — so the
 * service's share is compared with today's at the same swap rate, not at eleven times it.
 */
async function measure(
  ctx: BenchContext,
  policy: Policy,
  slotMs: number,
  swaps: number,
  paceMs?: number,
): Promise<{ lines: Line[]; p50At16: number }> {
  const dataDir = ctx.dir(`time-to-swap-${policy.name.replaceAll(' ', '-')}`);
  const configPath = writeBenchConfig(dataDir, 'bench-config.json', (doc) => {
    doc.chain = { kind: 'embedded', timing: { slot_ms: slotMs } };
    (doc.hedging as Record<string, unknown>).enabled = false;
    doc.risk.confirmed_lock = { max_trade_usd: policy.maxTradeUsd };
  });
  const service = await startServiceProcess({ dataDir, configPath });
  const takers = Math.max(...CONCURRENCY);
  const client = new HttpClient(service.url, takers * 2);
  const lines: Line[] = [];
  let p50At16 = Number.NaN;
  try {
    const wallets = Array.from({ length: takers }, () => Keypair.generate());
    for (const wallet of wallets) {
      const body = { wallet: wallet.publicKey.toBase58(), asset: 'SOL', amount: '100' };
      expectJson(await client.post('/v1/dev/airdrop', body), 200, 'airdrop');
    }
    // A warm-up swap (not timed): the first one pays for the process's cold paths.
    await timedSwap(client, wallets[0] as Keypair, policy);
    const windows = CONCURRENCY.map((concurrency) => ({ concurrency, paceMs: 0 }));
    if (paceMs !== undefined) windows.push({ concurrency: takers, paceMs });
    for (const { concurrency, paceMs: pace } of windows) {
      const timings = (
        await Promise.all(wallets.slice(0, concurrency).map((w) => swapsOf(client, w, policy, swaps, pace)))
      ).flat();
      const { p50, text } = summary(timings);
      if (concurrency === takers && pace === 0) p50At16 = p50;
      const judged = concurrency === 1 && pace === 0 && policy.targetMs !== undefined;
      const paced = pace > 0 ? `, paced to today's swap rate (one swap per taker every ${ms(pace)})` : '';
      lines.push({
        row: '8',
        what: `time to swap, ${policy.name} (maker on ${policy.makerGoesOn}, taker checks ${policy.takerChecks}), ${concurrency} at once${paced}`,
        figure: text,
        ...(judged ? { target: at('≤', policy.targetMs as number, p50, ms(policy.targetMs as number)) } : {}),
      });
    }
  } finally {
    client.close();
    await service.stop();
  }
  return { lines, p50At16 };
}

async function run(ctx: BenchContext): Promise<Line[]> {
  const slotMs = Number(process.env.BENCH_SLOT_MS ?? 400);
  const swaps = Math.max(1, Math.round(Number(process.env.BENCH_SWAPS ?? 5)));
  if (!Number.isFinite(slotMs) || slotMs < 10) throw new Error('BENCH_SLOT_MS must be at least 10');
  ctx.note(
    `row 8: embedded chain with ${slotMs} ms slots, confirmed 2 and finalized 32 slots behind the tip; ${swaps} swaps per taker per window; the taker polls the dev RPC every ${POLL_MS} ms; output counted at confirmed`,
  );
  const lines: Line[] = [];
  // Today's swap time at 16 at once paces the policy that trusts confirmed on both sides (see measure()).
  let todayMs: number | undefined;
  for (const policy of POLICIES) {
    const pace = policy.makerGoesOn === 'confirmed' ? todayMs : undefined;
    const measured = await measure(ctx, policy, slotMs, swaps, pace);
    if (policy.name === 'today') todayMs = measured.p50At16;
    lines.push(...measured.lines);
  }
  return lines;
}

export const timeToSwapRow: Row = { id: '8', title: 'time to swap on a chain that keeps real time', run };
