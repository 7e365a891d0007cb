// A taker doing what a browser wallet does, over HTTP only: fund itself with the dev airdrop, ask for a
// quote, start settlement with a commitment, sign the returned lock with its own key, and redeem.
import { createHash, randomBytes } from 'node:crypto';
import { Keypair, Transaction } from '@solana/web3.js';
import type { TypeBoxApp } from '../../src/http/app.ts';

export interface Secret {
  preimage: string;
  secretHash: string;
}

export function newSecret(): Secret {
  const preimage = randomBytes(32);
  return {
    preimage: preimage.toString('hex'),
    secretHash: createHash('sha256').update(preimage).digest('hex'),
  };
}

/** Signs an unsigned transaction exactly as returned by the service, as a wallet would. */
export function signAsWallet(transactionBase64: string, wallet: Keypair): string {
  const tx = Transaction.from(Buffer.from(transactionBase64, 'base64'));
  tx.partialSign(wallet);
  return tx.serialize({ requireAllSignatures: true }).toString('base64');
}

/** A parsed JSON body: tests read whatever fields they check. */
type Json = ReturnType<typeof JSON.parse>;

export class Taker {
  readonly wallet = Keypair.generate();
  readonly address = this.wallet.publicKey.toBase58();

  /** `operatorToken`: the service's, when it has one (the dev airdrop is an operator route). */
  constructor(
    private readonly app: TypeBoxApp,
    private readonly operatorToken: string | null = null,
  ) {}

  async post(url: string, payload?: unknown) {
    return this.app.inject({
      method: 'POST',
      url,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  }

  async get(url: string) {
    return this.app.inject({ method: 'GET', url });
  }

  async airdrop(asset: string, amount: string) {
    const res = await this.app.inject({
      method: 'POST',
      url: '/v1/dev/airdrop',
      payload: { wallet: this.address, asset, amount },
      ...(this.operatorToken === null ? {} : { headers: { authorization: `Bearer ${this.operatorToken}` } }),
    });
    if (res.statusCode !== 200) throw new Error(`airdrop: ${res.statusCode} ${res.body}`);
    return res.json();
  }

  async quote(input: string, output: string, amount: string) {
    const res = await this.post('/v1/rfq', {
      input_asset: input,
      output_asset: output,
      amount,
      taker_wallet: this.address,
    });
    const body = res.json();
    if (body.status !== 'accepted') throw new Error(`quote: ${res.body}`);
    return body;
  }

  async settle(quoteId: string, secret: Secret) {
    return this.post(`/v1/quotes/${quoteId}/wallet-settlement`, {
      taker_wallet: this.address,
      secret_hash: secret.secretHash,
    });
  }

  async lock(tradeId: string, unsignedBase64: string) {
    return this.post(`/v1/trades/${tradeId}/lock`, {
      transaction_base64: signAsWallet(unsignedBase64, this.wallet),
    });
  }

  async trade(tradeId: string) {
    return (await this.get(`/v1/trades/${tradeId}`)).json();
  }

  /** Polls the trade until `done` holds (the runtime acts on its own timer), or fails with the last view. */
  async waitFor(tradeId: string, done: (trade: Json) => boolean, timeoutMs = 15_000): Promise<Json> {
    const until = Date.now() + timeoutMs;
    let last: Json = {};
    while (Date.now() < until) {
      last = await this.trade(tradeId);
      if (done(last)) return last;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out; trade is ${JSON.stringify(last)}`);
  }
}
