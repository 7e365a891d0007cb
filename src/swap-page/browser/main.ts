// The swap page's script: a firm quote for a pair and amount, then the swap itself — driven by the taker
// client package (@rfq-maker/taker): a secret made here and stored (IndexedDB, durably) before the service
// hears of the swap, the lock reviewed (decoded, checked, simulated, shown) and only then signed by the chosen
// wallet, progress followed live, the maker's lock checked on chain before the secret leaves, redeem or refund
// — and "my trades", this browser's swaps with what each allows. Its parts: context (config, client, state),
// wallets and wallet-panel, quote, swap, review (what the wallet will sign, before it is asked), render,
// history.

import type { Command } from './context.ts';
import { client, config, state } from './context.ts';
import { $, describe, show } from './dom.ts';
import { refreshHistory, renderHistory } from './history.ts';
import {
  clearQuote,
  inputAsset,
  outputAsset,
  renderOutputs,
  renderPairs,
  requestQuote,
  showQuoteError,
} from './quote.ts';
import { activate, command, startSwap } from './swap.ts';
import {
  connectChoice,
  fund,
  renderWalletChoices,
  setWallet,
  updateFundLabel,
  walletChoice,
} from './wallet-panel.ts';
import { devWallet } from './wallets.ts';

async function start(): Promise<void> {
  $('quote-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void requestQuote();
  });
  // The airdrop button names the input asset and the amount: it follows the quote form.
  inputAsset.addEventListener('change', () => {
    renderOutputs();
    updateFundLabel();
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
    state.pairs = await client.pairs();
    renderPairs();
    updateFundLabel();
  } catch (error) {
    showQuoteError(`Could not load the pairs: ${describe(error)}`);
  }
  const open = await refreshHistory();
  await renderHistory({ command, activate });
  if (open) activate(open);
  document.body.dataset.ready = 'true';
}

void start();
