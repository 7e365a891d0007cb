// The swap part of the page: a swap started from the quote (the secret stored in IndexedDB first, by the
// taker client), the lock reviewed (review.ts) and signed by the swap's wallet only once it passed, progress
// followed live, and each command on a swap — resume, abandon, redeem (after the maker's lock passed every
// check on chain), refund, forget.
import {
  isMakerError,
  LockNotVerifiedError,
  type SwapRecord,
  type Trade,
  type TradeEvent,
  type Verification,
} from '@rfq-maker/taker';
import { type Command, client, rpcConfigured, state } from './context.ts';
import { $, describe, short, show, time } from './dom.ts';
import { renderHistory } from './history.ts';
import { clearQuote, showQuoteError } from './quote.ts';
import { inSubstate, renderActive, setMessage, showTradeError } from './render.ts';
import { reviewLock } from './review.ts';
import { walletFor } from './wallet-panel.ts';
import { walletRef } from './wallets.ts';

/** "My trades" drawn again, its rows' buttons running this part's commands. */
const redrawHistory = () => renderHistory({ command, activate });

/** Swap: the secret is made and committed to IndexedDB first; only then does the service hear of it. */
export async function startSwap(): Promise<void> {
  const quote = state.quote;
  const wallet = state.wallet;
  if (!quote || !wallet || state.busy) return;
  state.busy = true;
  $<HTMLButtonElement>('swap').disabled = true;
  let record: SwapRecord | null = null;
  try {
    // No secret is made for a swap whose terms the client cannot pin (a maker key or mint missing off the
    // embedded chain, a quote naming another mint than the one pinned): it is refused at the quote.
    record = await client.prepare(quote, walletRef(wallet));
    clearQuote();
    activate(record);
    await settle(record);
    // What the wallet will sign, shown before it is asked; a lock that fails a check is refused here.
    await reviewLock(record);
  } catch (error) {
    if (record) showTradeError(describe(error));
    else showQuoteError(`The swap did not start: ${describe(error)}`);
  } finally {
    state.busy = false;
    renderActive();
    await redrawHistory();
  }
}

/** The settlement (a retry answers the same trade with a fresh lock), then the trade followed. */
async function settle(record: SwapRecord): Promise<void> {
  await client.settle(record);
  if (state.active?.secretHash === record.secretHash) follow(record);
}

/** Runs one command on a swap of this browser; the swap becomes the active one. */
export async function command(target: SwapRecord, name: Command): Promise<void> {
  if (state.busy) return;
  if (name === 'forget') {
    await forget(target);
    await redrawHistory();
    return;
  }
  // One object per swap: the active one, if this is it (a list row holds a copy read from the store).
  if (state.active?.secretHash !== target.secretHash) activate(target);
  const record = state.active ?? target;
  state.busy = true;
  show($('trade-error'), false);
  $('trade-notice').textContent = '';
  renderActive();
  try {
    await COMMANDS[name](record);
  } catch (error) {
    showTradeError(describe(error));
  } finally {
    state.busy = false;
    state.follower?.refresh();
    renderActive();
    await redrawHistory();
  }
}

/** What each command does to the active swap; forget is handled apart (it runs on no active swap). */
const COMMANDS: Record<Exclude<Command, 'forget'>, (record: SwapRecord) => Promise<void>> = {
  resume,
  abandon: async (record) => {
    await client.abandon(record);
    if (!state.follower) follow(record);
  },
  redeem: redeemViaService,
  'redeem-wallet': redeemFromWallet,
  refund,
};

/** Settles a swap that has no trade yet; signs the lock of one waiting for it, reviewed again first. */
async function resume(record: SwapRecord): Promise<void> {
  if (!record.tradeId) {
    await settle(record);
    return;
  }
  if (!inSubstate(record, 'pending.awaitingLock')) return;
  // Reviewed again right before signing (a stale lock is settled afresh): the summary on the page is
  // the lock the wallet gets; a refused one never reaches the wallet.
  setMessage('Checking the lock before your wallet sees it…');
  if (!(await reviewLock(record))) return;
  const wallet = await walletFor(record);
  const hadTrade = record.tradeId !== null;
  await client.lock(record, wallet, (step) =>
    setMessage(
      step === 'signing'
        ? `Waiting for ${wallet.name} to sign the lock…`
        : 'Lock signed; the service is sending it and waiting for it on chain…',
    ),
  );
  if (!hadTrade || !state.follower) follow(record);
}

/** The service redeems for the taker; should it not in time, the wallet redeems (the client watches). */
async function redeemViaService(record: SwapRecord): Promise<void> {
  requireRpc();
  const wallet = await walletFor(record);
  setMessage('Checking the maker’s lock on chain before revealing your secret…');
  const outcome = await verified(() =>
    client.redeem(record, { via: 'service', fallback: wallet }, (step) =>
      setMessage(
        step === 'revealed'
          ? 'The service is redeeming for you; if it does not in time, your wallet will.'
          : `The service did not redeem in time: ${wallet.name} signs and sends the redeem…`,
      ),
    ),
  );
  $('trade-notice').textContent = outcome.fellBack
    ? `The maker’s lock passed all ${outcome.verification.checks.length} checks on chain; the service did not redeem in time, so ${wallet.name} did.`
    : `The maker’s lock passed all ${outcome.verification.checks.length} checks on chain; the service redeemed for you.`;
}

/** The trustless way: the redeem is built here and sent by the wallet; the secret goes to the chain only. */
async function redeemFromWallet(record: SwapRecord): Promise<void> {
  requireRpc();
  const wallet = await walletFor(record);
  setMessage(`Checking the maker’s lock on chain, then ${wallet.name} signs and sends the redeem…`);
  const outcome = await verified(() => client.redeem(record, { via: 'chain', wallet }));
  $('trade-notice').textContent =
    `${wallet.name} sent the redeem (${short(outcome.signature ?? '')}); waiting for the service to see it.`;
}

async function refund(record: SwapRecord): Promise<void> {
  setMessage('Refunding your escrow…');
  try {
    await client.refund(record, { via: 'service' });
  } catch (error) {
    if (!isMakerError(error, 'not_refundable')) throw error;
    // The maker's side settles first, or the runtime is refunding already: it refunds expired escrows
    // by itself, and the page keeps watching.
    $('trade-notice').textContent =
      'The service is settling the maker’s escrow first; your refund follows. This page keeps watching.';
  }
}

/** No redeem without an RPC to check the maker's lock through (a cluster's page without swap_page.rpc_url). */
function requireRpc(): void {
  if (!rpcConfigured)
    throw new Error(
      'This page has no RPC to check the maker’s lock through (the operator sets swap_page.rpc_url), so your secret stays here; your input comes back by refund after its expiry.',
    );
}

/** Runs a redeem, showing the checks it was judged by, passed or not. */
async function verified<T extends { verification: Verification }>(redeem: () => Promise<T>): Promise<T> {
  try {
    const outcome = await redeem();
    showChecks(outcome.verification);
    return outcome;
  } catch (error) {
    if (error instanceof LockNotVerifiedError) showChecks(error.verification);
    throw error;
  }
}

function showChecks(verification: Verification): void {
  $('checks').replaceChildren(
    ...verification.checks.map((check) => {
      const li = document.createElement('li');
      li.dataset.check = check.name;
      li.dataset.ok = String(check.ok);
      li.textContent = `${check.ok ? '✓' : '✗'} ${check.name.replaceAll('_', ' ')}: ${check.detail}`;
      return li;
    }),
  );
  const details = $<HTMLDetailsElement>('verification');
  details.dataset.ok = String(verification.ok);
  details.open = !verification.ok;
  show(details, true);
}

/** Drops a finished swap from this browser; its secret has no use left. */
async function forget(record: SwapRecord): Promise<void> {
  if (state.active?.secretHash === record.secretHash) {
    state.follower?.stop();
    state.active = null;
    show($('trade-section'), false);
  }
  await client.forget(record);
  $('history-heading').focus();
}

export function activate(record: SwapRecord): void {
  state.follower?.stop();
  state.follower = null;
  state.active = record;
  $('event-log').replaceChildren();
  $('trade-notice').textContent = '';
  show($('trade-section'), true);
  show($('trade-error'), false);
  show($('verification'), false);
  if (state.review?.secretHash !== record.secretHash) state.review = null;
  renderActive();
  if (record.tradeId) follow(record);
  $('trade-heading').focus();
  // A swap opened while its lock waits to be signed (after a reload, from "my trades"): its lock reviewed now,
  // so that what the wallet would sign is on the page before anyone asks it to.
  if (record.tradeId && inSubstate(record, 'pending.awaitingLock'))
    void reviewLock(record).then(renderActive, (error: unknown) => showTradeError(describe(error)));
}

function follow(record: SwapRecord): void {
  if (!record.tradeId) return;
  state.follower?.stop();
  state.follower = client.follow(record, {
    onTrade: (trade, event) => updateTrade(record, trade, event),
    onMode: (mode) => {
      $('follow-mode').textContent = mode === 'stream' ? 'live' : 'polling';
      $('follow-mode').dataset.mode = mode;
    },
    onError: (error) => showTradeError(describe(error)),
  });
}

/** A view of the trade the client has stored into the record: the event logged, the page redrawn. */
function updateTrade(record: SwapRecord, _trade: Trade, event: TradeEvent | null): void {
  if (event) {
    const li = document.createElement('li');
    li.textContent = `${time(event.at)} ${event.type} → ${event.substate}`;
    $('event-log').append(li);
  }
  void redrawHistory();
  if (state.active?.secretHash === record.secretHash) renderActive();
}
