// The test wallet (test-wallet.ts) in a page: bundled for the browser and registered through the Wallet
// Standard before the page's own scripts run. Its key stays in the test: the page only ever reaches the
// `sign` and `send` bindings the test gives it, so a test sees every transaction the wallet was asked for.
import type { Keypair } from '@solana/web3.js';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';

export interface TestWalletBindings {
  /** Signs a transaction (base64) the page hands the wallet; answers it signed, base64. */
  sign(transactionBase64: string): string | Promise<string>;
  /** Signs and sends one; answers the signature's bytes, base64. */
  send(transactionBase64: string): Promise<string>;
}

let bundled: Promise<string> | undefined;

/** support/test-wallet.ts bundled for the page, with the standard's registerWallet. */
function testWalletScript(): Promise<string> {
  bundled ??= build({
    entryPoints: [new URL('./test-wallet.ts', import.meta.url).pathname],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'warning',
  }).then((result) => result.outputFiles[0]?.text ?? '');
  return bundled;
}

/** Registers `name`, holding `keypair`, in `page` (before it loads) through the Wallet Standard. */
export async function addTestWallet(
  page: Page,
  name: string,
  keypair: Keypair,
  bindings: TestWalletBindings,
): Promise<void> {
  await page.exposeFunction('testWalletSign', bindings.sign);
  await page.exposeFunction('testWalletSend', bindings.send);
  await page.addInitScript({
    content: `window.testWallet = ${JSON.stringify({
      name,
      address: keypair.publicKey.toBase58(),
      publicKeyBase64: Buffer.from(keypair.publicKey.toBytes()).toString('base64'),
    })};\n${await testWalletScript()}`,
  });
}
