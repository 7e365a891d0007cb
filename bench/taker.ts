// What a taker sends, over the load generator's keep-alive connections: RFQs, settlement starts with a
// fresh commitment, wallet-signed locks, redeems, and polling a trade until it reaches a state.
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { type Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { expectJson, type HttpClient, sleep } from './load.ts';

/** The swap row's taker waits by polling GET /v1/trades/{id} at this interval. */
export const POLL_MS = 25;

/** Input of every bench trade: 0.05 SOL (about $9) for USDC, so inventory never runs short. */
export const PAIR = { input_asset: 'SOL', output_asset: 'USDC', amount: '0.05' } as const;

/** A valid address that is not a key anyone holds: enough for quotes and pending trades. */
export const freshAddress = () => new PublicKey(randomBytes(32)).toBase58();

export function newSecret(): { preimage: string; secretHash: string } {
  const preimage = randomBytes(32);
  return {
    preimage: preimage.toString('hex'),
    secretHash: createHash('sha256').update(preimage).digest('hex'),
  };
}

export const rfqBody = (wallet: string, expirySeconds?: number) =>
  JSON.stringify({
    ...PAIR,
    taker_wallet: wallet,
    ...(expirySeconds ? { expiry_seconds: expirySeconds } : {}),
  });

export async function quote(client: HttpClient, wallet: string): Promise<string> {
  const body = expectJson<{ status: string; quote_id: string }>(
    await client.post('/v1/rfq', rfqBody(wallet)),
    200,
    'rfq',
  );
  if (body.status !== 'accepted') throw new Error(`rfq: ${JSON.stringify(body).slice(0, 300)}`);
  return body.quote_id;
}

export interface Settlement {
  trade_id: string;
  taker_lock_transaction: { transaction_base64: string };
}

export async function startSettlement(
  client: HttpClient,
  quoteId: string,
  wallet: string,
  secretHash: string,
): Promise<Settlement> {
  const answer = await client.post(`/v1/quotes/${quoteId}/wallet-settlement`, {
    taker_wallet: wallet,
    secret_hash: secretHash,
  });
  return expectJson<Settlement>(answer, 201, 'wallet-settlement');
}

/** A pending trade, as an attacker makes them: a quote and a settlement start from a fresh wallet. */
export async function pendingTrade(client: HttpClient): Promise<string> {
  const wallet = freshAddress();
  const quoteId = await quote(client, wallet);
  return (await startSettlement(client, quoteId, wallet, newSecret().secretHash)).trade_id;
}

/** Signs the unsigned lock exactly as returned, as a browser wallet does. */
export function signAsWallet(transactionBase64: string, wallet: Keypair): string {
  const tx = Transaction.from(Buffer.from(transactionBase64, 'base64'));
  tx.partialSign(wallet);
  return tx.serialize({ requireAllSignatures: true }).toString('base64');
}

export interface TradeView {
  settlement_status: string;
  substate?: string;
  next_action?: { type: string } | null;
  tx_signatures?: string[];
}

export async function waitForTrade(
  client: HttpClient,
  tradeId: string,
  done: (trade: TradeView) => boolean,
  timeoutMs = 30_000,
): Promise<TradeView> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const trade = expectJson<TradeView>(await client.get(`/v1/trades/${tradeId}`), 200, 'trade');
    if (done(trade)) return trade;
    if (trade.settlement_status === 'failed' || trade.settlement_status === 'refunded') {
      throw new Error(`trade ${tradeId} ended ${trade.settlement_status} (${trade.substate ?? ''})`);
    }
    if (Date.now() > until)
      throw new Error(`trade ${tradeId} stuck at ${trade.substate ?? trade.settlement_status}`);
    await sleep(POLL_MS);
  }
}

/** How a taker learns what its trade does: `until` resolves with the first view that satisfies `done`. */
export type Follow = (tradeId: string) => {
  until(done: (trade: TradeView) => boolean): Promise<TradeView>;
  close(): void;
};

/** Polls GET /v1/trades/{id} every POLL_MS. */
export const polling =
  (client: HttpClient): Follow =>
  (tradeId) => ({ until: (done) => waitForTrade(client, tradeId, done), close: () => {} });

/** Follows GET /v1/trades/{id}/stream, as the swap page does. */
export const streaming =
  (origin: string): Follow =>
  (tradeId) =>
    followTrade(origin, tradeId);

/**
 * One full swap: RFQ, settlement start, the lock signed as a wallet, POST /lock, wait until the maker's
 * lock is there (next action: redeem), POST /redeem with the preimage, wait until `redeemed` and done.
 * Returns the transaction signatures the trade shows.
 */
export async function swap(
  client: HttpClient,
  wallet: Keypair,
  follow: Follow = polling(client),
): Promise<{ tradeId: string; signatures: string[] }> {
  const address = wallet.publicKey.toBase58();
  const secret = newSecret();
  const settlement = await startSettlement(client, await quote(client, address), address, secret.secretHash);
  const tradeId = settlement.trade_id;
  const trade = follow(tradeId);
  try {
    const lock = signAsWallet(settlement.taker_lock_transaction.transaction_base64, wallet);
    expectJson(await client.post(`/v1/trades/${tradeId}/lock`, { transaction_base64: lock }), 202, 'lock');
    await trade.until((t) => t.next_action?.type === 'redeem');
    expectJson(
      await client.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage }),
      202,
      'redeem',
    );
    const done = await trade.until((t) => t.settlement_status === 'redeemed' && !t.next_action);
    return { tradeId, signatures: done.tx_signatures ?? [] };
  } finally {
    trade.close();
  }
}

/**
 * A trade followed over `GET /v1/trades/{id}/stream`, as the swap page follows it: the TradeResponse the
 * stream opens with, then the one each event carries. `until` resolves with the first that satisfies `done`.
 */
export function followTrade(origin: string, tradeId: string) {
  let latest: TradeView | null = null;
  let failure: Error | null = null;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const url = new URL(`/v1/trades/${tradeId}/stream`, origin);
  const req = request(url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
    if (res.statusCode !== 200) {
      failure = new Error(`stream: ${res.statusCode}`);
      wake();
      res.resume();
      return;
    }
    res.setEncoding('utf8');
    let buffer = '';
    res.on('data', (chunk: string) => {
      buffer += chunk;
      for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (!data) continue;
        const body = JSON.parse(data.slice(6)) as TradeView | { trade: TradeView };
        latest = 'trade' in body ? body.trade : body;
      }
      wake();
    });
  });
  req.on('error', (error) => {
    failure = error;
    wake();
  });
  req.end();
  return {
    until(done: (trade: TradeView) => boolean, timeoutMs = 30_000): Promise<TradeView> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => settle(new Error(`trade ${tradeId} stuck at ${latest?.substate}`)),
          timeoutMs,
        );
        const check = () => {
          if (failure) return settle(failure);
          if (latest === null) return;
          if (done(latest)) return settle(null, latest);
          if (latest.settlement_status === 'failed' || latest.settlement_status === 'refunded')
            settle(
              new Error(`trade ${tradeId} ended ${latest.settlement_status} (${latest.substate ?? ''})`),
            );
        };
        const settle = (error: Error | null, trade?: TradeView) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (error) reject(error);
          else resolve(trade as TradeView);
        };
        waiters.add(check);
        check();
      });
    },
    close: () => req.destroy(),
  };
}
