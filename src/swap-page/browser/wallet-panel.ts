// The wallet part of the page: choose and connect a wallet (the dev wallet, or one registered through the
// Wallet Standard), find a swap's wallet again after a reload, and fund the dev wallet with the airdrop.
import type { SwapRecord } from '@rfq-maker/taker';
import { client, type SwapWallet, state } from './context.ts';
import { $, describe, show } from './dom.ts';
import { clearQuote, updateQuoteButton } from './quote.ts';
import { connectStandard, DEV_WALLET_NAME, standardWallets } from './wallets.ts';

export const walletChoice = $<HTMLSelectElement>('wallet-choice');
const registered = standardWallets(() => renderWalletChoices());

export function renderWalletChoices(): void {
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

export function setWallet(wallet: SwapWallet | null): void {
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

export async function connectChoice(): Promise<void> {
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
export async function walletFor(record: SwapRecord): Promise<SwapWallet> {
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

export function updateFundLabel(): void {
  const asset = $<HTMLSelectElement>('input-asset').value;
  const value = $<HTMLInputElement>('amount').value.trim();
  $('fund-wallet').textContent = `Airdrop ${value || '0'} ${asset} (test funds)`;
}

export async function fund(): Promise<void> {
  const wallet = state.wallet;
  if (!wallet) return;
  const asset = $<HTMLSelectElement>('input-asset').value;
  const value = $<HTMLInputElement>('amount').value.trim();
  const button = $<HTMLButtonElement>('fund-wallet');
  button.disabled = true;
  $('fund-status').textContent = 'Funding…';
  try {
    await client.service.airdrop({ wallet: wallet.address, asset, amount: value });
    $('fund-status').textContent = `Funded ${value} ${asset} plus SOL for fees.`;
  } catch (error) {
    $('fund-status').textContent = `Airdrop refused: ${describe(error)}`;
  } finally {
    button.disabled = false;
  }
}
