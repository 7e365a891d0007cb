// The wallets the page can sign with: wallets registered through the Wallet Standard (Phantom, Solflare,
// Backpack, … and any test wallet), used only through `standard:connect`, `solana:signTransaction` and, when
// offered, `solana:signAndSendTransaction`; and, on the embedded chain, a built-in dev wallet whose ed25519
// keypair is a non-extractable WebCrypto key kept in IndexedDB, funded through the dev airdrop.

import {
  cryptoKeyWallet,
  fromBase64,
  generateWalletKeys,
  isSignedBy,
  toBase64,
  type WalletRef,
} from '@rfq-maker/taker';
import {
  SolanaSignAndSendTransaction,
  type SolanaSignAndSendTransactionFeature,
  SolanaSignTransaction,
  type SolanaSignTransactionFeature,
} from '@solana/wallet-standard-features';
import { getWallets } from '@wallet-standard/app';
import type { Wallet, WalletAccount } from '@wallet-standard/base';
import { StandardConnect, type StandardConnectFeature } from '@wallet-standard/features';
import { decodeBase58, encodeBase58 } from '../../vocabulary/base58.ts';
import { type SwapWallet, store } from './context.ts';

export const walletRef = (wallet: SwapWallet): WalletRef => ({
  kind: wallet.kind,
  name: wallet.name,
  address: wallet.address,
});

export const DEV_WALLET_NAME = 'Dev wallet (this browser)';

// ── The dev wallet ──────────────────────────────────────────────────────────────────────────────

interface DevKeys {
  id: 'dev';
  keys: CryptoKeyPair;
  address: string;
}

/** This browser's dev wallet, created on first use. Null where WebCrypto has no Ed25519. */
export async function devWallet(): Promise<SwapWallet | null> {
  let saved = await store.run<DevKeys | undefined>('keys', 'readonly', (s) => s.get('dev'));
  if (!saved) {
    const keys = await generateWalletKeys();
    if (!keys) return null;
    const { address } = await cryptoKeyWallet(keys);
    saved = { id: 'dev', keys: keys as CryptoKeyPair, address };
    const record = saved;
    await store.run('keys', 'readwrite', (s) => s.put(record));
  }
  return { kind: 'dev', name: DEV_WALLET_NAME, ...(await cryptoKeyWallet(saved.keys)) };
}

// ── Wallet Standard ─────────────────────────────────────────────────────────────────────────────

export type SigningWallet = Wallet & {
  features: StandardConnectFeature & SolanaSignTransactionFeature;
};

type SendingWallet = SigningWallet & { features: SolanaSignAndSendTransactionFeature };

/** A registered wallet the page can use: it connects and signs Solana transactions. */
const canSign = (wallet: Wallet): wallet is SigningWallet =>
  StandardConnect in wallet.features && SolanaSignTransaction in wallet.features;

/** The registered wallets that can sign, read when asked; `onChange` hears of every (un)registration. */
export function standardWallets(onChange: () => void): () => readonly SigningWallet[] {
  const registry = getWallets();
  registry.on('register', onChange);
  registry.on('unregister', onChange);
  return () => registry.get().filter(canSign);
}

/** Connects `wallet` (it may ask its user) and answers its first account that signs Solana transactions. */
export async function connectStandard(wallet: SigningWallet, expectedAddress?: string): Promise<SwapWallet> {
  const { accounts } = await wallet.features[StandardConnect].connect();
  const usable = (a: WalletAccount) =>
    a.features.includes(SolanaSignTransaction) && a.chains.some((chain) => chain.startsWith('solana:'));
  const account =
    accounts.find((a) => usable(a) && (expectedAddress === undefined || a.address === expectedAddress)) ??
    (expectedAddress === undefined ? accounts.find(usable) : undefined);
  if (!account) {
    throw new Error(
      expectedAddress === undefined
        ? `${wallet.name} has no Solana account that signs transactions.`
        : `${wallet.name} does not hold ${expectedAddress}, the account this trade was started with.`,
    );
  }
  const signer = decodeBase58(account.address);
  const chain = account.chains.find((c) => c.startsWith('solana:'));
  const sender = SolanaSignAndSendTransaction in wallet.features ? (wallet as SendingWallet) : null;
  const signAndSend =
    sender && chain && account.features.includes(SolanaSignAndSendTransaction)
      ? async (unsignedBase64: string) => {
          const [output] = await sender.features[SolanaSignAndSendTransaction].signAndSendTransaction({
            account,
            chain,
            transaction: fromBase64(unsignedBase64),
          });
          if (!output) throw new Error(`${wallet.name} sent nothing.`);
          return encodeBase58(output.signature);
        }
      : undefined;
  return {
    ...(signAndSend ? { signAndSend } : {}),
    kind: 'standard',
    name: wallet.name,
    address: account.address,
    async signTransaction(unsignedBase64) {
      const [output] = await wallet.features[SolanaSignTransaction].signTransaction({
        account,
        transaction: fromBase64(unsignedBase64),
        ...(chain ? { chain } : {}),
      });
      if (!output || !isSignedBy(output.signedTransaction, signer))
        throw new Error(`${wallet.name} returned the transaction without its signature.`);
      return toBase64(output.signedTransaction);
    },
  };
}
