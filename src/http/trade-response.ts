// TradeResponse: rendered by one pure function from a trade's reading (src/runtime/queries.ts) and the
// configured assets, typed by its schema so the two cannot drift apart. Every field of the interface with
// its exact type, plus our extensions (redeem_by, escrows, program id): docs/interface.md#traderesponse and
// #extensions.
import type { Static } from 'typebox';
import { redeemBy as redeemByRule, substateOf, type TradeContext } from '../../machines/index.ts';
import type { AssetRegistry } from '../config/index.ts';
import { amountView } from '../money/index.ts';
import type { TradePage, TradeReading } from '../runtime/index.ts';
import {
  INTEGRATION_STATUS,
  type NextActionType,
  publicSubstate,
  type Substate,
} from '../vocabulary/index.ts';
import { renderQuotePrices } from './routes/prices.ts';
import type { TradePageSchema, TradeResponseSchema } from './routes/trades.schema.ts';
import type { NextAction } from './schemas.ts';

export type TradeResponse = Static<typeof TradeResponseSchema>;

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

export function renderTrade(trade: TradeReading, assets: AssetRegistry): TradeResponse {
  const { context } = trade.snapshot;
  const substate = publicSubstate(substateOf(trade.snapshot));
  const inputAsset = assets.find(context.inputMint);
  const outputAsset = assets.find(context.outputMint);
  const inputRaw = BigInt(context.inputAmountRaw);
  const outputRaw = BigInt(context.outputAmountRaw);
  // The machine's rule, so the view and the guard on a redeem never disagree.
  const redeemBy = redeemByRule(context);
  const lockOnChain = context.takerLockTerms !== null;
  const response: TradeResponse = {
    trade_id: context.tradeId,
    quote_id: context.quoteId,
    run_id: context.runId,
    current_run: trade.ownerRunId === trade.currentRunId,
    taker_wallet: context.takerWallet,
    expires_at: iso(context.takerExpiry),
    created_at: trade.createdAt,
    settlement_status: trade.status,
    // The trade's own transactions, its Gateway mint's source burn (on the EVM domain, once Gateway burned),
    // then the swaps of the hedges it triggered (after it closed). A swap of
    // the maker's says whether it succeeded or landed and failed (its fee paid, nothing swapped).
    tx_signatures: [
      ...context.signatures.map((s) => s.signature),
      ...trade.gatewayBurns,
      ...trade.hedgeSwaps.map((s) => s.signature),
    ],
    tx_signature_kinds: [
      ...context.signatures.map((s) =>
        s.kind === 'aggregator_swap'
          ? { kind: s.kind, signature: s.signature, outcome: s.outcome ?? ('succeeded' as const) }
          : { kind: s.kind, signature: s.signature },
      ),
      ...trade.gatewayBurns.map((signature) => ({ kind: 'gateway_burn' as const, signature })),
      ...trade.hedgeSwaps.map((s) => ({
        kind: 'aggregator_swap' as const,
        signature: s.signature,
        outcome: s.failed ? ('failed' as const) : ('succeeded' as const),
      })),
    ],
    amounts: {
      input: inputAsset ? { asset: inputAsset.symbol, amount_raw: inputRaw } : null,
      output: outputAsset ? { asset: outputAsset.symbol, amount_raw: outputRaw } : null,
    },
    input: inputAsset ? amountView(inputRaw, inputAsset) : null,
    output: outputAsset ? amountView(outputRaw, outputAsset) : null,
    ledger_summary: trade.ledger,
    quote_prices: renderQuotePrices(
      { input: inputAsset?.symbol ?? context.inputMint, output: outputAsset?.symbol ?? context.outputMint },
      trade.quotePrices,
    ),
    integration_status: INTEGRATION_STATUS,
    substate,
    failure_reason: context.failureReason,
    lock_deadline: iso(context.lockDeadline),
    maker_expires_at: context.makerExpiry === null ? null : iso(context.makerExpiry),
    redeem_by: redeemBy === null ? null : iso(redeemBy),
    taker_escrow: context.takerEscrow,
    maker_escrow: context.makerEscrow,
    program_id: trade.programId,
    // The commitment guards abandon: it is shown only once the lock (which reveals it anyway) is on chain.
    hashlock: lockOnChain ? context.secretHash : null,
  };
  const next = nextAction(substate, trade.closed, context, trade.chainNow, redeemBy);
  if (next) response.next_action = next;
  return response;
}

/** A page of trades (the trade list and the runtime's): each trade rendered, and the next page's cursor. */
export function renderTradePage(page: TradePage, assets: AssetRegistry): Static<typeof TradePageSchema> {
  return { trades: page.trades.map((trade) => renderTrade(trade, assets)), next_cursor: page.nextCursor };
}

/** The step a taker's front end takes next, from where the trade is. */
export function nextAction(
  substate: Substate,
  closed: boolean,
  context: TradeContext,
  chainNow: number,
  redeemBy: number | null,
): NextAction | undefined {
  const trade = `/v1/trades/${context.tradeId}`;
  const get = (type: NextActionType): NextAction => ({ type, method: 'GET', path: trade });
  const post = (type: NextActionType, verb: string): NextAction => ({
    type,
    method: 'POST',
    path: `${trade}/${verb}`,
  });
  if (closed) return undefined;
  // Read only in initiated substates, where the taker escrow is locked.
  const takerRefundable = chainNow >= context.takerExpiry;
  switch (substate) {
    case 'pending.awaitingLock':
      return post('submit_lock', 'lock');
    case 'pending.lockSubmitted':
    case 'pending.lockSeen':
    case 'initiated.assessing':
    case 'initiated.deciding':
    case 'initiated.signingMakerLock':
    case 'initiated.sendingMakerLock':
      return get('await_maker_lock');
    case 'initiated.makerLocked':
      // Past redeem_by the runtime reclaims the maker escrow first (it expires before the taker's); a refund
      // is offered once the machine takes it, in awaitingTakerExpiry.
      if (redeemBy !== null && chainNow < redeemBy && !context.redeemRequested)
        return post('redeem', 'redeem');
      return get('await_settlement');
    case 'initiated.awaitingTakerExpiry':
      return takerRefundable && !context.refundRequested ? post('refund', 'refund') : get('await_settlement');
    default:
      return get('await_settlement');
  }
}
