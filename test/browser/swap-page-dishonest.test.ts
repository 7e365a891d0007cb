// The swap page against a dishonest service: the taker package's double of the service
// (packages/taker/test/support/dishonest-maker.ts: the public routes over a real loopback chain, honest in every
// field but one) serves the page itself, as the service does, with its dev RPC over the double's own chain —
// so the page trusts it for the maker key and the mints, as on the embedded chain. For each lie of issue 35
// in the lock the wallet is asked to sign, the page shows the refusal check by check in words instead of
// opening the wallet: the Wallet Standard test wallet is never asked, nothing reaches POST /lock, the taker's
// balances are unchanged. The honest lock is shown as what it is and signed as reviewed. A second double serves
// the page pinned (no dev RPC: the maker key and the mints come from the page's own config), where a quote
// naming a look-alike mint never starts a swap. Each refusal's screenshot lands in reports/swap-page-dishonest/.
import { mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type DishonestMaker,
  type Lie,
  LOOKALIKE_MINT,
  NATIVE_MINT,
  startDishonestMaker,
} from '../../packages/taker/test/support/dishonest-maker.ts';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import { devRpcRoutes } from '../../src/http/routes/dev-rpc.ts';
import { swapPageRoutes } from '../../src/http/routes/swap-page.ts';
import type { SwapPagePins } from '../../src/swap-page/index.ts';
import { USDC_MINT, USDT_MINT } from '../support/mints.ts';
import { launchChromium } from './support/chromium.ts';
import { addTestWallet } from './support/wallet-standard.ts';

const HELD = 50_000_000n; // 50 USDC
const WRAPPED = 300_000_000n; // 0.3 wrapped SOL
const WALLET = 'Test Wallet';
const SHOTS = fileURLToPath(new URL('../../reports/swap-page-dishonest', import.meta.url));

let browser: Browser;

beforeAll(async () => {
  rmSync(SHOTS, { recursive: true, force: true }); // this run's screenshots only
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/**
 * The double serving the page. `embedded`: its dev RPC at /v1/dev/rpc over its chain, which the page reads
 * through and knows by the genesis hash (it trusts the service). `pinned`: no dev RPC — the page reads the
 * same chain through another path of the same origin, and pins the maker key and the mints `pins` names.
 */
function startDouble(
  trust: 'embedded' | { pins: (maker: Keypair) => SwapPagePins },
): Promise<DishonestMaker> {
  return startDishonestMaker({
    routes: async (app, { chain, maker }) => {
      const rpcPrefix = trust === 'embedded' ? '/v1/dev' : '/chain';
      await app.register(devRpcRoutes, { prefix: rpcPrefix, ledger: chain.ledger });
      await app.register(swapPageRoutes, {
        devWallet: false,
        rpcUrl: `${rpcPrefix}/rpc`,
        programId: DEFAULT_HTLC_PROGRAM_ID.toBase58(),
        pins: trust === 'embedded' ? null : trust.pins(maker),
      });
      app.get('/v1/pairs', async () => ({
        pairs: [
          ['USDC', USDC_MINT, 'USDT', USDT_MINT],
          ['USDT', USDT_MINT, 'USDC', USDC_MINT],
        ].map(([input_asset, input_mint, output_asset, output_mint]) => ({
          input_asset,
          input_mint,
          output_asset,
          output_mint,
          base_spread_bps: 10,
          min_input: '1',
          max_input: '1000',
          paused: false,
        })),
      }));
    },
  });
}

interface Taker {
  page: Page;
  address: string;
  /** Every transaction the wallet was asked to sign, and to sign and send. */
  asked: string[];
  errors: string[];
  balances(): { usdc: bigint; usdt: bigint; wrappedSol: bigint; lamports: bigint };
}

/** A funded taker (50 USDC, some wrapped SOL) with the page open and the test wallet connected. */
async function openTaker(double: DishonestMaker): Promise<Taker> {
  const keypair = Keypair.generate();
  const address = keypair.publicKey.toBase58();
  double.fund(address, USDC_MINT, HELD);
  double.wrap(address, WRAPPED);
  const asked: string[] = [];
  const context = await browser.newContext({ viewport: { width: 1100, height: 1300 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await addTestWallet(page, WALLET, keypair, {
    sign: (transactionBase64) => {
      asked.push(transactionBase64);
      const tx = Transaction.from(Buffer.from(transactionBase64, 'base64'));
      tx.partialSign(keypair);
      return tx.serialize({ requireAllSignatures: false }).toString('base64');
    },
    send: async (transactionBase64) => {
      asked.push(transactionBase64);
      throw new Error('this test wallet does not send');
    },
  });
  // The page's Content-Security-Policy enforced: it reaches only its own origin (the double and its RPC).
  await page.goto(`${double.url}/`);
  await page.locator('body[data-ready="true"]').waitFor();
  await page.locator(`#wallet-choice option[value="standard:${WALLET}"]`).waitFor({ state: 'attached' });
  await page.selectOption('#wallet-choice', `standard:${WALLET}`);
  await page.click('#connect-wallet');
  await page.locator(`#wallet-status[data-address="${address}"]`).waitFor();
  const owner = new PublicKey(address);
  const { ledger } = double.chain;
  return {
    page,
    address,
    asked,
    errors,
    balances: () => ({
      usdc: ledger.tokenAmount(owner, new PublicKey(USDC_MINT)),
      usdt: ledger.tokenAmount(owner, new PublicKey(USDT_MINT)),
      wrappedSol: ledger.tokenAmount(owner, NATIVE_MINT),
      lamports: ledger.balance(owner),
    }),
  };
}

/** A quote of 20 USDC for USDT, shown. */
async function quote(page: Page): Promise<void> {
  await page.selectOption('#input-asset', 'USDC');
  await page.selectOption('#output-asset', 'USDT');
  await page.fill('#amount', '20');
  await page.click('#get-quote');
  await page.locator('#quote:not([hidden])').waitFor();
}

/** The requests the double received for `path`. */
const requestsTo = (double: DishonestMaker, path: string) =>
  double.received.filter((r) => r.url.includes(path)).length;

/** The page's console errors, but the stream's 404 (the double has no stream: the page polls instead). */
const unexpected = (errors: string[]) => errors.filter((e) => !e.includes('404'));

/** Each lie in the lock of issue 35, and the check that must name it (others may fail with it). */
const LOCK_LIES: [Lie, string][] = [
  ['transfer_instead', 'no_transfer'],
  ['known_hash', 'hashlock'],
  ['double_amount', 'amount'],
  ['hidden_approve', 'no_delegate'],
  ['lookalike_program', 'htlc_program'],
  ['refund_to_maker', 'refund_destination'],
  ['year_expiry', 'expiry'],
  ['priority_fee', 'priority_fee'],
  ['lookup_table', 'lookup_tables'],
  ['close_wsol', 'no_close'],
];

describe('the swap page served by a dishonest service, on the service’s own chain', () => {
  let double: DishonestMaker;
  beforeAll(async () => {
    double = await startDouble('embedded');
  });
  afterAll(async () => {
    await double?.close();
  });

  test.each(LOCK_LIES)(
    '%s: the page shows the refusal (%s), the wallet is never asked, balances unchanged',
    async (lie, check) => {
      double.lie = lie;
      const taker = await openTaker(double);
      const { page } = taker;
      const before = taker.balances();
      expect(before.usdc).toBe(HELD);
      await quote(page);
      const settlements = requestsTo(double, '/wallet-settlement');
      await page.click('#swap');

      // The refusal, in words, where the summary of an honest lock would be; no way to sign.
      const refused = page.locator('#lock-refused');
      await refused.waitFor({ timeout: 30_000 });
      expect(requestsTo(double, '/wallet-settlement')).toBe(settlements + 1);
      const named = page.locator(`#refused-checks li[data-check="${check}"]`);
      expect(await named.count()).toBe(1);
      for (const item of await page.locator('#refused-checks li').all()) {
        // "<what it is about>: <what was found>", the client's detail of the failed check.
        expect(await item.textContent()).toMatch(/^[A-Z][^:]+: \S.{10,}/);
      }
      expect(await refused.textContent()).toContain('Your wallet was not asked to sign');
      expect(await page.locator('#lock-review').isHidden()).toBe(true);
      expect(await page.locator('#sign-lock').isHidden()).toBe(true);
      expect(await page.locator('#trade-message').textContent()).toContain('was not asked to sign it');
      await page.screenshot({ path: `${SHOTS}/${lie}.png`, fullPage: true });

      // Resumed from "my trades" all the same: reviewed again, refused again, still no wallet.
      const tradeId = (await page.locator('#trade-section').getAttribute('data-trade-id')) as string;
      await page.locator(`#my-trades li[data-trade-id="${tradeId}"] button[data-action="resume"]`).click();
      await page.locator('#trade-section[data-busy="false"]').waitFor();
      await refused.waitFor();

      expect(taker.asked).toEqual([]);
      expect(requestsTo(double, `/v1/trades/${tradeId}/lock`)).toBe(0);
      expect(taker.balances()).toEqual(before);
      expect(unexpected(taker.errors)).toEqual([]);
      await page.context().close();
    },
  );

  test('an honest lock: shown as decoded from its bytes, with the trust the page runs on, and signed as shown', async () => {
    double.lie = 'honest';
    const taker = await openTaker(double);
    const { page } = taker;
    const before = taker.balances();
    await quote(page);
    const handedOut: string[] = [];
    page.on('response', async (response) => {
      if (response.url().endsWith('/wallet-settlement'))
        handedOut.push((await response.json()).taker_lock_transaction.transaction_base64);
    });
    await page.click('#swap');

    const review = page.locator('#lock-review');
    await review.waitFor({ timeout: 30_000 });
    const tradeId = (await page.locator('#trade-section').getAttribute('data-trade-id')) as string;
    const trade = (await (await fetch(`${double.url}/v1/trades/${tradeId}`)).json()) as {
      expires_at: string;
    };
    expect(await review.getAttribute('data-trust')).toBe('embedded-service');
    expect(await review.locator('[data-field="input"]').textContent()).toBe('20 USDC');
    expect(await review.locator('[data-field="input-mint"]').textContent()).toBe(USDC_MINT);
    expect(await review.locator('[data-field="output"]').textContent()).toBe('20 USDT');
    expect(await review.locator('[data-field="output-mint"]').textContent()).toBe(USDT_MINT);
    expect(await review.locator('[data-field="maker"]').textContent()).toBe(
      double.maker.publicKey.toBase58(),
    );
    expect(await review.locator('[data-field="expiry"]').getAttribute('datetime')).toBe(trade.expires_at);
    expect(await page.locator(`#lock-changes li[data-mint="${USDC_MINT}"]`).textContent()).toBe('−20 USDC');
    expect(await page.locator('#lock-trust').textContent()).toContain(
      'trusts the service’s own chain for the maker key and the mints',
    );
    expect(taker.asked).toEqual([]);

    await page.click('#sign-lock');
    await page.locator('#steps li[data-step="taker_lock"][data-state="done"]').waitFor({ timeout: 30_000 });
    // The wallet was asked once, for the very bytes the service handed out and the page reviewed.
    expect(taker.asked).toHaveLength(1);
    expect(handedOut).toContain(taker.asked[0]);
    expect(taker.balances().usdc).toBe(before.usdc - 20_000_000n);
    expect(unexpected(taker.errors)).toEqual([]);
    await page.context().close();
  });
});

describe('the swap page served by a dishonest service, pinned', () => {
  let double: DishonestMaker;
  beforeAll(async () => {
    double = await startDouble({
      pins: (maker) => ({ maker: maker.publicKey.toBase58(), mints: { USDC: USDC_MINT, USDT: USDT_MINT } }),
    });
  });
  afterAll(async () => {
    await double?.close();
  });

  test('the honest lock is held to the pins, and the page says so', async () => {
    double.lie = 'honest';
    const taker = await openTaker(double);
    const { page } = taker;
    await quote(page);
    await page.click('#swap');
    const review = page.locator('#lock-review');
    await review.waitFor({ timeout: 30_000 });
    expect(await review.getAttribute('data-trust')).toBe('pinned');
    expect(await review.locator('[data-field="maker"]').textContent()).toBe(
      double.maker.publicKey.toBase58(),
    );
    expect(await page.locator('#lock-trust').textContent()).toContain(
      'the maker key and the mints are pinned by this page',
    );
    expect(taker.asked).toEqual([]);
    expect(unexpected(taker.errors)).toEqual([]);
    await page.context().close();
  });

  test('a quote naming a look-alike mint never starts a swap: no settlement, no wallet', async () => {
    double.lie = 'lookalike_mint';
    const taker = await openTaker(double);
    const { page } = taker;
    const before = taker.balances();
    await quote(page);
    const settlements = requestsTo(double, '/wallet-settlement');
    await page.click('#swap');
    const error = page.locator('#quote-error:not([hidden])');
    await error.waitFor({ timeout: 30_000 });
    expect(await error.textContent()).toContain(LOOKALIKE_MINT.toBase58());
    expect(await page.locator('#trade-section').isHidden()).toBe(true);
    expect(requestsTo(double, '/wallet-settlement')).toBe(settlements);
    expect(await page.locator('#sign-lock').isHidden()).toBe(true);
    expect(taker.asked).toEqual([]);
    expect(taker.balances()).toEqual(before);
    expect(unexpected(taker.errors)).toEqual([]);
    await page.context().close();
  });
});
