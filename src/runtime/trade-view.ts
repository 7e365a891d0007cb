// TradeResponse: rendered by one pure function from a trade's snapshot, the run asking and the ledger.
// Every field of the interface with its exact type, plus our extensions (redeem_by, escrows, program id):
// docs/interface.md#traderesponse and #extensions.
import { substateOf, type TradeContext } from '../../machines/index.ts';
import type { AssetRegistry } from '../config/index.ts';
import type { LedgerSummary } from '../ledger/index.ts';
import { type AmountView, amountView } from '../money/index.ts';
import {
  INTEGRATION_STATUS,
  type NextActionType,
  type SettlementStatus,
  type TradeSignatureKind,
} from '../vocabulary/index.ts';

export interface NextAction {
  type: NextActionType;
  method: 'GET' | 'POST';
  path: string;
}

export interface TradeView {
  trade_id: string;
  quote_id: string;
  run_id: string;
  current_run: boolean;
  taker_wallet: string | null;
  expires_at: string | null;
  created_at: string;
  settlement_status: SettlementStatus;
  tx_signatures: string[];
  tx_signature_kinds: { kind: TradeSignatureKind; signature: string }[];
  amounts: {
    input: { asset: string; amount_raw: bigint } | null;
    output: { asset: string; amount_raw: bigint } | null;
  };
  input: AmountView | null;
  output: AmountView | null;
  ledger_summary: LedgerSummary;
  integration_status: typeof INTEGRATION_STATUS;
  // Extensions (docs/interface.md#extensions).
  substate: string;
  failure_reason: string | null;
  lock_deadline: string;
  maker_expires_at: string | null;
  redeem_by: string | null;
  taker_escrow: string;
  maker_escrow: string;
  program_id: string;
  hashlock: string | null;
  next_action?: NextAction;
}

export interface TradeViewInput {
  snapshot: { value: unknown; context: TradeContext };
  status: SettlementStatus;
  closed: boolean;
  createdAt: string;
  /** The run that owns the trade's actor now. */
  ownerRunId: string;
  currentRunId: string;
  assets: AssetRegistry;
  ledger: LedgerSummary;
  programId: string;
  /** Chain time now, to tell whether the taker escrow is refundable yet. */
  chainNow: number;
}

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

export function renderTrade(input: TradeViewInput): TradeView {
  const { context } = input.snapshot;
  const substate = substateOf(input.snapshot as Parameters<typeof substateOf>[0]);
  const inputAsset = input.assets.find(context.inputMint);
  const outputAsset = input.assets.find(context.outputMint);
  const inputRaw = BigInt(context.inputAmountRaw);
  const outputRaw = BigInt(context.outputAmountRaw);
  const redeemBy = context.makerExpiry === null ? null : context.makerExpiry - context.landingMargin;
  const lockOnChain = context.takerLockTerms !== null;
  const view: TradeView = {
    trade_id: context.tradeId,
    quote_id: context.quoteId,
    run_id: context.runId,
    current_run: input.ownerRunId === input.currentRunId,
    taker_wallet: context.takerWallet,
    expires_at: iso(context.takerExpiry),
    created_at: input.createdAt,
    settlement_status: input.status,
    tx_signatures: context.signatures.map((s) => s.signature),
    tx_signature_kinds: context.signatures.map((s) => ({ kind: s.kind, signature: s.signature })),
    amounts: {
      input: inputAsset ? { asset: inputAsset.symbol, amount_raw: inputRaw } : null,
      output: outputAsset ? { asset: outputAsset.symbol, amount_raw: outputRaw } : null,
    },
    input: inputAsset ? amountView(inputRaw, inputAsset) : null,
    output: outputAsset ? amountView(outputRaw, outputAsset) : null,
    ledger_summary: input.ledger,
    integration_status: INTEGRATION_STATUS,
    substate,
    failure_reason: context.failureReason,
    lock_deadline: iso(context.lockDeadline),
    maker_expires_at: context.makerExpiry === null ? null : iso(context.makerExpiry),
    redeem_by: redeemBy === null ? null : iso(redeemBy),
    taker_escrow: context.takerEscrow,
    maker_escrow: context.makerEscrow,
    program_id: input.programId,
    // The commitment guards abandon: it is shown only once the lock (which reveals it anyway) is on chain.
    hashlock: lockOnChain ? context.secretHash : null,
  };
  const next = nextAction(substate, input.closed, context, input.chainNow, redeemBy);
  if (next) view.next_action = next;
  return view;
}

/** The step a taker's front end takes next, from where the trade is. */
export function nextAction(
  substate: string,
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
      if (redeemBy !== null && chainNow < redeemBy && !context.redeemRequested)
        return post('redeem', 'redeem');
      return takerRefundable ? post('refund', 'refund') : get('await_settlement');
    case 'initiated.refundingMakerEscrow':
    case 'initiated.awaitingTakerExpiry':
      return takerRefundable && !context.refundRequested ? post('refund', 'refund') : get('await_settlement');
    default:
      return get('await_settlement');
  }
}
