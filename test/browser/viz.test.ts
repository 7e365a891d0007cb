// The visualiser page in Chromium: it follows a live swap driven over HTTP by a real taker keypair,
// highlights the trade's state as it moves, and plays the trade's event history back.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listenOnLoopback, startService, type TestService } from '../support/service.ts';
import { newSecret, Taker } from '../support/taker.ts';
import { launchChromium } from './support/chromium.ts';

const TOKEN = 'operator-token-for-browser-0123456789';

let service: TestService;
let browser: Browser;
let base: string;

beforeAll(async () => {
  service = await startService(
    (doc) => {
      doc.http.operator_token = TOKEN;
    },
    { pollIntervalMs: 50, lockWaitMs: 3_000 },
  );
  base = `http://127.0.0.1:${await listenOnLoopback(service)}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await service?.dispose();
});

const active = (path: string) => `g.state[data-state="${path}"][data-state-active="true"]`;

async function openPage(query: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${base}/v1/viz?access_token=${TOKEN}${query}`);
  return { page, errors };
}

describe('the machine visualiser', () => {
  let tradeId: string;

  test('follows a live swap: the newest trade, initiated.makerLocked (drawn in its phase), then redeemed', async () => {
    const { page, errors } = await openPage('');
    await page.waitForSelector('#live[data-live="open"]');
    expect(await page.locator('g.state').count()).toBeGreaterThan(30);
    expect(await page.locator('#follow-newest').isChecked()).toBe(true);

    const taker = new Taker(service.app, TOKEN);
    await taker.airdrop('SOL', '3');
    const quote = await taker.quote('SOL', 'USDC', '1.5');
    const secret = newSecret();
    const settlement = (await taker.settle(quote.quote_id, secret)).json();
    tradeId = settlement.trade_id;

    // The page picks the new trade up from the stream and shows its first state.
    await page.waitForFunction(`document.getElementById('trade-id').value === ${JSON.stringify(tradeId)}`);
    await page.waitForSelector(active('pending.awaitingLock'));
    expect(await page.locator(active('pending')).count()).toBe(1);

    const locked = await taker.lock(tradeId, settlement.taker_lock_transaction.transaction_base64);
    expect(locked.statusCode, locked.body).toBe(202);
    await page.waitForSelector(active('initiated.redeeming.makerLocked'), { timeout: 15_000 });
    expect(await page.locator(active('initiated')).count()).toBe(1);
    expect(await page.locator(active('pending')).count()).toBe(0);

    const redeem = await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage });
    expect(redeem.statusCode, redeem.body).toBe(202);
    await page.waitForSelector(active('redeemed'), { timeout: 15_000 });
    await taker.waitFor(tradeId, (t) => t.substate === 'redeemed.closed');
    await page.waitForSelector(active('redeemed.closed'), { timeout: 15_000 });

    // The live history is the trade's whole event history.
    const events = (
      await service.app.inject({
        url: `/v1/trades/${tradeId}/events`,
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).json().events;
    await page.waitForFunction(`document.querySelectorAll('#history li').length === ${events.length}`);
    expect(await page.locator('#live').getAttribute('data-live')).toBe('open');
    expect(errors).toEqual([]);
    await page.close();
  });

  test('given ?trade_id=, shows the trade and plays its event history step by step', async () => {
    const { page, errors } = await openPage(`&trade_id=${tradeId}&step_ms=120`);
    await page.waitForSelector(active('redeemed.closed'));
    expect(await page.locator('#trade-id').inputValue()).toBe(tradeId);
    const steps = await page.locator('#history li').count();
    expect(steps).toBeGreaterThan(5);
    expect(await page.locator(`#history li[data-index="${steps - 1}"]`).getAttribute('aria-current')).toBe(
      'step',
    );

    await page.click('#first');
    await page.waitForSelector(active('pending.awaitingLock'));
    expect(await page.locator('#history li[data-index="0"]').getAttribute('aria-current')).toBe('step');
    await page.click('#next');
    expect(await page.locator('#history li[data-index="1"]').getAttribute('aria-current')).toBe('step');
    // Stepping onto a transition highlights its label on the chart.
    expect(await page.locator('[data-transition-active="true"]').count()).toBeGreaterThan(0);
    await page.click('#first');

    // Record every state the player shows, then play the whole history.
    // (Page scripts are strings: the test's TypeScript knows no DOM.)
    await page.evaluate(`
      window.seen = [];
      new MutationObserver(() => {
        const leaf = [...document.querySelectorAll('g.state[data-state-active="true"]')].at(-1);
        const path = leaf && leaf.getAttribute('data-state');
        if (path && window.seen.at(-1) !== path) window.seen.push(path);
      }).observe(document.getElementById('chart'), { subtree: true, attributes: true });
    `);
    await page.click('#play');
    await page.waitForFunction(`document.getElementById('chart').dataset.playing === 'false'`, undefined, {
      timeout: 20_000,
    });
    const seen = (await page.evaluate('window.seen')) as string[];
    expect(seen).toEqual(expect.arrayContaining(['initiated.redeeming.makerLocked', 'redeemed.closed']));
    expect(seen.indexOf('initiated.redeeming.makerLocked')).toBeLessThan(seen.indexOf('redeemed.closed'));
    expect(seen.at(-1)).toBe('redeemed.closed');
    expect(await page.locator(`#history li[data-index="${steps - 1}"]`).getAttribute('aria-current')).toBe(
      'step',
    );
    expect(await page.locator('[data-transition-active="true"]').count()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('with a token configured, a wrong one is refused the page', async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${base}/v1/viz?access_token=wrong-token-wrong-token`);
    expect(response?.status()).toBe(401);
    await page.close();
  });
});
