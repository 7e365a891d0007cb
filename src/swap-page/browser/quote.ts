// The quote part of the page: pair and amount to a firm quote (output, spread, a countdown to its expiry, a
// refresh), or the maker's risk rejection in words.
import type { Quote } from '@rfq-maker/taker';
import { client, state } from './context.ts';
import { $, amount, describe, show, time } from './dom.ts';

export const inputAsset = $<HTMLSelectElement>('input-asset');
export const outputAsset = $<HTMLSelectElement>('output-asset');
let countdown: ReturnType<typeof setInterval> | undefined;

export function renderPairs(): void {
  const inputs = [...new Set(state.pairs.filter((p) => !p.paused).map((p) => p.input_asset))];
  inputAsset.replaceChildren(...inputs.map((symbol) => new Option(symbol, symbol)));
  renderOutputs();
}

export function renderOutputs(): void {
  const selected = outputAsset.value;
  const outputs = state.pairs.filter((p) => !p.paused && p.input_asset === inputAsset.value);
  outputAsset.replaceChildren(...outputs.map((p) => new Option(p.output_asset, p.output_asset)));
  if (outputs.some((p) => p.output_asset === selected)) outputAsset.value = selected;
  const pair = outputs.find((p) => p.output_asset === outputAsset.value);
  $('amount-hint').textContent = pair ? `${pair.min_input} to ${pair.max_input} ${pair.input_asset}` : '';
}

export function updateQuoteButton(): void {
  const button = $<HTMLButtonElement>('get-quote');
  button.disabled = state.wallet === null;
  button.title = state.wallet ? '' : 'Connect a wallet first';
}

export function clearQuote(): void {
  state.quote = null;
  $('quote-status').textContent = '';
  clearInterval(countdown);
  show($('quote'), false);
  show($('rejection'), false);
  show($('quote-error'), false);
}

export async function requestQuote(): Promise<void> {
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
    const answer = await client.quote({
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

export function showQuoteError(message: string): void {
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
