// Rendering the active swap: its steps (each with its transaction), what the taker may do now, and the
// message that says so.
import { FINAL_STATUSES, type Substate, type SwapRecord } from '@rfq-maker/taker';
import { type Command, rpcConfigured, state } from './context.ts';
import { $, amount, short, show, time } from './dom.ts';
import { lockRefused, renderReview } from './review.ts';

/** Whether the swap's trade is in one of these substates: typed, so a name the API does not publish fails to compile. */
export const inSubstate = (record: SwapRecord, ...substates: Substate[]): boolean =>
  substates.some((substate) => substate === record.substate);

interface Step {
  id: string;
  label: string;
  signature?: string | undefined;
  state: 'done' | 'current' | 'todo' | 'failed';
}

function steps(record: SwapRecord): Step[] {
  const trade = record.trade;
  const signature = (kind: string) => trade?.tx_signature_kinds.find((s) => s.kind === kind)?.signature;
  const status = record.status;
  const refunding =
    status === 'refunded' ||
    inSubstate(record, 'initiated.refundingMakerEscrow', 'initiated.awaitingTakerExpiry') ||
    trade?.next_action?.type === 'refund' ||
    signature('taker_refund') !== undefined;
  const list: Omit<Step, 'state'>[] = [
    { id: 'settlement', label: 'Secret stored here, settlement started', signature: undefined },
    {
      id: 'taker_lock',
      label: `Your lock: ${amount(record.input)} escrowed`,
      signature: signature('taker_lock'),
    },
  ];
  if (status === 'failed') {
    list.push({ id: 'cancelled', label: `Cancelled: ${trade?.failure_reason ?? 'the swap did not start'}` });
    if (signature('taker_refund'))
      list.push({ id: 'taker_refund', label: 'Your lock released', signature: signature('taker_refund') });
  } else {
    list.push({
      id: 'maker_lock',
      label: `Maker’s lock: ${amount(record.output)} escrowed for you`,
      signature: signature('maker_lock'),
    });
    if (refunding) {
      if (signature('maker_lock'))
        list.push({
          id: 'maker_refund',
          label: 'Maker’s escrow refunded',
          signature: signature('maker_refund'),
        });
      list.push({
        id: 'taker_refund',
        label: `Your refund: ${amount(record.input)} back`,
        signature: signature('taker_refund'),
      });
    } else {
      list.push(
        {
          id: 'taker_redeem',
          label: `Your redeem: ${amount(record.output)} to your wallet`,
          signature: signature('taker_redeem'),
        },
        { id: 'maker_redeem', label: 'Maker’s redeem: swap complete', signature: signature('maker_redeem') },
      );
    }
  }
  const final = status !== null && FINAL_STATUSES.includes(status);
  let current = false;
  return list.map((step) => {
    const done =
      step.id === 'settlement'
        ? record.tradeId !== null
        : step.id === 'cancelled' || step.signature !== undefined;
    if (step.id === 'cancelled') return { ...step, state: 'failed' };
    if (done) return { ...step, state: 'done' };
    if (!current && !final) {
      current = true;
      return { ...step, state: 'current' };
    }
    return { ...step, state: 'todo' };
  });
}

const STATE_WORDS = { done: 'done', current: 'in progress', todo: 'to come', failed: 'ended' } as const;

/** What the taker may do with a swap of this browser, from what the service last said of it. */
export function actions(record: SwapRecord): Command[] {
  if (!record.tradeId) return record.status === 'failed' ? ['forget'] : ['resume'];
  const trade = record.trade;
  if (inSubstate(record, 'pending.awaitingLock')) return ['resume', 'abandon'];
  if (trade?.next_action?.type === 'redeem') return ['redeem'];
  if (trade?.next_action?.type === 'refund') return ['refund'];
  if (record.status !== null && FINAL_STATUSES.includes(record.status))
    return trade?.next_action === undefined ? ['forget'] : [];
  return ['resume'];
}

function message(record: SwapRecord): string {
  const trade = record.trade;
  const wallet = record.wallet.name;
  if (!record.tradeId)
    return record.status === 'failed'
      ? `The swap did not start (${record.substate}); nothing left your wallet.`
      : 'Starting the settlement…';
  switch (record.status) {
    case 'redeemed':
      return `Done: ${amount(record.output)} is in your wallet.`;
    case 'refunded':
      return `Refunded: ${amount(record.input)} is back in your wallet.`;
    case 'failed':
      return `Cancelled (${trade?.failure_reason ?? 'no lock'}); nothing left your wallet but fees, if any.`;
    default:
      break;
  }
  if (inSubstate(record, 'pending.awaitingLock') && lockRefused(record))
    return `The lock the service handed out is not what you agreed to, so ${wallet} was not asked to sign it.`;
  if (inSubstate(record, 'pending.awaitingLock'))
    return `Read what ${wallet} will sign below, then sign the lock; it must land by ${time(trade?.lock_deadline)}.`;
  if (trade?.next_action?.type === 'redeem')
    return rpcConfigured
      ? `The maker has locked ${amount(record.output)} for you. Redeem it before ${time(trade.redeem_by)}: this page checks the maker’s lock on chain before your secret leaves. After that your input comes back at ${time(trade.expires_at)}.`
      : `The service says the maker has locked ${amount(record.output)}, but this page has no RPC to check it on chain (swap_page.rpc_url), so it will not reveal your secret; your input comes back at ${time(trade.expires_at)}.`;
  if (trade?.next_action?.type === 'refund')
    return `Your escrow has expired: refund ${amount(record.input)} to your wallet.`;
  if (inSubstate(record, 'initiated.awaitingTakerExpiry', 'initiated.refundingMakerEscrow'))
    return `The maker’s escrow expired unredeemed; your ${amount(record.input)} can be refunded from ${time(trade?.expires_at)}.`;
  if (inSubstate(record, 'initiated.makerLocked'))
    return 'Redeeming: the maker pays you as soon as it lands…';
  return 'Your lock is on its way; waiting for the maker to lock your output…';
}

export function setMessage(text: string): void {
  $('trade-message').textContent = text;
}

export function showTradeError(text: string): void {
  $('trade-error').textContent = text;
  show($('trade-error'), true);
}

export function renderActive(): void {
  const record = state.active;
  if (!record) return;
  const section = $('trade-section');
  section.dataset.tradeId = record.tradeId ?? '';
  section.dataset.status = record.status ?? '';
  section.dataset.substate = record.substate ?? '';
  section.dataset.busy = String(state.busy);
  $('trade-summary').textContent =
    `${amount(record.input)} for ${amount(record.output)} with ${record.wallet.name}${
      record.tradeId ? ` · trade ${record.tradeId}` : ''
    }`;
  $('steps').replaceChildren(
    ...steps(record).map((step) => {
      const li = document.createElement('li');
      li.dataset.step = step.id;
      li.dataset.state = step.state;
      if (step.state === 'current') li.setAttribute('aria-current', 'step');
      const badge = document.createElement('span');
      badge.className = 'state';
      badge.textContent = STATE_WORDS[step.state];
      li.append(badge, ` ${step.label}`);
      if (step.signature) {
        const code = document.createElement('code');
        code.title = step.signature;
        code.dataset.signature = step.signature;
        code.textContent = short(step.signature);
        li.append(' · transaction ', code);
      }
      return li;
    }),
  );
  if (!state.busy) setMessage(message(record));
  const allowed = actions(record);
  const button = (id: string, visible: boolean, label?: string) => {
    const b = $<HTMLButtonElement>(id);
    show(b, visible);
    b.disabled = state.busy;
    if (label) b.textContent = label;
  };
  if (!record.tradeId)
    button('sign-lock', !state.busy && record.status === null, 'Start the settlement again');
  else
    button(
      'sign-lock',
      inSubstate(record, 'pending.awaitingLock') && allowed.includes('resume') && !lockRefused(record),
      `Sign the lock with ${record.wallet.name}`,
    );
  button('abandon', allowed.includes('abandon'), 'Cancel the swap');
  button('redeem', allowed.includes('redeem'), `Redeem ${amount(record.output)}`);
  // The redeem the wallet itself sends (built here; the secret goes to the chain only): for the wallet the
  // swap is with, once connected.
  const sender = state.wallet?.address === record.wallet.address ? state.wallet : null;
  button('redeem-wallet', allowed.includes('redeem') && sender !== null, `Redeem from ${record.wallet.name}`);
  button('refund', allowed.includes('refund'), `Refund ${amount(record.input)}`);
  const final = record.status !== null && FINAL_STATUSES.includes(record.status);
  button('new-swap', final, 'New swap');
  renderReview(record);
}
