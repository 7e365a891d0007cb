// `npm run demo`: a newcomer's first look. Starts the service on the embedded defaults (a fresh DATA_DIR
// unless one is given), then plays a taker through a full swap over real HTTP, printing every step.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Keypair, Transaction } from '@solana/web3.js';
import { createService } from '../src/service.ts';

// RFQ_URL=http://127.0.0.1:8080 plays against a service that is already running (watch it in /v1/viz).
const target = process.env.RFQ_URL;
const dataDir = process.env.DATA_DIR
  ? resolve(process.env.DATA_DIR)
  : mkdtempSync(join(tmpdir(), 'rfq-demo-'));
const service = target ? null : await createService({ dataDir });
const base =
  target ?? (await service?.app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) }));

const step = (title: string, detail?: unknown) => {
  process.stdout.write(`\n▶ ${title}\n`);
  if (detail !== undefined) process.stdout.write(`${JSON.stringify(detail, null, 2)}\n`);
};

type Json = ReturnType<typeof JSON.parse>;

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Json> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json: Json = await res.json();
  if (res.status >= 400) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function until(tradeId: string, done: (t: Json) => boolean): Promise<Json> {
  for (let i = 0; i < 200; i++) {
    const trade = await call('GET', `/v1/trades/${tradeId}`);
    if (done(trade)) return trade;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the trade did not move on');
}

try {
  step(service ? `Service on ${base} (DATA_DIR ${dataDir}), run ${service.runId}` : `Service at ${base}`);
  const taker = Keypair.generate();
  const wallet = taker.publicKey.toBase58();
  step(
    'The taker’s browser wallet, funded by the embedded chain’s dev airdrop',
    await call('POST', '/v1/dev/airdrop', { wallet, asset: 'SOL', amount: '2' }),
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
