// The visualiser's chart as an operator sees it, measured in Chromium: at open every state is inside the
// window, no edge label overlaps another label, a state box or a compound's title; the wheel, the buttons
// and a drag zoom and pan; each phase collapses to one box (measured again) and expands; the followed
// trade's path is marked. Boxes are the browser's own (getBoundingClientRect), not the layout's numbers.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listenOnLoopback, startService, type TestService } from '../support/service.ts';
import { newSecret, Taker } from '../support/taker.ts';
import { launchChromium } from './support/chromium.ts';

const TOKEN = 'operator-token-for-browser-0123456789';
const VIEWPORT = { width: 1400, height: 1000 };

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

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}
interface Measured {
  pane: Rect;
  states: { path: string; box: Rect }[];
  /** What a label may not cover: boxes without children (collapsed phases too), compounds' titles. */
  solid: { what: string; box: Rect }[];
  labels: { what: string; box: Rect }[];
}

// Page scripts are strings: the test's TypeScript knows no DOM.
const MEASURE = `(() => {
  const rect = (el) => { const r = el.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height }; };
  const chart = document.getElementById('chart');
  const states = [...chart.querySelectorAll('g.state')].filter((g) => g.dataset.state !== '');
  const solid = [];
  for (const g of states) {
    const compound = g.classList.contains('state-compound');
    if (!compound) solid.push({ what: g.dataset.state, box: rect(g.querySelector(':scope > rect.state-box')) });
    else for (const text of g.querySelectorAll(':scope > text')) solid.push({ what: g.dataset.state + ' title', box: rect(text) });
  }
  return {
    pane: rect(document.getElementById('chart-pane')),
    states: states.map((g) => ({ path: g.dataset.state, box: rect(g.querySelector(':scope > rect.state-box')) })),
    solid,
    labels: [...chart.querySelectorAll('.edge-label-group')].map((g) => ({ what: g.textContent.trim().replace(/\\s+/g, ' '), box: rect(g) })),
  };
})()`;

const measure = async (page: Page) => (await page.evaluate(MEASURE)) as Measured;

/** Strictly overlapping by more than a rounding: touching edges are not an overlap. */
const intersect = (a: Rect, b: Rect) => {
  const e = 0.5;
  return a.x + e < b.x + b.w && b.x + e < a.x + a.w && a.y + e < b.y + b.h && b.y + e < a.y + a.h;
};
const within = (inner: Rect, outer: Rect) =>
  inner.x >= outer.x - 0.5 &&
  inner.y >= outer.y - 0.5 &&
  inner.x + inner.w <= outer.x + outer.w + 0.5 &&
  inner.y + inner.h <= outer.y + outer.h + 0.5;

/** Every state inside the pane and the window; no label over another, a state box or a title. */
function expectReadable(m: Measured) {
  const window = { x: 0, y: 0, w: VIEWPORT.width, h: VIEWPORT.height };
  expect(m.pane.w * m.pane.h).toBeGreaterThan(0);
  for (const { path, box } of m.states) {
    expect(within(box, m.pane), `${path} ${JSON.stringify(box)} in the pane ${JSON.stringify(m.pane)}`).toBe(
      true,
    );
    expect(within(box, window), `${path} in the window`).toBe(true);
  }
  const clashes: string[] = [];
  m.labels.forEach((label, i) => {
    for (const other of m.labels.slice(i + 1)) {
      if (intersect(label.box, other.box)) clashes.push(`label "${label.what}" / label "${other.what}"`);
    }
    for (const solid of m.solid) {
      if (intersect(label.box, solid.box)) clashes.push(`label "${label.what}" / ${solid.what}`);
    }
  });
  expect(clashes).toEqual([]);
}

async function openPage(query = ''): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${base}/v1/viz?access_token=${TOKEN}${query}`);
  await page.waitForSelector('#chart[data-zoom="fit"]');
  return { page, errors };
}

const boxOf = async (page: Page, path: string) => {
  const box = await page.locator(`g.state[data-state="${path}"] > rect.state-box`).boundingBox();
  if (!box) throw new Error(`${path} is not drawn`);
  return box;
};

describe('the visualiser’s chart, measured', () => {
  test('opens fitted: every state inside the window, no label over another label, a state or a title', async () => {
    const { page, errors } = await openPage();
    const m = await measure(page);
    expect(m.states.length).toBeGreaterThan(30);
    expect(m.labels.length).toBeGreaterThan(30);
    expectReadable(m);
    // Fitted, not shrunk for nothing: the chart spans the pane's width or its height.
    const left = Math.min(...m.states.map((s) => s.box.x));
    const right = Math.max(...m.states.map((s) => s.box.x + s.box.w));
    const top = Math.min(...m.states.map((s) => s.box.y));
    const bottom = Math.max(...m.states.map((s) => s.box.y + s.box.h));
    expect(Math.max((right - left) / m.pane.w, (bottom - top) / m.pane.h)).toBeGreaterThan(0.9);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('zooms by the buttons and the wheel about the pointer, pans by a drag, and fits again', async () => {
    const { page, errors } = await openPage();
    const path = 'initiated.redeeming.makerLocked';
    const at = await boxOf(page, path);

    await page.click('#zoom-in');
    await page.click('#zoom-in');
    const zoomed = await boxOf(page, path);
    expect(zoomed.width / at.width).toBeCloseTo(1.5625, 2);

    // The wheel zooms about the pointer: the point under it stays put.
    const pointer = { x: zoomed.x + zoomed.width / 2, y: zoomed.y + zoomed.height / 2 };
    await page.mouse.move(pointer.x, pointer.y);
    await page.mouse.wheel(0, -200);
    await page.waitForFunction(`Number(document.getElementById('chart').dataset.zoom) > 1.6`);
    const wheeled = await boxOf(page, path);
    expect(wheeled.width).toBeGreaterThan(zoomed.width * 1.1);
    expect(wheeled.x + wheeled.width / 2).toBeCloseTo(pointer.x, 0);
    expect(wheeled.y + wheeled.height / 2).toBeCloseTo(pointer.y, 0);

    // A drag moves the chart with the pointer.
    await page.mouse.move(pointer.x, pointer.y);
    await page.mouse.down();
    await page.mouse.move(pointer.x - 120, pointer.y - 80, { steps: 6 });
    await page.mouse.up();
    const panned = await boxOf(page, path);
    expect(panned.x - wheeled.x).toBeCloseTo(-120, 0);
    expect(panned.y - wheeled.y).toBeCloseTo(-80, 0);
    expect(panned.width).toBeCloseTo(wheeled.width, 1);

    await page.click('#zoom-fit');
    expectReadable(await measure(page));
    const fitted = await boxOf(page, path);
    expect(fitted.width).toBeCloseTo(at.width, 1);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('each phase collapses to one box, measured again, and expands', async () => {
    const { page, errors } = await openPage();
    const phases = ['initiated.locking', 'initiated.redeeming', 'initiated.unwinding'];
    for (const phase of phases) {
      await page.click(`g.state[data-state="${phase}"] > .phase-toggle`);
      await page.waitForSelector(`g.state[data-state="${phase}"][data-collapsed="true"]`);
      expect(await page.locator(`g.state[data-state^="${phase}."]`).count()).toBe(0);
      expectReadable(await measure(page));
    }
    // All three collapsed: the chart closed up, and grew on screen.
    expect(await page.locator('#chart').getAttribute('data-collapsed')).toBe(phases.join(','));
    for (const phase of phases) {
      await page.click(`g.state[data-state="${phase}"] > .phase-toggle`);
      await page.waitForSelector(`g.state[data-state="${phase}"][data-collapsed="false"]`);
    }
    expect(await page.locator('g.state[data-state="initiated.redeeming.makerLocked"]').count()).toBe(1);
    expectReadable(await measure(page));
    expect(errors).toEqual([]);
    await page.close();
  });

  test('the followed trade’s path is marked, and stays marked with its phase collapsed', async () => {
    const taker = new Taker(service.app, TOKEN);
    await taker.airdrop('SOL', '3');
    const quote = await taker.quote('SOL', 'USDC', '1');
    const secret = newSecret();
    const settlement = (await taker.settle(quote.quote_id, secret)).json();
    const tradeId: string = settlement.trade_id;
    const locked = await taker.lock(tradeId, settlement.taker_lock_transaction.transaction_base64);
    expect(locked.statusCode, locked.body).toBe(202);
    await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked');
    const redeem = await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage });
    expect(redeem.statusCode, redeem.body).toBe(202);
    await taker.waitFor(tradeId, (t) => t.substate === 'redeemed.closed');

    const { page, errors } = await openPage(`&trade_id=${tradeId}`);
    await page.waitForSelector('g.state[data-state="redeemed.closed"][data-state-active="true"]');
    const onPath = (path: string) => page.locator(`g.state[data-state="${path}"][data-path="true"]`).count();
    for (const path of ['pending.awaitingLock', 'initiated.redeeming.makerLocked', 'redeemed.closed']) {
      expect(await onPath(path), path).toBe(1);
    }
    // Not where it never went.
    expect(await onPath('refunded')).toBe(0);
    expect(await onPath('initiated.unwinding')).toBe(0);
    expect(await page.locator('.edge[data-path="true"]').count()).toBeGreaterThan(2);
    expect(await page.locator('.edge-label-group[data-path="true"]').count()).toBeGreaterThan(2);
    // Stepped back to the start, the path is only its first state.
    await page.click('#first');
    expect(await page.locator('.edge[data-path="true"]').count()).toBe(0);
    expect(await onPath('redeemed.closed')).toBe(0);
    await page.click('#last');
    // Collapsed, the phase it went through is marked as one box.
    await page.click('g.state[data-state="initiated.redeeming"] > .phase-toggle');
    await page.waitForSelector('g.state[data-state="initiated.redeeming"][data-collapsed="true"]');
    expect(await onPath('initiated.redeeming')).toBe(1);
    expect(await onPath('redeemed.closed')).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });
});
