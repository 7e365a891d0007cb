// A wallet as a browser extension would be one: registered in the page through the Wallet Standard's own
// registration API (registerWallet), offering standard:connect, solana:signTransaction and
// solana:signAndSendTransaction. It holds no key: it hands each transaction to the test (bindings the test
// exposes, which sign with web3.js and send to the chain), so a lock that lands proves the page signed
// through the standard, not through its dev wallet. Bundled for the page by `testWalletScript` in
// swap-page.test.ts.
import type {
  SolanaSignAndSendTransactionInput,
  SolanaSignAndSendTransactionOutput,
  SolanaSignTransactionInput,
  SolanaSignTransactionOutput,
} from '@solana/wallet-standard-features';
import type { Wallet, WalletAccount } from '@wallet-standard/base';
import { registerWallet } from '@wallet-standard/wallet';

/** Set by the test before the page loads. */
interface TestWalletGlobals {
  testWallet: { name: string; address: string; publicKeyBase64: string };
  testWalletSign(transactionBase64: string): Promise<string>;
  /** Signs and sends; answers the signature's bytes, base64. */
  testWalletSend(transactionBase64: string): Promise<string>;
}

const globals = globalThis as unknown as TestWalletGlobals;
const { name, address, publicKeyBase64 } = globals.testWallet;
const bytes = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
const base64 = (data: Uint8Array) => btoa(String.fromCharCode(...data));

const CHAIN = 'solana:localnet' as const;
const account: WalletAccount = {
  address,
  publicKey: bytes(publicKeyBase64),
  chains: [CHAIN],
  features: ['solana:signTransaction', 'solana:signAndSendTransaction'],
};

let connected: WalletAccount[] = [];

const wallet: Wallet = {
  version: '1.0.0',
  name,
  icon: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxIDEiLz4=',
  chains: [CHAIN],
  get accounts() {
    return connected;
  },
  features: {
    'standard:connect': {
      version: '1.0.0',
      connect: async () => {
        connected = [account];
        return { accounts: connected };
      },
    },
    'standard:events': { version: '1.0.0', on: () => () => {} },
    'solana:signTransaction': {
      version: '1.0.0',
      supportedTransactionVersions: ['legacy'],
      signTransaction: async (
        ...inputs: readonly SolanaSignTransactionInput[]
      ): Promise<readonly SolanaSignTransactionOutput[]> => {
        const outputs: SolanaSignTransactionOutput[] = [];
        for (const input of inputs) {
          if (input.account.address !== address) throw new Error('not this wallet’s account');
          const signed = await globals.testWalletSign(base64(input.transaction));
          outputs.push({ signedTransaction: bytes(signed) });
        }
        return outputs;
      },
    },
    'solana:signAndSendTransaction': {
      version: '1.0.0',
      supportedTransactionVersions: ['legacy'],
      signAndSendTransaction: async (
        ...inputs: readonly SolanaSignAndSendTransactionInput[]
      ): Promise<readonly SolanaSignAndSendTransactionOutput[]> => {
        const outputs: SolanaSignAndSendTransactionOutput[] = [];
        for (const input of inputs) {
          if (input.account.address !== address) throw new Error('not this wallet’s account');
          outputs.push({ signature: bytes(await globals.testWalletSend(base64(input.transaction))) });
        }
        return outputs;
      },
    },
  },
};

registerWallet(wallet);
