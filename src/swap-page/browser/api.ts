// The service's public routes as the page calls them, with the shapes of the fields it reads (the OpenAPI
// document at /v1/openapi.json is the full contract). Every error answers the envelope {error: {code,
// message, details}}; int64 fields are never read, only their string twins (amount_raw), which JSON keeps exact.

// The interface's AmountView as the service defines it: a type only, so nothing of the service is bundled.
import type { AmountView } from '../../money/amounts.ts';

export type { AmountView };

export interface NextAction {
  type:
    | 'start_wallet_settlement'
    | 'submit_lock'
    | 'await_maker_lock'
    | 'redeem'
    | 'await_settlement'
    | 'refund';
  method: 'GET' | 'POST';
  path: string;
}

export interface Pair {
  input_asset: string;
  output_asset: string;
  base_spread_bps: number;
  min_input: string;
  max_input: string;
  paused: boolean;
}

export interface Quote {
  status: 'accepted';
  quote_id: string;
  spread_bps: number;
  expires_at: string;
  htlc_terms: { expires_at: string };
  input: AmountView;
  output: AmountView;
}

export interface RiskRejection {
  status: 'rejected';
  rejection_id: string;
  reasons: { check: string; message: string }[];
  input: AmountView;
}

export interface UnsignedTransaction {
  transaction_base64: string;
  recent_blockhash: string;
  last_valid_block_height: number;
}

export interface WalletSettlement {
  quote_id: string;
  trade_id: string;
  taker_lock_transaction: UnsignedTransaction;
  expires_at: string;
  lock_deadline: string;
  redeem_by: string | null;
}

export type SettlementStatus = 'pending' | 'initiated' | 'redeemed' | 'refunded' | 'failed';

export interface Trade {
  trade_id: string;
  quote_id: string;
  taker_wallet?: string | null;
  expires_at?: string | null;
  created_at: string;
  settlement_status: SettlementStatus;
  substate: string;
  failure_reason: string | null;
  tx_signature_kinds: { kind: string; signature: string }[];
  input?: AmountView | null;
  output?: AmountView | null;
  lock_deadline: string;
  maker_expires_at: string | null;
  redeem_by: string | null;
  next_action?: NextAction;
}

export interface TradeEvent {
  seq: number;
  at: string;
  type: string;
  substate: string;
}

export const FINAL_STATUSES: readonly SettlementStatus[] = ['redeemed', 'refunded', 'failed'];

/** An answer other than 2xx, with the envelope's code. */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly string[] = [],
  ) {
    super(message);
  }
}

async function call<T>(
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new ServiceError(
      0,
      'network_error',
      `The service could not be reached (${(error as Error).message}).`,
    );
  }
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string; details?: string[] } } | null)
      ?.error;
    throw new ServiceError(
      response.status,
      error?.code ?? `http_${response.status}`,
      error?.message ?? `The service answered ${response.status}.`,
      error?.details ?? [],
    );
  }
  return { status: response.status, body: parsed as T };
}

const trade = (id: string) => `/v1/trades/${encodeURIComponent(id)}`;

export const api = {
  pairs: async () => (await call<{ pairs: Pair[] }>('GET', '/v1/pairs')).body.pairs,
  rfq: async (request: { input_asset: string; output_asset: string; amount: string; taker_wallet: string }) =>
    (await call<Quote | RiskRejection>('POST', '/v1/rfq', request)).body,
  /** 201 a new trade; 200 the same trade again (same wallet and secret_hash) with a fresh lock. */
  startSettlement: async (quoteId: string, request: { taker_wallet: string; secret_hash: string }) =>
    (
      await call<WalletSettlement>(
        'POST',
        `/v1/quotes/${encodeURIComponent(quoteId)}/wallet-settlement`,
        request,
      )
    ).body,
  trade: async (id: string) => (await call<Trade>('GET', trade(id))).body,
  lock: async (id: string, transactionBase64: string) =>
    (await call<Trade>('POST', `${trade(id)}/lock`, { transaction_base64: transactionBase64 })).body,
  abandon: async (id: string, secretHash: string) =>
    (await call<Trade>('POST', `${trade(id)}/abandon`, { secret_hash: secretHash })).body,
  redeem: async (id: string, preimage: string) =>
    (await call<Trade>('POST', `${trade(id)}/redeem`, { preimage })).body,
  /** An unsigned redeem of the maker escrow for the taker's wallet to sign and send; changes nothing. */
  walletRedeem: async (id: string, preimage: string) =>
    (
      await call<{ trade: Trade; transaction: UnsignedTransaction }>(
        'POST',
        `${trade(id)}/redeem?mode=wallet`,
        {
          preimage,
        },
      )
    ).body,
  refund: async (id: string) => (await call<Trade>('POST', `${trade(id)}/refund`)).body,
  airdrop: async (request: { wallet: string; asset: string; amount: string }) =>
    (await call<{ signature: string }>('POST', '/v1/dev/airdrop', request)).body,
  streamUrl: (id: string, after: number) => `${trade(id)}/stream?after=${after}`,
};
