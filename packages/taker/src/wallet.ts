// The wallet a taker signs with, as the client needs it: an address and a signer of unsigned legacy
// transactions (the service's lock, the client's own redeem and refund), optionally one that sends by itself
// through its own connection. `cryptoKeyWallet` makes one of a WebCrypto Ed25519 key pair (a browser's dev
// wallet, a script's key); a Wallet Standard wallet is wrapped by the front end (the swap page does).
import { getAddressDecoder } from '@solana/kit';
import { fromBase64, toBase64 } from './bytes.ts';
import { signTransactionBytes } from './transactions.ts';

/** A WebCrypto Ed25519 key pair (the DOM's CryptoKeyPair, spelled so that Node's types have it too). */
export interface WalletKeys {
  publicKey: WebCryptoKey;
  privateKey: WebCryptoKey;
}

type WebCryptoKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

export interface TakerWallet {
  address: string;
  /** Signs an unsigned transaction (base64 wire bytes) in this wallet's slot; answers it signed, base64. */
  signTransaction(unsignedBase64: string): Promise<string>;
  /** Signs and sends through the wallet's own connection to its cluster; answers the signature, base58. */
  signAndSend?(unsignedBase64: string): Promise<string>;
}

/** A wallet over a WebCrypto Ed25519 key pair (which may be non-extractable). */
export async function cryptoKeyWallet(keys: WalletKeys): Promise<TakerWallet> {
  const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', keys.publicKey));
  const address = getAddressDecoder().decode(publicKey);
  return {
    address,
    async signTransaction(unsignedBase64) {
      const signed = await signTransactionBytes(
        fromBase64(unsignedBase64),
        publicKey,
        async (message) =>
          new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, keys.privateKey, message)),
      );
      return toBase64(signed);
    },
  };
}

/** A fresh Ed25519 key pair from WebCrypto; null where the platform has no Ed25519. */
export async function generateWalletKeys(extractable = false): Promise<WalletKeys | null> {
  try {
    // Ed25519 generates a key pair; the platform's typings do not all say so.
    const generated: unknown = await crypto.subtle.generateKey({ name: 'Ed25519' }, extractable, [
      'sign',
      'verify',
    ]);
    return typeof generated === 'object' && generated !== null && 'privateKey' in generated
      ? (generated as WalletKeys)
      : null;
  } catch {
    return null;
  }
}
