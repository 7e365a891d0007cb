// The swap page's script: a firm quote for a pair and amount, then the swap itself — a secret made here and
// stored (IndexedDB, durably) before the service hears of the swap, the lock signed by the chosen wallet,
// progress followed live, redeem or refund — and "my trades", this browser's swaps with what each allows.
import {
  api,
  FINAL_STATUSES,
  type Pair,
  type Quote,
  ServiceError,
  type Trade,
  type TradeEvent,
} from './api.ts';
import { type Follower, followTrade } from './follow.ts';
import { newSecret } from './secret.ts';
import { type SwapRecord, store } from './store.ts';
import { connectStandard, DEV_WALLET_NAME, devWallet, type SwapWallet, standardWallets } from './wallets.ts';

/** An unsigned lock older than this is rebuilt on a fresh blockhash (the settlement retry) before signing. */
const LOCK_FRESH_MS = 30_000;

const config = JSON.parse(document.getElementById('swap-config')?.textContent ?? '{}') as {
  devWallet?: boolean;
};

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
};
const show = (element: HTMLElement, visible: boolean) => {
  element.hidden = !visible;
};
const time = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleTimeString() : '—');
const amount = (view: { amount: string; asset: string } | null | undefined) =>
  view ? `${view.amount} ${view.asset}` : '—';
const short = (signature: string) => `${signature.slice(0, 8)}…${signature.slice(-8)}`;
const describe = (error: unknown) =>
  error instanceof ServiceError
    ? `${error.message}${error.details.length ? ` (${error.details.join('; ')})` : ''}`
    : (error as Error).message;

// ── State ───────────────────────────────────────────────────────────────────────────────────────

const state = {
  pairs: [] as Pair[],
  dev: null as SwapWallet | null,
  wallet: null as SwapWallet | null,
  quote: null as Quote | null,
  /** The swap shown in the trade section, and what follows it. */
  active: null as SwapRecord | null,
  follower: null as Follower | null,
  /** One command at a time on the active swap. */
  busy: false,
};

// ── Wallets ─────────────────────────────────────────────────────────────────────────────────────

const walletChoice = $<HTMLSelectElement>('wallet-choice');
const registered = standardWallets(() => renderWalletChoices());

function renderWalletChoices(): void {
  const selected = walletChoice.value;
  walletChoice.replaceChildren();
  if (state.dev) walletChoice.append(new Option(DEV_WALLET_NAME, 'dev'));
  for (const wallet of registered()) walletChoice.append(new Option(wallet.name, `standard:${wallet.name}`));
  if (walletChoice.options.length === 0) {
    walletChoice.append(new Option('No wallet found: install a Solana wallet', ''));
  }
  if ([...walletChoice.options].some((o) => o.value === selected)) walletChoice.value = selected;
  $<HTMLButtonElement>('connect-wallet').disabled = walletChoice.value === '';
}

function setWallet(wallet: SwapWallet | null): void {
  if (state.wallet?.address !== wallet?.address) clearQuote();
  state.wallet = wallet;
  $('wallet-status').textContent = wallet
    ? `Connected: ${wallet.name}, ${wallet.address}`
    : 'No wallet connected.';
  $('wallet-status').dataset.address = wallet?.address ?? '';
  show($('dev-funding'), wallet?.kind === 'dev');
  updateFundLabel();
  updateQuoteButton();
}

async function connectChoice(): Promise<void> {
  const choice = walletChoice.value;
  try {
    if (choice === 'dev') setWallet(state.dev);
    else if (choice.startsWith('standard:')) {
      const wallet = registered().find((w) => `standard:${w.name}` === choice);
      if (!wallet) throw new Error('That wallet is no longer registered.');
      setWallet(await connectStandard(wallet));
    }
  } catch (error) {
    $('wallet-status').textContent = `Could not connect: ${describe(error)}`;
  }
}

/** The wallet a swap was started with, connected again if need be (after a reload, or another choice). */
async function walletFor(record: SwapRecord): Promise<SwapWallet> {
  if (state.wallet?.address === record.wallet.address) return state.wallet;
  if (record.wallet.kind === 'dev') {
    if (state.dev?.address !== record.wallet.address)
      throw new Error('This browser’s dev wallet has changed.');
    setWallet(state.dev);
    walletChoice.value = 'dev';
    return state.dev;
  }
  const wallet = registered().find((w) => w.name === record.wallet.name);
  if (!wallet)
    throw new Error(`${record.wallet.name} is not available: open the page where it is installed.`);
  const connected = await connectStandard(wallet, record.wallet.address);
  setWallet(connected);
  walletChoice.value = `standard:${wallet.name}`;
  return connected;
}

function updateFundLabel(): void {
  const asset = $<HTMLSelectElement>('input-asset').value;
  const value = $<HTMLInputElement>('amount').value.trim();
  $('fund-wallet').textContent = `Airdrop ${value || '0'} ${asset} (test funds)`;
}

async function fund(): Promise<void> {
  const wallet = state.wallet;
  if (!wallet) return;
  const asset = $<HTMLSelectElement>('input-asset').value;
  const value = $<HTMLInputElement>('amount').value.trim();
  const button = $<HTMLButtonElement>('fund-wallet');
  button.disabled = true;
  $('fund-status').textContent = 'Funding…';
  try {
    await api.airdrop({ wallet: wallet.address, asset, amount: value });
    $('fund-status').textContent = `Funded ${value} ${asset} plus SOL for fees.`;
  } catch (error) {
    $('fund-status').textContent = `Airdrop refused: ${describe(error)}`;
  } finally {
    button.disabled = false;
  }
}

// ── Quote ───────────────────────────────────────────────────────────────────────────────────────

const inputAsset = $<HTMLSelectElement>('input-asset');
const outputAsset = $<HTMLSelectElement>('output-asset');
let countdown: ReturnType<typeof setInterval> | undefined;

function renderPairs(): void {
  const inputs = [...new Set(state.pairs.filter((p) => !p.paused).map((p) => p.input_asset))];
  inputAsset.replaceChildren(...inputs.map((symbol) => new Option(symbol, symbol)));
  renderOutputs();
}

function renderOutputs(): void {
  const selected = outputAsset.value;
  const outputs = state.pairs.filter((p) => !p.paused && p.input_asset === inputAsset.value);
  outputAsset.replaceChildren(...outputs.map((p) => new Option(p.output_asset, p.output_asset)));
  if (outputs.some((p) => p.output_asset === selected)) outputAsset.value = selected;
  const pair = outputs.find((p) => p.output_asset === outputAsset.value);
  $('amount-hint').textContent = pair ? `${pair.min_input} to ${pair.max_input} ${pair.input_asset}` : '';
  updateFundLabel();
}

function updateQuoteButton(): void {
  const button = $<HTMLButtonElement>('get-quote');
  button.disabled = state.wallet === null;
  button.title = state.wallet ? '' : 'Connect a wallet first';
}

function clearQuote(): void {
  state.quote = null;
  $('quote-status').textContent = '';
  clearInterval(countdown);
  show($('quote'), false);
  show($('rejection'), false);
  show($('quote-error'), false);
}

async function requestQuote(): Promise<void> {
  const wallet = state.wallet;
  const amountInput = $<HTMLInputElement>('amount');
  clearQuote();
  if (!wallet) return;
  if (!amountInput.checkValidity()) {
    showQuoteError('Enter the amount as a decimal number, e.g. 1.5.');
    amountInput.focus();
    return;
  }
  const button = $<HTMLButtonElement>('get-quote');
  button.disabled = true;
  try {
    const answer = await api.rfq({
      input_asset: inputAsset.value,
      output_asset: outputAsset.value,
      amount: amountInput.value.trim(),
      taker_wallet: wallet.address,
    });
    if (answer.status === 'rejected') {
      $('rejection-reasons').replaceChildren(
        ...answer.reasons.map((reason) => {
          const li = document.createElement('li');
          li.dataset.check = reason.check;
          li.textContent = reason.message;
          return li;
        }),
      );
      show($('rejection'), true);
      return;
    }
    showQuote(answer);
  } catch (error) {
    showQuoteError(describe(error));
  } finally {
    button.disabled = state.wallet === null;
  }
}

function showQuoteError(message: string): void {
  $('quote-error').textContent = message;
  show($('quote-error'), true);
}

function showQuote(quote: Quote): void {
  state.quote = quote;
  $('quote-input').textContent = amount(quote.input);
  $('quote-output').textContent = amount(quote.output);
  $('quote-spread').textContent = `${quote.spread_bps} bps (${(quote.spread_bps / 100).toFixed(2)} %)`;
  $('quote').dataset.quoteId = quote.quote_id;
  show($('quote'), true);
  // Announced once; the countdown itself is not a live region, or it would be read out every second.
  $('quote-status').textContent =
    `Quote: ${amount(quote.input)} for ${amount(quote.output)}, valid until ${time(quote.expires_at)}.`;
  const tick = () => {
    const left = Math.max(0, Math.floor((Date.parse(quote.expires_at) - Date.now()) / 1000));
    const label = $('quote-countdown');
    label.dataset.expired = String(left === 0);
    label.textContent = left > 0 ? `${left} s` : 'expired: refresh the quote';
    $<HTMLButtonElement>('swap').disabled = left === 0 || state.busy;
    if (left === 0) clearInterval(countdown);
  };
  clearInterval(countdown);
  tick();
  countdown = setInterval(tick, 1000);
}

// ── The swap ────────────────────────────────────────────────────────────────────────────────────

/** Swap: the secret is made and committed to IndexedDB first; only then does the service hear of it. */
async function startSwap(): Promise<void> {
  const quote = state.quote;
  const wallet = state.wallet;
  if (!quote || !wallet || state.busy) return;
  state.busy = true;
  $<HTMLButtonElement>('swap').disabled = true;
  try {
    const secret = await newSecret();
    const record: SwapRecord = {
      secretHash: secret.secretHash,
      preimage: secret.preimage,
      wallet: { kind: wallet.kind, name: wallet.name, address: wallet.address },
      quoteId: quote.quote_id,
      input: quote.input,
      output: quote.output,
      spreadBps: quote.spread_bps,
      createdAt: new Date().toISOString(),
      tradeId: null,
      lockIssuedAt: null,
      lockTransaction: null,
      status: null,
      substate: null,
      trade: null,
      lastSeq: 0,
    };
    await store.putSwap(record);
    clearQuote();
    activate(record);
    await settle(record);
  } catch (error) {
    showTradeError(describe(error));
  } finally {
    state.busy = false;
    renderActive();
    await renderHistory();
  }
}

/**
 * POST wallet-settlement with the record's wallet and secret_hash: the first call creates the trade (201);
 * a retry answers the same trade with a lock on a fresh blockhash (200).
 */
async function settle(record: SwapRecord): Promise<void> {
  let settlement: Awaited<ReturnType<typeof api.startSettlement>>;
  try {
    settlement = await api.startSettlement(record.quoteId, {
      taker_wallet: record.wallet.address,
      secret_hash: record.secretHash,
    });
  } catch (error) {
    // No lock was ever handed out for this commitment, so nothing of it can be on chain: the swap never
    // started, and its secret may go.
    if (!record.tradeId && error instanceof ServiceError && NEVER_STARTED.includes(error.code)) {
      record.status = 'failed';
      record.substate = `not started: ${error.message}`;
      await store.putSwap(record);
    }
    throw error;
  }
  record.tradeId = settlement.trade_id;
  record.lockTransaction = settlement.taker_lock_transaction.transaction_base64;
  record.lockIssuedAt = Date.now();
  if (record.status === null) {
    record.status = 'pending';
    record.substate = 'pending.awaitingLock';
  }
  await store.putSwap(record);
  if (state.active?.secretHash === record.secretHash) follow(record);
}

/** Settlement refusals after which the quote can never settle with this commitment. */
const NEVER_STARTED = ['quote_expired', 'quote_already_used', 'quote_not_found', 'lock_window_closed'];

/** The wallet signs the lock (refreshed first if old), the service submits it and answers once it is on chain. */
async function signLock(record: SwapRecord): Promise<void> {
  const wallet = await walletFor(record);
  if (!record.tradeId || !record.lockTransaction || Date.now() - (record.lockIssuedAt ?? 0) > LOCK_FRESH_MS)
    await settle(record);
  setMessage(`Waiting for ${wallet.name} to sign the lock…`);
  let signed = await wallet.signTransaction(record.lockTransaction as string);
  setMessage('Lock signed; the service is sending it and waiting for it on chain…');
  for (let attempt = 1; ; attempt++) {
    try {
      updateTrade(record, await api.lock(record.tradeId as string, signed), null);
      return;
    } catch (error) {
      if (!(error instanceof ServiceError) || attempt >= 4) throw error;
      if (error.code === 'lock_not_found') continue; // not on chain yet: the same transaction again
      if (error.status !== 400 || attempt > 1) throw error;
      // Refused as sent (its blockhash expired while the wallet was asking): a fresh lock, signed again.
      await settle(record);
      signed = await wallet.signTransaction(record.lockTransaction as string);
    }
  }
}

type Command = 'resume' | 'abandon' | 'redeem' | 'redeem-wallet' | 'refund' | 'forget';

/** Runs one command on a swap of this browser; the swap becomes the active one. */
async function command(target: SwapRecord, name: Command): Promise<void> {
  if (state.busy) return;
  if (name === 'forget') {
    await forget(target);
    await renderHistory();
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
    switch (name) {
      case 'resume':
        if (!record.tradeId) await settle(record);
        else if (record.substate === 'pending.awaitingLock') await signLock(record);
        break;
      case 'abandon':
        if (!record.tradeId) await settle(record);
        updateTrade(record, await api.abandon(record.tradeId as string, record.secretHash), null);
        break;
      case 'redeem':
        setMessage('Redeeming with your secret…');
        updateTrade(record, await api.redeem(record.tradeId as string, record.preimage), null);
        break;
      case 'redeem-wallet': {
        // The trustless way: the wallet signs and sends the redeem itself; the service sees it on chain.
        const wallet = await walletFor(record);
        if (!wallet.signAndSend) throw new Error(`${wallet.name} cannot send transactions itself.`);
        const { transaction } = await api.walletRedeem(record.tradeId as string, record.preimage);
        setMessage(`Waiting for ${wallet.name} to sign and send the redeem…`);
        const signature = await wallet.signAndSend(transaction.transaction_base64);
        $('trade-notice').textContent =
          `${wallet.name} sent the redeem (${short(signature)}); waiting for the chain.`;
        break;
      }
      case 'refund':
        setMessage('Refunding your escrow…');
        try {
          updateTrade(record, await api.refund(record.tradeId as string), null);
        } catch (error) {
          if (!(error instanceof ServiceError) || error.code !== 'not_refundable') throw error;
          // The maker's side settles first, or the runtime is refunding already: it refunds expired escrows
          // by itself, and the page keeps watching.
          $('trade-notice').textContent =
            'The service is settling the maker’s escrow first; your refund follows. This page keeps watching.';
        }
        break;
    }
  } catch (error) {
    showTradeError(describe(error));
  } finally {
    state.busy = false;
    state.follower?.refresh();
    renderActive();
    await renderHistory();
  }
}

/** Drops a finished swap from this browser; its secret has no use left. */
async function forget(record: SwapRecord): Promise<void> {
  if (state.active?.secretHash === record.secretHash) {
    state.follower?.stop();
    state.active = null;
    show($('trade-section'), false);
  }
  await store.deleteSwap(record.secretHash);
  $('history-heading').focus();
}

function activate(record: SwapRecord): void {
  state.follower?.stop();
  state.follower = null;
  state.active = record;
  $('event-log').replaceChildren();
  $('trade-notice').textContent = '';
  show($('trade-section'), true);
  show($('trade-error'), false);
  renderActive();
  if (record.tradeId) follow(record);
  $('trade-heading').focus();
}

function follow(record: SwapRecord): void {
  if (!record.tradeId) return;
  state.follower?.stop();
  state.follower = followTrade(record.tradeId, {
    after: record.lastSeq,
    onTrade: (trade, event) => updateTrade(record, trade, event),
    onMode: (mode) => {
      $('follow-mode').textContent = mode === 'stream' ? 'live' : 'polling';
      $('follow-mode').dataset.mode = mode;
    },
    onError: (error) => showTradeError(describe(error)),
  });
}

const STATUS_RANK = { pending: 0, initiated: 1, redeemed: 2, refunded: 2, failed: 2 } as const;

/**
 * Whether `trade` is an older view than `seen`: answers cross (a command's answer can arrive after the stream
 * has told of later events), and a trade only ever gains signatures and moves forward in status.
 */
function isOlder(trade: Trade, seen: Trade): boolean {
  const [a, b] = [trade.tx_signature_kinds.length, seen.tx_signature_kinds.length];
  return a < b || (a === b && STATUS_RANK[trade.settlement_status] < STATUS_RANK[seen.settlement_status]);
}

function updateTrade(record: SwapRecord, trade: Trade, event: TradeEvent | null): void {
  if (event) {
    record.lastSeq = Math.max(record.lastSeq, event.seq);
    const li = document.createElement('li');
    li.textContent = `${time(event.at)} ${event.type} → ${event.substate}`;
    $('event-log').append(li);
  }
  if (record.trade && record.trade.trade_id === trade.trade_id && isOlder(trade, record.trade)) return;
  record.trade = trade;
  record.status = trade.settlement_status;
  record.substate = trade.substate;
  void store.putSwap(record).then(renderHistory);
  if (state.active?.secretHash === record.secretHash) renderActive();
}

// ── Rendering the active swap ───────────────────────────────────────────────────────────────────

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
    record.substate === 'initiated.refundingMakerEscrow' ||
    record.substate === 'initiated.awaitingTakerExpiry' ||
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
function actions(record: SwapRecord): Command[] {
  if (!record.tradeId) return record.status === 'failed' ? ['forget'] : ['resume'];
  const trade = record.trade;
  if (record.substate === 'pending.awaitingLock') return ['resume', 'abandon'];
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
  if (record.substate === 'pending.awaitingLock')
    return `Sign the lock with ${wallet}: ${amount(record.input)} goes into an escrow only you can refund after ${time(trade?.expires_at)}, unless the maker receives your secret. The lock must land by ${time(trade?.lock_deadline)}.`;
  if (trade?.next_action?.type === 'redeem')
    return `The maker has locked ${amount(record.output)} for you. Redeem it before ${time(trade.redeem_by)}; after that your input comes back at ${time(trade.expires_at)}.`;
  if (trade?.next_action?.type === 'refund')
    return `Your escrow has expired: refund ${amount(record.input)} to your wallet.`;
  if (
    record.substate === 'initiated.awaitingTakerExpiry' ||
    record.substate === 'initiated.refundingMakerEscrow'
  )
    return `The maker’s escrow expired unredeemed; your ${amount(record.input)} can be refunded from ${time(trade?.expires_at)}.`;
  if (record.substate === 'initiated.makerLocked')
    return 'Redeeming: the maker pays you as soon as it lands…';
  return 'Your lock is on its way; waiting for the maker to lock your output…';
}

function setMessage(text: string): void {
  $('trade-message').textContent = text;
}

function showTradeError(text: string): void {
  $('trade-error').textContent = text;
  show($('trade-error'), true);
}

function renderActive(): void {
  const record = state.active;
  if (!record) return;
  const section = $('trade-section');
  section.dataset.tradeId = record.tradeId ?? '';
  section.dataset.status = record.status ?? '';
  section.dataset.substate = record.substate ?? '';
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
      record.substate === 'pending.awaitingLock' && allowed.includes('resume'),
      `Sign the lock with ${record.wallet.name}`,
    );
  button('abandon', allowed.includes('abandon'), 'Cancel the swap');
  button('redeem', allowed.includes('redeem'), `Redeem ${amount(record.output)}`);
  const sender = state.wallet?.address === record.wallet.address ? state.wallet : null;
  button(
    'redeem-wallet',
    allowed.includes('redeem') && sender?.signAndSend !== undefined,
    `Redeem from ${record.wallet.name}`,
  );
  button('refund', allowed.includes('refund'), `Refund ${amount(record.input)}`);
  const final = record.status !== null && FINAL_STATUSES.includes(record.status);
  button('new-swap', final, 'New swap');
}

// ── My trades ───────────────────────────────────────────────────────────────────────────────────

const ACTION_LABELS: Record<Command, string> = {
  resume: 'Resume',
  abandon: 'Abandon',
  redeem: 'Redeem',
  'redeem-wallet': 'Redeem from the wallet',
  refund: 'Refund',
  forget: 'Forget',
};

async function renderHistory(): Promise<void> {
  const records = await store.swaps();
  show($('no-trades'), records.length === 0);
  $('my-trades').replaceChildren(
    ...records.map((record) => {
      const li = document.createElement('li');
      li.dataset.secretHash = record.secretHash;
      li.dataset.tradeId = record.tradeId ?? '';
      li.dataset.status = record.status ?? 'not started';
      const title = document.createElement('div');
      const status = document.createElement('span');
      status.className = 'status';
      status.textContent = record.status ?? 'not started';
      title.append(
        status,
        ` · ${amount(record.input)} → ${amount(record.output)} · ${new Date(record.createdAt).toLocaleString()}`,
      );
      const detail = document.createElement('div');
      detail.className = 'meta';
      detail.textContent = `${record.wallet.name} · ${record.substate ?? 'settlement not started'}${
        record.tradeId ? ` · trade ${record.tradeId}` : ''
      }`;
      const row = document.createElement('div');
      row.className = 'row';
      for (const action of actions(record)) {
        const b = document.createElement('button');
        b.type = 'button';
        b.dataset.action = action;
        b.textContent = ACTION_LABELS[action];
        b.setAttribute(
          'aria-label',
          `${ACTION_LABELS[action]} the swap of ${amount(record.input)} for ${amount(record.output)}`,
        );
        b.addEventListener('click', () => void command(record, action));
        row.append(b);
      }
      if (state.active?.secretHash !== record.secretHash) {
        const open = document.createElement('button');
        open.type = 'button';
        open.dataset.action = 'show';
        open.textContent = 'Show';
        open.setAttribute(
          'aria-label',
          `Show the swap of ${amount(record.input)} for ${amount(record.output)}`,
        );
        open.addEventListener('click', () => activate(record));
        row.append(open);
      }
      li.append(title, detail, row);
      return li;
    }),
  );
}

/** After a reload: every unfinished swap of this browser read again from the service. */
async function refreshHistory(): Promise<SwapRecord | null> {
  const records = await store.swaps();
  let newestOpen: SwapRecord | null = null;
  for (const record of records) {
    const open =
      record.status === null || !FINAL_STATUSES.includes(record.status) || record.trade?.next_action;
    if (!open) continue;
    newestOpen ??= record;
    if (!record.tradeId) continue;
    try {
      const trade = await api.trade(record.tradeId);
      record.trade = trade;
      record.status = trade.settlement_status;
      record.substate = trade.substate;
      await store.putSwap(record);
    } catch {
      // Shown as last known; the service may be restarting.
    }
  }
  return newestOpen;
}

// ── Start ───────────────────────────────────────────────────────────────────────────────────────

async function start(): Promise<void> {
  $('quote-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void requestQuote();
  });
  inputAsset.addEventListener('change', () => {
    renderOutputs();
    clearQuote();
  });
  outputAsset.addEventListener('change', clearQuote);
  $('amount').addEventListener('input', () => {
    updateFundLabel();
    clearQuote();
  });
  $('refresh-quote').addEventListener('click', () => void requestQuote());
  $('swap').addEventListener('click', () => void startSwap());
  $('connect-wallet').addEventListener('click', () => void connectChoice());
  walletChoice.addEventListener('change', () => void connectChoice());
  $('fund-wallet').addEventListener('click', () => void fund());
  const onActive = (name: Command) => () => {
    if (state.active) void command(state.active, name);
  };
  $('sign-lock').addEventListener('click', onActive('resume'));
  $('abandon').addEventListener('click', onActive('abandon'));
  $('redeem').addEventListener('click', onActive('redeem'));
  $('redeem-wallet').addEventListener('click', onActive('redeem-wallet'));
  $('refund').addEventListener('click', onActive('refund'));
  $('new-swap').addEventListener('click', () => {
    state.follower?.stop();
    state.active = null;
    show($('trade-section'), false);
    $('swap-heading').focus();
  });

  if (config.devWallet) state.dev = await devWallet();
  renderWalletChoices();
  setWallet(state.dev);
  if (config.devWallet && !state.dev)
    $('wallet-status').textContent =
      'This browser has no WebCrypto Ed25519 for the built-in dev wallet: connect a Solana wallet.';
  try {
    state.pairs = await api.pairs();
    renderPairs();
  } catch (error) {
    showQuoteError(`Could not load the pairs: ${describe(error)}`);
  }
  const open = await refreshHistory();
  await renderHistory();
  if (open) activate(open);
  document.body.dataset.ready = 'true';
}

void start();
