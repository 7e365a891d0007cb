// Hedging end to end on the embedded chain, through the embedded venue over real HTTP: takers sell SOL to the
// maker again and again until its SOL is outside the band; after each redeemed trade the hedger sells SOL
// back for USDC in clips until the balance is home. Every hedge lands once, shows on the trade that
// triggered it as aggregator_swap, and the ledger matches the chain's token balances to the base unit.
import { readFileSync } from 'node:fs';
import { PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_CONFIG_PATH } from '../../src/config/index.ts';
import { type PriceSource, StaticPriceSource } from '../../src/quotes/index.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';
import { startService, type TestService } from '../support/service.ts';
import { newSecret, Taker } from '../support/taker.ts';

type Json = ReturnType<typeof JSON.parse>;

const shipped = JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')) as Record<string, unknown>;

/** SOL: target 10000 (the funded inventory), band 4, clips of 0.5 to 3. */
const HEDGING = {
  quote_asset: 'USDC',
  max_slippage_bps: 100,
  retry_seconds: 1,
  clip_interval_ms: 300,
  assets: { SOL: { target: '10000', band: '4', max_clip: '3', min_clip: '0.5' } },
};

const RAW = 10n ** 9n;

let service: TestService;
let start: { sol: bigint; usdc: bigint };

const balances = async () => {
  const maker = service.chain.makerWallet;
  return {
    sol: await service.chain.tokenBalance(maker, new PublicKey(SOL_MINT)),
    usdc: await service.chain.tokenBalance(maker, new PublicKey(USDC_MINT)),
  };
};

const inventory = async (): Promise<Json> => {
  const res = await service.app.inject('/v1/inventory');
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}

/** One taker sells `amount` SOL to the maker, all the way to redeemed; answers the trade id. */
async function sellSol(amount: string): Promise<string> {
  const taker = new Taker(service.app);
  await taker.airdrop('SOL', String(Number(amount) + 1));
  const quote = await taker.quote('SOL', 'USDC', amount);
  const secret = newSecret();
  const settled = (await taker.settle(quote.quote_id, secret)).json();
  const tradeId = settled.trade_id as string;
  const locked = await taker.lock(tradeId, settled.taker_lock_transaction.transaction_base64);
  expect(locked.statusCode, locked.body).toBe(202);
  await taker.waitFor(tradeId, (t) => t.next_action?.type === 'redeem');
  expect((await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).statusCode).toBe(
    202,
  );
  await taker.waitFor(tradeId, (t) => t.settlement_status === 'redeemed');
  return tradeId;
}

/** One taker buys SOL from the maker with `usdc` USDC, all the way to redeemed; answers the trade id. */
async function buySol(usdc: string): Promise<string> {
  const taker = new Taker(service.app);
  await taker.airdrop('USDC', usdc);
  const quote = await taker.quote('USDC', 'SOL', usdc);
  const secret = newSecret();
  const settled = (await taker.settle(quote.quote_id, secret)).json();
  const tradeId = settled.trade_id as string;
  const locked = await taker.lock(tradeId, settled.taker_lock_transaction.transaction_base64);
  expect(locked.statusCode, locked.body).toBe(202);
  await taker.waitFor(tradeId, (t) => t.next_action?.type === 'redeem');
  expect((await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).statusCode).toBe(
    202,
  );
  await taker.waitFor(tradeId, (t) => t.settlement_status === 'redeemed');
  return tradeId;
}

beforeAll(async () => {
  service = await startService((doc) => {
    doc.venue = shipped.venue;
    doc.hedging = HEDGING;
  });
  start = await balances();
});
afterAll(async () => service?.dispose());

// One story on one maker: each step starts from the inventory the step before left, so they keep their order.
describe('hedging on the embedded chain', { shuffle: false }, () => {
  const trades: string[] = [];

  test('the inventory view shows SOL at its target, inside its band, nothing hedged yet', async () => {
    const view = await inventory();
    expect(view.hedging).toEqual({
      enabled: true,
      quote_asset: 'USDC',
      max_slippage_bps: 100,
      retry_seconds: 1,
    });
    const sol = view.assets.find((a: Json) => a.asset === 'SOL');
    expect(sol.target).toMatchObject({
      target_raw: (10_000n * RAW).toString(),
      band_raw: (4n * RAW).toString(),
      deviation_raw: '0',
      outside_band: false,
      hedging: false,
    });
    expect(view.assets.find((a: Json) => a.asset === 'USDC').target).toBeNull();
    expect(view.recent_hedges).toEqual([]);
  });

  test('one-sided selling moves SOL out of its band; the hedger brings it home within the next trade', async () => {
    // 2.5 SOL each: inside the band after the first (+2.5), outside after the second (+5 > 4).
    trades.push(await sellSol('2.5'));
    expect((await inventory()).recent_hedges).toEqual([]);
    trades.push(await sellSol('2.5'));
    // Home: within min_clip of the target, every hedge landed.
    const view = await until(inventory, (v) => {
      const sol = v.assets.find((a: Json) => a.asset === 'SOL');
      const dev = BigInt(sol.target.deviation_raw ?? '999999999999');
      return (
        v.hedges_in_flight.length === 0 && v.recent_hedges.length > 0 && dev < RAW / 2n && dev > -RAW / 2n
      );
    });
    const hedges = [...view.recent_hedges].reverse();
    // 5 SOL long, clips of at most 3: 3 then 2.
    expect(hedges.map((h: Json) => [h.side, h.input.asset, h.input.amount_raw, h.status, h.attempt])).toEqual(
      [
        ['sell', 'SOL', (3n * RAW).toString(), 'landed', 1],
        ['sell', 'SOL', (2n * RAW).toString(), 'landed', 1],
      ],
    );
    // Both were triggered by the trade that left SOL outside its band.
    expect(hedges.map((h: Json) => h.trade_id)).toEqual([trades[1], trades[1]]);
    const sol = view.assets.find((a: Json) => a.asset === 'SOL');
    expect(sol.target.outside_band).toBe(false);
    expect(BigInt(sol.balance_raw)).toBe(start.sol);
  });

  test('each hedge landed once within its slippage bound, and shows on its trade as aggregator_swap', async () => {
    const hedges = (await inventory()).recent_hedges as Json[];
    expect(hedges).toHaveLength(2);
    for (const hedge of hedges) {
      expect(hedge.expired_signatures).toEqual([]);
      const tx = await service.chain.getTransaction(hedge.signature, 'finalized');
      expect(tx?.err).toBeNull();
      expect(BigInt(hedge.output.landed_raw)).toBeGreaterThanOrEqual(BigInt(hedge.output.min_raw));
      // At least the mid less 100 bps; the venue's fee (30 bps) alone makes it worse than the mid.
      expect(hedge.slippage_bps).toBeGreaterThan(0);
      expect(hedge.slippage_bps).toBeLessThanOrEqual(100);
      expect(BigInt(hedge.slippage_raw)).toBe(
        BigInt(hedge.output.at_mid_raw) - BigInt(hedge.output.landed_raw),
      );
    }
    const trade = (await service.app.inject(`/v1/trades/${trades[1]}`)).json();
    expect(trade.tx_signature_kinds.map((s: Json) => s.kind)).toEqual([
      'taker_lock',
      'maker_lock',
      'taker_redeem',
      'maker_redeem',
      'aggregator_swap',
      'aggregator_swap',
    ]);
    const swaps = trade.tx_signature_kinds
      .filter((s: Json) => s.kind === 'aggregator_swap')
      .map((s: Json) => s.signature);
    expect(swaps).toEqual([...hedges].reverse().map((h) => h.signature));
    expect(trade.tx_signatures.slice(-2)).toEqual(swaps);
    // The first trade triggered nothing.
    const first = (await service.app.inject(`/v1/trades/${trades[0]}`)).json();
    expect(first.tx_signature_kinds.map((s: Json) => s.kind)).not.toContain('aggregator_swap');
  });

  test('the ledger matches the chain’s token balances to the base unit, and balances per trade', async () => {
    const { entries, summaries } = (await service.app.inject('/v1/runtime/ledger')).json();
    const net = new Map<string, bigint>();
    for (const e of entries as Json[]) {
      // Network fees are native lamports (the wrapped-SOL mint names them): not the token balance.
      if (e.account !== 'maker' || e.movement === 'network_fee') continue;
      const signed = e.side === 'debit' ? BigInt(e.amount_raw) : -BigInt(e.amount_raw);
      net.set(e.mint, (net.get(e.mint) ?? 0n) + signed);
    }
    const end = await balances();
    expect(end.sol - start.sol).toBe(net.get(SOL_MINT) ?? 0n);
    expect(end.usdc - start.usdc).toBe(net.get(USDC_MINT) ?? 0n);
    expect(summaries.every((s: Json) => s.balanced)).toBe(true);
    // The hedges' legs, against the venue, under their signatures; their fees as the chain charged them.
    const hedges = (await inventory()).recent_hedges as Json[];
    expect(hedges).toHaveLength(2);
    for (const hedge of hedges) {
      const legs = (entries as Json[]).filter((e) => e.signature === hedge.signature);
      expect(legs.every((e) => e.trade_id === trades[1])).toBe(true);
      const venueSol = legs.find(
        (e) => e.movement === 'aggregator_swap' && e.account === 'venue' && e.mint === SOL_MINT,
      );
      const venueUsdc = legs.find(
        (e) => e.movement === 'aggregator_swap' && e.account === 'venue' && e.mint === USDC_MINT,
      );
      expect(venueSol).toMatchObject({ side: 'debit', amount_raw: hedge.input.amount_raw });
      expect(venueUsdc).toMatchObject({ side: 'credit', amount_raw: hedge.output.landed_raw });
      const fee = legs.find((e) => e.movement === 'network_fee' && e.account === 'network');
      const tx = await service.chain.getTransaction(hedge.signature, 'finalized');
      expect(BigInt(fee.amount_raw)).toBe(tx?.fee);
      expect(hedge.fee_lamports).toBe(fee.amount_raw);
    }
  });

  test('the trade’s net_usdc_estimate counts its hedges’ slippage and fees, not the price of the SOL sold', async () => {
    const trade = (await service.app.inject(`/v1/trades/${trades[1]}`)).json();
    const alone = (await service.app.inject(`/v1/trades/${trades[0]}`)).json();
    const hedges = (await inventory()).recent_hedges as Json[];
    expect(hedges).toHaveLength(2);
    // Static prices: the hedges' mid is the quote's. The two trades are alike (2.5 SOL each); the second
    // also carries its hedges: their slippage (USDC raw) and fees (lamports at $187.42).
    const slippage = hedges.reduce((sum, h) => sum + BigInt(h.slippage_raw), 0n);
    const fees = hedges.reduce((sum, h) => sum + BigInt(h.fee_lamports), 0n);
    const micro = (text: string) => BigInt(text.replace('.', ''));
    const feeMicro = (fees * 18_742n) / 100_000n; // lamports × 187.42 / 10^9 USD, in micro-USD
    const diff =
      micro(alone.ledger_summary.net_usdc_estimate) - micro(trade.ledger_summary.net_usdc_estimate);
    // Equal up to the rounding of each side's estimate to the micro-USDC.
    expect(diff - slippage - feeMicro).toBeGreaterThanOrEqual(-2n);
    expect(diff - slippage - feeMicro).toBeLessThanOrEqual(2n);
    expect(trade.ledger_summary.balanced).toBe(true);
  });

  test('one-sided buying leaves the maker short SOL: the hedger buys it back with USDC, never past the target', async () => {
    const before = (await inventory()).recent_hedges.length;
    // About 2.67 SOL each: short 5.3 SOL after the second, outside the band.
    const first = await buySol('500');
    const short = await buySol('500');
    const view = await until(inventory, (v) => {
      const sol = v.assets.find((a: Json) => a.asset === 'SOL');
      const dev = BigInt(sol.target.deviation_raw ?? '-999999999999');
      return v.hedges_in_flight.length === 0 && v.recent_hedges.length > before && dev > -RAW / 2n;
    });
    const buys = (view.recent_hedges as Json[]).slice(0, view.recent_hedges.length - before).reverse();
    expect(buys.length).toBeGreaterThanOrEqual(2);
    for (const hedge of buys) {
      expect(hedge).toMatchObject({ side: 'buy', status: 'landed', attempt: 1 });
      // The redeem whose check found SOL outside its band: the second's, or the first's when the hedger's
      // check ran after the second trade's lock had already moved SOL (a busy machine's timing).
      expect([first, short]).toContain(hedge.trade_id);
      expect(hedge.input.asset).toBe('USDC');
      expect(hedge.output.asset).toBe('SOL');
      expect(hedge.slippage_bps).toBeLessThanOrEqual(100);
    }
    // The first buy is a full clip: 3 SOL at the mid ($187.42), paid in USDC.
    expect(buys[0].input.amount_raw).toBe('562260000');
    const sol = view.assets.find((a: Json) => a.asset === 'SOL');
    // Bought at most what was missing: never above the target.
    expect(BigInt(sol.target.deviation_raw)).toBeLessThanOrEqual(0n);
    // Each hedge shows on the trade that triggered it.
    let swaps = 0;
    for (const id of [first, short]) {
      const trade = (await service.app.inject(`/v1/trades/${id}`)).json();
      const shown = trade.tx_signature_kinds.filter((s: Json) => s.kind === 'aggregator_swap');
      expect(shown.map((s: Json) => s.signature).sort()).toEqual(
        buys
          .filter((h) => h.trade_id === id)
          .map((h) => h.signature)
          .sort(),
      );
      swaps += shown.length;
    }
    expect(swaps).toBe(buys.length);
  });

  test('metrics count the hedges, their size and slippage; SOL is inside its band', async () => {
    const text = (await service.app.inject('/metrics')).body;
    const landed = Number(/rfq_maker_hedges_landed_total\{asset="SOL",side="buy"\} (\d+)/.exec(text)?.[1]);
    expect(landed).toBeGreaterThanOrEqual(2);
    expect(text).toContain('rfq_maker_hedges_landed_total{asset="SOL",side="sell"} 2');
    expect(text).toContain(`rfq_maker_hedge_slippage_bps_count{asset="SOL"} ${2 + landed}`);
    expect(text).toContain(`rfq_maker_hedge_notional_usd_count{asset="SOL"} ${2 + landed}`);
    expect(text).toContain(`rfq_maker_hedge_duration_seconds_count{asset="SOL"} ${2 + landed}`);
    expect(text).toContain('rfq_maker_inventory_outside_band{asset="SOL"} 0');
    expect(text).toMatch(/rfq_maker_hedge_failures_total\{asset="SOL",reason="slippage"\} 0/);
  });
});

// A second maker with 100 SOL (target 100, band 4) whose clips are at least 4 SOL: what open quotes reserve
// can leave less than that to sell, and a stale price stops every hedge, until it is fresh again.
// In this order: the stale mid is tried on the inventory the reserved-quotes step left hedged once.
describe('what the hedger refuses: reserved inventory, a stale mid', { shuffle: false }, () => {
  let maker: TestService;
  const stale = new Set<string>();
  let inner: PriceSource | null = null;
  /** The config's static prices, except that an asset in `stale` was published in 1970. */
  const source: PriceSource = {
    latest(mint: string) {
      inner ??= new StaticPriceSource(maker.config.prices);
      const price = inner.latest(mint);
      return price && stale.has(mint) ? { ...price, asOf: new Date(0), alwaysFresh: false } : price;
    },
  };

  const view = async (): Promise<Json> => (await maker.app.inject('/v1/inventory')).json();
  const solOf = (v: Json) => v.assets.find((a: Json) => a.asset === 'SOL');

  async function trade(taker: Taker, amount: string) {
    const quote = await taker.quote('SOL', 'USDC', amount);
    const secret = newSecret();
    const settled = (await taker.settle(quote.quote_id, secret)).json();
    const tradeId = settled.trade_id as string;
    expect((await taker.lock(tradeId, settled.taker_lock_transaction.transaction_base64)).statusCode).toBe(
      202,
    );
    await taker.waitFor(tradeId, (t) => t.next_action?.type === 'redeem');
    return {
      tradeId,
      redeem: async () => {
        expect(
          (await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).statusCode,
        ).toBe(202);
        await taker.waitFor(tradeId, (t) => t.settlement_status === 'redeemed');
      },
    };
  }

  beforeAll(async () => {
    maker = await startService(
      (doc) => {
        doc.venue = shipped.venue;
        doc.inventory = doc.inventory.map((entry) =>
          entry.asset === 'SOL' ? { ...entry, amount: '100' } : entry,
        );
        doc.hedging = {
          ...HEDGING,
          assets: { SOL: { target: '100', band: '4', max_clip: '10', min_clip: '4' } },
        };
        // One buyer's open quotes reserve nearly all free SOL here: the holds budget must not refuse them.
        doc.reservations = { client_share_bps: 10_000, wallet_share_bps: 10_000, unfunded_share_bps: 10_000 };
      },
      { prices: source },
    );
  });
  afterAll(async () => maker?.dispose());

  test('open quotes reserving the SOL it would sell hold the hedge back until they expire', async () => {
    const taker = new Taker(maker.app);
    await taker.airdrop('SOL', '20');
    await (await trade(taker, '2.5')).redeem();
    // Quotes for SOL until what they reserve leaves under 1.5 SOL free beside the 102.5 the maker has: after
    // the next 2.5 SOL sale the band is crossed (+5) and under 4 SOL (min_clip) are free to sell.
    await until(view, (v) => solOf(v).balance_raw === ((1025n * RAW) / 10n).toString());
    const buyer = new Taker(maker.app);
    const free = async () =>
      (await maker.chain.tokenBalance(maker.chain.makerWallet, new PublicKey(SOL_MINT))) -
      BigInt(solOf(await view()).reserved_raw);
    for (let i = 0; i < 10 && (await free()) >= (3n * RAW) / 2n; i++) {
      const want = (await free()) - (3n * RAW) / 4n;
      // USDC for `want` SOL at $187.42 (the spread makes it a little less), expiring in 12 s.
      const microUsdc = (want * 18_742n) / 100n / 1_000n;
      const res = await buyer.post('/v1/rfq', {
        input_asset: 'USDC',
        output_asset: 'SOL',
        amount: `${microUsdc / 1_000_000n}.${(microUsdc % 1_000_000n).toString().padStart(6, '0')}`,
        taker_wallet: buyer.address,
        expiry_seconds: 12,
      });
      expect(res.json().status, res.body).toBe('accepted');
    }
    const reserved = BigInt(solOf(await view()).reserved_raw);
    const next = await trade(taker, '2.5');
    const freeAfter = 105n * RAW - reserved;
    expect(freeAfter).toBeLessThan(4n * RAW);
    await next.redeem();
    // Held back: outside the band, nothing recorded, and the view says why.
    // (The view's balances are the desk's cache, read every second.)
    const held = await until(
      view,
      (v) => solOf(v).target.last_error !== null && solOf(v).target.outside_band,
    );
    expect(solOf(held).target).toMatchObject({ outside_band: true, last_error: { reason: 'reserved' } });
    expect(held.recent_hedges).toEqual([]);
    // Once the quotes expire the whole excess is sold, in one clip of 5 SOL.
    const home = await until(
      view,
      (v) => v.recent_hedges.length === 1 && v.hedges_in_flight.length === 0,
      45_000,
    );
    expect(home.recent_hedges[0]).toMatchObject({
      status: 'landed',
      trade_id: next.tradeId,
      input: { asset: 'SOL', amount_raw: (5n * RAW).toString() },
    });
    expect(solOf(home).target).toMatchObject({ outside_band: false, last_error: null });
  });

  test('a stale price stops the hedge — nothing recorded, the failure counted — until it is fresh again', async () => {
    const taker = new Taker(maker.app);
    await taker.airdrop('SOL', '20');
    await (await trade(taker, '2.5')).redeem();
    const next = await trade(taker, '2.5');
    stale.add(SOL_MINT);
    await next.redeem();
    const refused = await until(
      view,
      (v) => solOf(v).target.last_error?.reason === 'stale_price' && solOf(v).target.outside_band,
    );
    expect(solOf(refused).target.outside_band).toBe(true);
    expect(refused.recent_hedges).toHaveLength(1);
    // Tried again every retry_seconds (1 s), still refused while the price stays stale.
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await view()).recent_hedges).toHaveLength(1);
    const metrics = (await maker.app.inject('/metrics')).body;
    const failures = Number(
      /rfq_maker_hedge_failures_total\{asset="SOL",reason="stale_price"\} (\d+)/.exec(metrics)?.[1],
    );
    expect(failures).toBeGreaterThanOrEqual(2);
    stale.delete(SOL_MINT);
    const home = await until(view, (v) => v.recent_hedges.length === 2 && v.hedges_in_flight.length === 0);
    expect(home.recent_hedges[0]).toMatchObject({ status: 'landed', trade_id: next.tradeId });
    expect(solOf(home).target).toMatchObject({ outside_band: false, last_error: null });
  });
});
