// The maker's last look, end to end on the embedded chain's Pyth feeds: between the quote and the maker lock
// the market moves. Against the maker beyond the tolerance, it declines before anything of its own moves and
// releases the taker's escrow at once (refunded, price_moved); within it, or in its favour, it locks. The
// prices compared and the tolerance are in the trade's events. The publisher moves only when told.
import { afterEach, describe, expect, test } from 'vitest';
import { isEmbeddedChain } from '../../src/chain/index.ts';
import { PythPriceSource } from '../../src/quotes/index.ts';
import {
  type ConfigDocument,
  shippedPriceSource,
  startService,
  type TestService,
} from '../support/service.ts';
import { newSecret, Taker } from '../support/taker.ts';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

/** The shipped Pyth source, its publisher moving only on jump() and its refresh done by hand. */
function livePrices(doc: ConfigDocument): void {
  const source = shippedPriceSource() as { feeds: Record<string, unknown>[] };
  doc.price_source = {
    ...source,
    refresh_interval_ms: 60_000,
    embedded_publisher: { seed: 11, interval_ms: 0 },
  };
  doc.risk.maker_lock_price_tolerance_bps = 50;
}

async function start() {
  const svc = await startService(livePrices, { pollIntervalMs: 50, lockWaitMs: 3_000 });
  service = svc;
  const { chain, prices } = svc;
  if (!isEmbeddedChain(chain) || !chain.pyth)
    throw new Error('expected the embedded chain with its publisher');
  if (!(prices instanceof PythPriceSource)) throw new Error('expected the Pyth price source');
  const pyth = chain.pyth;
  return {
    svc,
    move: async (symbol: string, bps: number) => {
      pyth.jump(symbol, bps);
      await prices.refresh();
    },
  };
}

/** A SOL→USDC trade up to its locked taker escrow, the market moved by `bps` on SOL after the quote. */
async function swapAfterMove(bps: number) {
  const { svc, move } = await start();
  const taker = new Taker(svc.app);
  await taker.airdrop('SOL', '3');
  const quote = await taker.quote('SOL', 'USDC', '1');
  expect(quote.status).toBe('accepted');
  const settlement = (await taker.settle(quote.quote_id, newSecret())).json();
  await move('SOL', bps);
  const locked = await taker.lock(settlement.trade_id, settlement.taker_lock_transaction.transaction_base64);
  expect(locked.statusCode, locked.body).toBe(202);
  return { svc, taker, tradeId: settlement.trade_id as string };
}

describe("the maker's last look before it locks", () => {
  test('SOL falls 2 % after the quote: the maker declines and the taker gets its SOL back at once', async () => {
    const { svc, taker, tradeId } = await swapAfterMove(-200);
    const done = await taker.waitFor(tradeId, (t) => t.substate === 'refunded.closed');
    expect(done.failure_reason).toBe('price_moved');
    expect(done.tx_signature_kinds.map((s: { kind: string }) => s.kind)).toEqual([
      'taker_lock',
      'taker_refund',
    ]);
    expect(done.ledger_summary.balanced).toBe(true);
    // The decision, the two mids and the tolerance are in the trade's history.
    const events = await svc.store.tradeEvents(tradeId);
    const assessed = events.find((e) => e.type === 'xstate.done.actor.checkInventory');
    expect(assessed?.payload).toMatchObject({
      output: {
        available: true,
        price: { holds: false, reason: 'price_moved', toleranceBps: 50, quotedMid: expect.any(String) },
      },
    });
    if (!assessed) throw new Error('no assessment in the trade’s history');
    const price = (assessed.payload as { output: { price: { movedBps: number; currentMid: string } } }).output
      .price;
    expect(price.movedBps).toBeGreaterThanOrEqual(199);
    expect(price.movedBps).toBeLessThanOrEqual(201);
    expect(Number(price.currentMid)).toBeGreaterThan(0);
  });

  test('SOL moves within the tolerance, or in the maker’s favour: the maker locks', async () => {
    for (const bps of [-30, 300]) {
      const { taker, tradeId } = await swapAfterMove(bps);
      const locked = await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked');
      expect(locked.failure_reason, `${bps} bps`).toBeNull();
      await service?.dispose();
      service = undefined;
    }
  });
});
