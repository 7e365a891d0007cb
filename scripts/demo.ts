// `npm run demo`: a newcomer's first look. Starts the service on the embedded defaults (a fresh DATA_DIR
// unless one is given), then plays a taker through a full swap with the taker client package
// (packages/taker), printing every step: the secret stored before the service hears of it, the maker's lock
// verified through an RPC before the secret is revealed, the redeem built and sent by the taker itself.
// Then a one-sided run — the taker sells SOL again and again until the maker's SOL leaves its hedging band —
// and the hedges that bring it back: their trade, swap signature, amounts and slippage against the mid.
// Against running services instead: `--url http://127.0.0.1:8081` (or RFQ_URL); `--url` given several times
// sends each request to the next one in turn, as a load balancer in front of `npm run cluster` may, and the
// trade's owner serves its commands wherever they arrive. A service on `npm run chain` (chain.kind = rpc) has
// no dev airdrop and no dev RPC: `--chain-url http://127.0.0.1:8899` funds the taker through that chain's dev
// methods and is the taker's RPC (`--program-id` when the program is not at its default address). There the
// taker does not take the service's word for the swap's terms: `--maker <public key>` pins the maker (npm run
// cluster prints it), and the mints are the ones the loopback chain makes, at their mainnet addresses.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PublicKey } from '@solana/web3.js';
import {
  CANONICAL_MINTS,
  cryptoKeyWallet,
  DEFAULT_HTLC_PROGRAM_ID,
  FileSwapStore,
  generateWalletKeys,
  type SwapRecord,
  TakerClient,
  type Trade,
} from '../packages/taker/src/node.ts';
import { loopbackDevChain } from '../src/dev-chain/index.ts';
import { formatDecimal, parseAmount } from '../src/money/index.ts';
import { createService } from '../src/service.ts';

const { values: flags } = parseArgs({
  options: {
    url: { type: 'string', multiple: true, default: [] },
    'chain-url': { type: 'string' },
    'program-id': { type: 'string', default: DEFAULT_HTLC_PROGRAM_ID },
    maker: { type: 'string' },
  },
});
const targets = flags.url.length > 0 ? flags.url : process.env.RFQ_URL ? [process.env.RFQ_URL] : [];
const chainUrl = flags['chain-url'];
if (chainUrl !== undefined && flags.maker === undefined)
  throw new Error(
    '--chain-url needs --maker <the maker’s public key>: off the embedded chain the taker pins it',
  );
const dataDir =
  targets.length > 0
    ? null
    : process.env.DATA_DIR
      ? resolve(process.env.DATA_DIR)
      : mkdtempSync(join(tmpdir(), 'rfq-demo-'));
const service = dataDir === null ? null : await createService({ dataDir });
const bases =
  targets.length > 0
    ? targets.map((url) => url.replace(/\/$/, ''))
    : [await service?.app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })];
let turn = 0;
/** The service the next request goes to. */
const nextBase = () => bases[turn++ % bases.length] as string;
const first = bases[0] as string;

const step = (title: string, detail?: unknown) => {
  process.stdout.write(`\n▶ ${title}\n`);
  if (detail !== undefined) process.stdout.write(`${JSON.stringify(detail, null, 2)}\n`);
};

// What the demo's transport retries: a trade whose owner is being replaced (503 with Retry-After, about a
// lease). Each request goes to the next service in turn; the client itself retries a lock not on chain yet.
const RETRIES = 30;
const alternating: typeof fetch = async (input, init) => {
  const original = new Request(input, init);
  const { pathname, search } = new URL(original.url);
  for (let attempt = 1; ; attempt++) {
    const base = nextBase();
    const res = await fetch(new Request(`${base}${pathname}${search}`, original.clone()));
    if (res.status === 503 && attempt < RETRIES) {
      const retryAfter = Number(res.headers.get('retry-after') ?? 1);
      process.stdout.write(
        `  (${original.method} ${pathname} at ${base} → 503; retrying in ${retryAfter} s)\n`,
      );
      await new Promise((r) => setTimeout(r, retryAfter * 1000));
      continue;
    }
    if (bases.length > 1 && original.method === 'POST') {
      const servedBy = res.headers.get('x-rfq-served-by');
      process.stdout.write(
        `  (${original.method} ${pathname} sent to ${base}${servedBy ? `, served by its owner, run ${servedBy}` : ''})\n`,
      );
    }
    return res;
  }
};

try {
  step(
    service
      ? `Service on ${first} (DATA_DIR ${dataDir}), run ${service.runId}`
      : `Service at ${bases.join(', ')}`,
  );
  // The taker's own durable store and RPC: the embedded chain's dev RPC, or the chain the service runs on.
  const storeDir = join(dataDir ?? mkdtempSync(join(tmpdir(), 'rfq-demo-taker-')), 'taker-swaps');
  const rpcUrl = chainUrl ?? `${first}/v1/dev/rpc`;
  const client = new TakerClient({
    serviceUrl: first,
    rpcUrl,
    store: new FileSwapStore(storeDir),
    programId: flags['program-id'],
    fetch: alternating,
    // Off the service's embedded chain the taker pins who it swaps with and the mints it means.
    ...(chainUrl !== undefined
      ? { maker: flags.maker as string, mints: { ...CANONICAL_MINTS.mainnet } }
      : {}),
  });
  const keys = await generateWalletKeys();
  if (!keys) throw new Error('this Node has no WebCrypto Ed25519');
  const wallet = await cryptoKeyWallet(keys);

  if (chainUrl === undefined) {
    step(
      'The taker’s wallet (a WebCrypto Ed25519 key), funded by the embedded chain’s dev airdrop',
      await client.service.airdrop({ wallet: wallet.address, asset: 'SOL', amount: '2' }),
    );
  } else {
    const { id: mint, decimals } = await client.service.asset('SOL');
    const { signature } = await loopbackDevChain(chainUrl).airdrop({
      wallet: new PublicKey(wallet.address),
      mint: new PublicKey(mint),
      amount: parseAmount('2', decimals),
    });
    step(`The taker’s wallet (a WebCrypto Ed25519 key), funded by the chain’s dev airdrop (${chainUrl})`, {
      signature,
      wallet: wallet.address,
    });
  }

  const quote = await client.quote({
    input_asset: 'SOL',
    output_asset: 'USDC',
    amount: '1.25',
    taker_wallet: wallet.address,
  });
  if (quote.status !== 'accepted') throw new Error(`quote rejected: ${JSON.stringify(quote.reasons)}`);
  step('POST /v1/rfq: a firm quote', quote);

  const record: SwapRecord = await client.start(quote, { address: wallet.address, name: 'demo' });
  step(`The client made a secret and stored it (${storeDir}) before the service heard of its hash`, {
    secret_hash: record.secretHash,
  });
  step('POST wallet-settlement: an unsigned lock for the wallet', {
    trade_id: record.tradeId,
    lock_transaction: `${record.lockTransaction?.slice(0, 24)}…`,
  });

  const review = await client.reviewLock(record);
  step(
    `Before the wallet sees it, the client decodes the lock and checks it (${review.check.checks.length} checks), then simulates it through ${rpcUrl} (${review.simulation.checks.length} more)`,
    {
      trust: review.summary.trust,
      you_lock: `${review.summary.input.amountRaw} raw ${review.summary.input.asset} (mint ${review.summary.input.mint})`,
      until: new Date(Number(review.summary.expiry) * 1000).toISOString(),
      for: `${review.summary.output.amountRaw} raw ${review.summary.output.asset} (mint ${review.summary.output.mint})`,
      from_maker: review.summary.maker,
      balance_changes: review.simulation.changes.map(
        (c) => `${c.mint ?? 'lamports'}: ${c.before} → ${c.after}`,
      ),
    },
  );

  const locked = await client.lock(record, wallet);
  step('The wallet signs the lock; POST /lock: the taker escrow is on chain', {
    settlement_status: locked.settlement_status,
    substate: locked.substate,
  });

  const ready = await new Promise<Trade>((resolveReady, reject) => {
    const follower = client.follow(record, {
      onTrade: (trade) => {
        if (trade.next_action?.type === 'redeem') {
          follower.stop();
          resolveReady(trade);
        }
      },
      onError: (error) => {
        follower.stop();
        reject(error);
      },
    });
  });
  step('The service says the maker locked the output under the same hash (followed over the trade stream)', {
    maker_expires_at: ready.maker_expires_at,
    redeem_by: ready.redeem_by,
  });

  const outcome = await client.redeem(record, { via: 'chain', wallet });
  step(
    `Verified through ${rpcUrl} before revealing — every check passed — then redeemed on chain from the wallet: the preimage went to the chain only`,
    {
      checks: outcome.verification.checks.map((c) => `${c.name}: ${c.detail}`),
      redeem: outcome.signature,
    },
  );

  let done = await client.refresh(record);
  for (
    let i = 0;
    i < 1_200 && !(done.settlement_status === 'redeemed' && done.substate === 'redeemed.closed');
    i++
  ) {
    await new Promise((r) => setTimeout(r, 100));
    done = await client.refresh(record);
  }
  step('The maker redeemed the taker escrow with the revealed preimage. Final TradeResponse:', done);

  await oneSidedRun(client, wallet, record.tradeId as string);
} finally {
  await service?.close();
}

type Json = ReturnType<typeof JSON.parse>;

/** GET of an operator route on the first service (OPERATOR_TOKEN when the services have one). */
async function operatorGet(path: string): Promise<Json> {
  const token = process.env.OPERATOR_TOKEN;
  const res = await fetch(`${first}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** One full swap of `amount` SOL for USDC, the taker redeeming from its own wallet; answers the final trade. */
async function sellSol(
  client: TakerClient,
  wallet: Awaited<ReturnType<typeof cryptoKeyWallet>>,
  amount: string,
) {
  const quote = await client.quote({
    input_asset: 'SOL',
    output_asset: 'USDC',
    amount,
    taker_wallet: wallet.address,
  });
  if (quote.status !== 'accepted') throw new Error(`quote rejected: ${JSON.stringify(quote.reasons)}`);
  const record = await client.start(quote, { address: wallet.address, name: 'demo' });
  await client.lock(record, wallet);
  await new Promise<void>((resolveReady, reject) => {
    const follower = client.follow(record, {
      onTrade: (trade) => {
        if (trade.next_action?.type === 'redeem') {
          follower.stop();
          resolveReady();
        }
      },
      onError: (error) => {
        follower.stop();
        reject(error);
      },
    });
  });
  await client.redeem(record, { via: 'chain', wallet });
  for (let i = 0; i < 1_200; i++) {
    const trade = await client.refresh(record);
    if (trade.settlement_status === 'redeemed' && trade.substate === 'redeemed.closed') return trade;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`trade ${record.tradeId} did not close`);
}

/**
 * The maker's inventory moves one way with every fill: the taker sells SOL until the maker's SOL is further
 * from its target than its band, then the demo waits for the hedger to sell it back through the aggregator
 * (the embedded venue) and prints each hedge.
 */
async function oneSidedRun(
  client: TakerClient,
  wallet: Awaited<ReturnType<typeof cryptoKeyWallet>>,
  firstTrade: string,
) {
  const inventory = await operatorGet('/v1/inventory');
  const sol = inventory.assets.find((a: Json) => a.asset === 'SOL');
  if (!inventory.hedging?.enabled || !sol?.target) {
    step(
      'Hedging is not configured for SOL on this service: no one-sided run (config `hedging`, README § Hedging)',
    );
    return;
  }
  const { decimals } = sol;
  const band = BigInt(sol.target.band_raw);
  const deviation = BigInt(sol.target.deviation_raw ?? '0');
  // Past the band by a fifth of it, in three sales.
  const needed = band - deviation + band / 5n;
  const each = formatDecimal((needed + 2n) / 3n, decimals);
  step(
    `One-sided run: SOL target ${formatDecimal(BigInt(sol.target.target_raw), decimals)}, band ±${formatDecimal(band, decimals)}, ` +
      `now ${formatDecimal(deviation, decimals)} off it. The taker sells ${each} SOL three times`,
  );
  const fund = formatDecimal(((needed + 2n) / 3n) * 3n + 10n ** BigInt(decimals), decimals);
  if (chainUrl === undefined) {
    await client.service.airdrop({ wallet: wallet.address, asset: 'SOL', amount: fund });
  } else {
    const { id: mint } = await client.service.asset('SOL');
    await loopbackDevChain(chainUrl).airdrop({
      wallet: new PublicKey(wallet.address),
      mint: new PublicKey(mint),
      amount: parseAmount(fund, decimals),
    });
  }
  const trades: string[] = [firstTrade];
  for (let i = 1; i <= 3; i++) {
    const trade = await sellSol(client, wallet, each);
    trades.push(trade.trade_id);
    process.stdout.write(
      `  sale ${i}: trade ${trade.trade_id} redeemed (${trade.input?.amount} SOL → ${trade.output?.amount} USDC)\n`,
    );
  }
  // The hedges of these trades, once SOL is home.
  let view = inventory;
  for (let i = 0; i < 600; i++) {
    view = await operatorGet('/v1/inventory');
    const now = view.assets.find((a: Json) => a.asset === 'SOL').target;
    const ours = view.recent_hedges.filter((h: Json) => trades.includes(h.trade_id));
    // Done: back inside the band, and the hedger no longer working on SOL (clips come a few seconds apart).
    if (ours.length > 0 && view.hedges_in_flight.length === 0 && !now.outside_band && !now.hedging) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const hedges = (view.recent_hedges as Json[]).filter((h) => trades.includes(h.trade_id)).reverse();
  if (hedges.length === 0)
    throw new Error(`no hedge after the one-sided run: ${JSON.stringify(view.assets)}`);
  const assets = new Map<string, number>((view.assets as Json[]).map((a) => [a.asset, a.decimals]));
  const shown = (symbol: string, raw: string | null) =>
    raw === null ? null : `${formatDecimal(BigInt(raw), assets.get(symbol) ?? 0)} ${symbol}`;
  step(
    `The maker's SOL left its band, so the hedger sold it back toward the target through the aggregator, in ${hedges.length} clip(s):`,
    hedges.map((h) => ({
      trade_id: h.trade_id,
      signature: h.signature,
      status: h.status,
      sold: shown(h.input.asset, h.input.amount_raw),
      received: shown(h.output.asset, h.output.landed_raw),
      at_mid: shown(h.output.asset, h.output.at_mid_raw),
      slippage: `${h.slippage_bps} bps (${shown(h.output.asset, h.slippage_raw?.replace('-', '') ?? null)} ${String(h.slippage_raw).startsWith('-') ? 'above' : 'below'} the Pyth mid; bound ${h.max_slippage_bps} bps)`,
    })),
  );
  const trigger = await client.service.trade(hedges[0]?.trade_id);
  step(`GET /v1/trades/${trigger.trade_id}: the trade that left SOL outside its band shows its hedges`, {
    tx_signature_kinds: trigger.tx_signature_kinds,
    ledger_summary: trigger.ledger_summary,
  });
  step(
    'GET /v1/inventory: SOL is back inside its band',
    view.assets.find((a: Json) => a.asset === 'SOL'),
  );
}
