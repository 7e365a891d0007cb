// A small typed client of the maker's API, written as an integrator would: every type comes from what
// openapi-typescript generates out of the served OpenAPI document, looked up by operationId, and every path
// must be one the document lists. So a document that drifts from what a client needs stops this compiling.
// test/contract/client.test.ts generates ./openapi.gen.ts into a temp dir, type-checks this file against it
// and runs swap() against a live service. The root tsconfig leaves this file out: its types exist only there.
import type { operations, paths } from './openapi.gen.ts';

type OperationId = keyof operations;
type Params<Id extends OperationId> = operations[Id]['parameters'];
type Body<Id extends OperationId> = operations[Id] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;
type Answer<
  Id extends OperationId,
  Status extends keyof operations[Id]['responses'],
> = operations[Id]['responses'][Status] extends {
  content: { 'application/json': infer B };
}
  ? B
  : never;

export type RfqOutcome = Answer<'createRfq', 200>;
export type Quote = Extract<RfqOutcome, { status: 'accepted' }>;
export type Settlement = Answer<'startWalletSettlement', 200 | 201>;
export type Trade = Answer<'getTrade', 200>;
export type ErrorBody = Answer<'getTrade', 404>;

/** Any answer outside 2xx, with the service's error envelope. */
export class MakerError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(`${status} ${body.error.code}: ${body.error.message}`);
    this.name = 'MakerError';
  }
}

export interface ClientOptions {
  /** Sent as a bearer token to operator routes (here the dev airdrop), when set. */
  operatorToken?: string;
  fetch?: typeof fetch;
}

export type MakerClient = ReturnType<typeof makerClient>;

export function makerClient(baseUrl: string, options: ClientOptions = {}) {
  const send = options.fetch ?? fetch;

  /** A path of the document with its {parameters} filled in. */
  const url = (template: keyof paths, params: Record<string, string> = {}) =>
    new URL(
      template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? '')),
      baseUrl,
    );

  async function call<T>(method: 'GET' | 'POST', target: URL, body?: unknown, operator = false): Promise<T> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (operator && options.operatorToken) headers.authorization = `Bearer ${options.operatorToken}`;
    const res = await send(target, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json: unknown = await res.json();
    if (!res.ok) throw new MakerError(res.status, json as ErrorBody);
    return json as T;
  }

  return {
    createRfq: (body: Body<'createRfq'>) => call<RfqOutcome>('POST', url('/v1/rfq'), body),

    startWalletSettlement: (
      path: Params<'startWalletSettlement'>['path'],
      body: Body<'startWalletSettlement'>,
    ) => call<Settlement>('POST', url('/v1/quotes/{quote_id}/wallet-settlement', path), body),

    submitLock: (path: Params<'submitLock'>['path'], body: Body<'submitLock'>) =>
      call<Answer<'submitLock', 202>>('POST', url('/v1/trades/{trade_id}/lock', path), body),

    getTrade: (path: Params<'getTrade'>['path']) => call<Trade>('GET', url('/v1/trades/{trade_id}', path)),

    redeemTrade: (path: Params<'redeemTrade'>['path'], body: Body<'redeemTrade'>) =>
      call<Answer<'redeemTrade', 202>>('POST', url('/v1/trades/{trade_id}/redeem', path), body),

    airdrop: (body: Body<'airdrop'>) =>
      call<Answer<'airdrop', 200>>('POST', url('/v1/dev/airdrop'), body, true),
  };
}

/** What the taker's browser holds: its wallet, which signs, and the secret it settles with. */
export interface Taker {
  address: string;
  signTransaction(transactionBase64: string): string | Promise<string>;
  secret: { preimage: string; secretHash: string };
}

export interface Order {
  input_asset: string;
  output_asset: string;
  amount: string;
}

/**
 * A whole swap as a taker does it: a quote, the settlement start, the signed lock, then — once the maker
 * has locked its side — the redeem, until the trade is redeemed.
 */
export async function swap(client: MakerClient, taker: Taker, order: Order) {
  const outcome = await client.createRfq({ ...order, taker_wallet: taker.address });
  if (outcome.status !== 'accepted') {
    throw new Error(`quote rejected: ${outcome.reasons.map((reason) => reason.check).join(', ')}`);
  }
  const quote: Quote = outcome;
  const settlement = await client.startWalletSettlement(
    { quote_id: quote.quote_id },
    { taker_wallet: taker.address, secret_hash: taker.secret.secretHash },
  );
  const trade_id = settlement.trade_id;
  const signed = await taker.signTransaction(settlement.taker_lock_transaction.transaction_base64);
  const locked = await client.submitLock({ trade_id }, { transaction_base64: signed });
  const ready = await waitFor(client, trade_id, (trade) => trade.next_action?.type === 'redeem');
  await client.redeemTrade({ trade_id }, { preimage: taker.secret.preimage });
  const redeemed = await waitFor(client, trade_id, (trade) => trade.settlement_status === 'redeemed');
  return { quote, settlement, locked, ready, redeemed };
}

/** Polls the trade until `done` holds: the service settles on its own time. */
async function waitFor(
  client: MakerClient,
  trade_id: string,
  done: (trade: Trade) => boolean,
  timeoutMs = 20_000,
): Promise<Trade> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const trade = await client.getTrade({ trade_id });
    if (done(trade)) return trade;
    if (Date.now() > until) throw new Error(`timed out; the trade is ${JSON.stringify(trade)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
