// `npm run demo`: a newcomer's first look. Starts the service on the embedded defaults (a fresh DATA_DIR
// unless one is given), then plays a taker through a full swap over real HTTP, printing every step.
// Against running services instead: `--url http://127.0.0.1:8081` (or RFQ_URL); `--url` given several times
// sends each request to the next one in turn, as a load balancer in front of `npm run cluster` may, and the
// trade's owner serves its commands wherever they arrive. A service on `npm run chain` (chain.kind = rpc) has
// no dev airdrop: `--chain-url http://127.0.0.1:8899` funds the taker through that chain's dev methods.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { loopbackDevChain } from '../src/dev-chain/index.ts';
import { parseAmount } from '../src/money/index.ts';
import { createService } from '../src/service.ts';

const { values: flags } = parseArgs({
  options: {
    url: { type: 'string', multiple: true, default: [] },
    'chain-url': { type: 'string' },
  },
});
const targets = flags.url.length > 0 ? flags.url : process.env.RFQ_URL ? [process.env.RFQ_URL] : [];
const chainUrl = flags['chain-url'];
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

const step = (title: string, detail?: unknown) => {
  process.stdout.write(`\n▶ ${title}\n`);
  if (detail !== undefined) process.stdout.write(`${JSON.stringify(detail, null, 2)}\n`);
};

type Json = ReturnType<typeof JSON.parse>;

// What a client retries: a trade whose owner is being replaced (503 with Retry-After, about a lease), and a
// lock the chain does not show yet (409 lock_not_found).
const RETRIES = 30;

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Json> {
  for (let attempt = 1; ; attempt++) {
    const base = nextBase();
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json: Json = await res.json();
    const retryAfter = Number(res.headers.get('retry-after') ?? 1);
    const again = res.status === 503 || (res.status === 409 && json.error?.code === 'lock_not_found');
    if (again && attempt < RETRIES) {
      process.stdout.write(`  (${method} ${path} at ${base} → ${res.status}; retrying in ${retryAfter} s)\n`);
      await new Promise((r) => setTimeout(r, retryAfter * 1000));
      continue;
    }
    if (res.status >= 400)
      throw new Error(`${method} ${path} at ${base} → ${res.status} ${JSON.stringify(json)}`);
    if (bases.length > 1 && method === 'POST') {
      const servedBy = res.headers.get('x-rfq-served-by');
      process.stdout.write(
        `  (${method} ${path} sent to ${base}${servedBy ? `, served by its owner, run ${servedBy}` : ''})\n`,
      );
    }
    return json;
  }
}

/** The taker's SOL for the swap: the service's dev airdrop on its embedded chain, else the loopback chain's. */
async function fund(wallet: string, asset: string, amount: string): Promise<Json> {
  if (chainUrl === undefined) return call('POST', '/v1/dev/airdrop', { wallet, asset, amount });
  const { id: mint, decimals } = await call('GET', `/v1/assets/${asset}`);
  const raw = parseAmount(amount, decimals);
  const { signature } = await loopbackDevChain(chainUrl).airdrop({
    wallet: new PublicKey(wallet),
    mint: new PublicKey(mint),
    amount: raw,
  });
  return { signature, wallet, asset, amount_raw: raw.toString(), chain: chainUrl };
}

async function until(tradeId: string, done: (t: Json) => boolean): Promise<Json> {
  // Two minutes: on an rpc chain the maker acts on finalized locks, and a takeover waits out a lease.
  for (let i = 0; i < 1_200; i++) {
    const trade = await call('GET', `/v1/trades/${tradeId}`);
    if (done(trade)) return trade;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the trade did not move on');
}

try {
  step(
    service
      ? `Service on ${bases[0]} (DATA_DIR ${dataDir}), run ${service.runId}`
      : `Service at ${bases.join(', ')}`,
  );
  const taker = Keypair.generate();
  const wallet = taker.publicKey.toBase58();
  step(
    chainUrl === undefined
      ? 'The taker’s browser wallet, funded by the embedded chain’s dev airdrop'
      : `The taker’s browser wallet, funded by the chain’s dev airdrop (${chainUrl})`,
    await fund(wallet, 'SOL', '2'),
  );

  const quote = await call('POST', '/v1/rfq', {
    input_asset: 'SOL',
    output_asset: 'USDC',
    amount: '1.25',
    taker_wallet: wallet,
  });
  step('POST /v1/rfq: a firm quote', quote);

  const preimage = randomBytes(32);
  const secretHash = createHash('sha256').update(preimage).digest('hex');
  step('The browser makes a secret and keeps it; only its hash goes to the maker', {
    secret_hash: secretHash,
  });

  const settlement = await call('POST', quote.next_action.path, {
    taker_wallet: wallet,
    secret_hash: secretHash,
  });
  step('POST wallet-settlement: an unsigned lock for the wallet', {
    ...settlement,
    taker_lock_transaction: { ...settlement.taker_lock_transaction, transaction_base64: '…' },
  });

  const tx = Transaction.from(Buffer.from(settlement.taker_lock_transaction.transaction_base64, 'base64'));
  tx.partialSign(taker);
  const locked = await call('POST', settlement.next_action.path, {
    transaction_base64: tx.serialize().toString('base64'),
  });
  step('The wallet signs the lock; POST /lock: the taker escrow is on chain', {
    settlement_status: locked.settlement_status,
    substate: locked.substate,
  });

  const ready = await until(settlement.trade_id, (t) => t.substate === 'initiated.makerLocked');
  step('The maker locked the output under the same hash, with an earlier expiry', {
    maker_expires_at: ready.maker_expires_at,
    redeem_by: ready.redeem_by,
    next_action: ready.next_action,
  });

  await call('POST', ready.next_action.path, { preimage: preimage.toString('hex') });
  step('POST /redeem with the preimage: the maker escrow pays the taker, revealing the preimage on chain');

  const done = await until(
    settlement.trade_id,
    (t) => t.settlement_status === 'redeemed' && t.substate === 'redeemed.closed',
  );
  step('The maker redeemed the taker escrow with the revealed preimage. Final TradeResponse:', done);
} finally {
  await service?.close();
}
