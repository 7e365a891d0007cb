// The maker's own swaps sandwiched on the embedded venue, with a zero-fee pool (on a fee-less venue nothing
// stops an attacker): an attacker who sees the maker's signed swap front-runs it as far as its minimum out
// lets it land, and sells back after. What the maker loses against the untouched pool, per unit it bought,
// is what the swap's minimum leaves to take. Measured for a sourcing swap and for a hedge, with the minimum
// the maker used to set (the Pyth mid less the slippage limit, or what the taker was owed) and with the one
// it sets now (the route's quoted out less aggregator.route_tolerance_bps). Then a real sourced trade whose
// swap is pushed past its minimum: quoted once more, and listed as failed on the trade; pushed twice, the
// taker is released (sourcing_failed).
import { PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AggregatorPort,
  floorOut,
  rawMid,
  routeSlippageBps,
  slippageFloor,
} from '../../src/aggregator/index.ts';
import type { EmbeddedChain } from '../../src/chain/embedded/index.ts';
import type { ChainPort, SignedMakerTransaction } from '../../src/chain/port.ts';
import { type Step, signClip } from '../../src/hedging/clip.ts';
import { dividePrices, formatDecimal, type Price } from '../../src/money/index.ts';
import { signSourcingSwap } from '../../src/runtime/sourcing.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';
import { isSwapTransaction, Sandwicher, type SandwichResult } from '../support/sandwich.ts';
import { startService, type TestService } from '../support/service.ts';
import { newSecret, Taker } from '../support/taker.ts';

type Json = ReturnType<typeof JSON.parse>;

const SOL = new PublicKey(SOL_MINT);
const USDC = new PublicKey(USDC_MINT);

let service: TestService;
let attacker: Sandwicher;
/** The maker swaps the attacker goes after in the trade tests (each once), and how far past the minimum. */
let attacks = 0;
/** Maker swaps let through untouched before the attacks start. */
let skips = 0;
const attacked = new Set<string>();

beforeAll(async () => {
  let inner: ChainPort | null = null;
  service = await startService(
    (doc) => {
      // A venue without fees (nothing makes a front-run cost the attacker) and without its keeper (nothing
      // else moves the pool between the attacker's steps).
      doc.venue = { liquidity_usd_per_side: '2000000', fee_bps: 0, keeper_trigger_bps: null };
      doc.inventory = doc.inventory.map((entry) =>
        entry.asset === 'SOL' ? { ...entry, amount: '2' } : entry,
      );
      // Bands and clips for signing hedges; the hedger itself stays off (the trades here must not move it).
      doc.hedging = {
        enabled: false,
        quote_asset: 'USDC',
        assets: { SOL: { target: '2', band: '1', max_clip: '25', min_clip: '1' } },
      };
    },
    {
      // The attacker sits where a validator does: it sees each maker swap before it lands.
      wrapChain: (chain) => {
        inner = chain;
        return {
          ...chain,
          land: async (tx, commitment, timeoutMs) => {
            if (attacks === 0 || !isSwapTransaction(tx.transactionBase64) || attacked.has(tx.signature)) {
              return chain.land(tx, commitment, timeoutMs);
            }
            attacked.add(tx.signature);
            if (skips > 0) {
              skips -= 1;
              return chain.land(tx, commitment, timeoutMs);
            }
            attacks -= 1;
            attacked.add(tx.signature);
            // One raw unit of USDC past what the swap's minimum allows: it fails for slippage.
            const result = await attacker.attack(tx, USDC, SOL, (largest) => largest + 1_000_000n);
            return result.landed;
          },
        };
      },
    },
  );
  if (inner === null || service.venue === null) throw new Error('the service opened an embedded venue');
  attacker = new Sandwicher(inner as EmbeddedChain, service.venue);
  await attacker.fund(USDC, 10_000_000_000_000n);
  await attacker.fund(SOL, 50_000_000_000_000n);
});
afterAll(async () => service?.dispose());

const usd = (mint: string): Price => {
  const price = service.prices.latest(mint);
  if (!price) throw new Error(`no price for ${mint}`);
  return price.usd;
};
const midOf = (sell: string, sellDecimals: number, buy: string, buyDecimals: number) =>
  rawMid(dividePrices(usd(sell), usd(buy)), sellDecimals, buyDecimals);
const aggregator = (): AggregatorPort => {
  if (service.aggregator === null) throw new Error('the venue serves an aggregator');
  return service.aggregator;
};

/** A swap signed through the port at the slippage that takes its minimum out down to `least`. */
async function signDownTo(
  sell: PublicKey,
  buy: PublicKey,
  amountRaw: bigint,
  mid: { num: bigint; den: bigint },
  least: bigint,
) {
  const port = aggregator();
  const request = { inputMint: sell, outputMint: buy, amountRaw, referenceMid: mid };
  const probe = await port.quote({ ...request, slippageBps: 0 });
  const slippageBps = routeSlippageBps(probe.outAmount, least, service.config.aggregator.maxSlippageBps);
  if (slippageBps === null) throw new Error('the route pays less than the floor');
  const quoted = await port.quote({ ...request, slippageBps });
  return port.swapTransaction(quoted);
}

const figures: Record<string, SandwichResult> = {};
const show = (name: string, r: SandwichResult) =>
  `${name}: sold ${r.amountIn}, untouched pool pays ${r.untouchedOut}, minimum ${r.minOut}, bought ${r.boughtOut} ` +
  `after a ${r.frontRunIn} front-run: the maker lost ${r.lossBps} bps, the attacker gained ${r.attackerGainRaw}`;

describe('the extractable amount of a maker swap on a zero-fee pool', { shuffle: false }, () => {
  const tolerance = () => service.config.aggregator.routeToleranceBps;

  test('a sourcing swap: with the old minimum the sandwich takes most of the slippage limit; now at most the tolerance', async () => {
    const taker = new Taker(service.app);
    await taker.airdrop('USDC', '1000');
    // The plan a real sourced quote carries: 1000 USDC asked of a maker holding 2 SOL. Never settled, it lapses
    // at once, so its hold does not count against the trades below.
    const quote = (
      await service.app.inject({
        method: 'POST',
        url: '/v1/rfq',
        payload: {
          input_asset: 'USDC',
          output_asset: 'SOL',
          amount: '1000',
          taker_wallet: taker.address,
          expiry_seconds: 1,
        },
      })
    ).json();
    expect(quote.risk_checks).toContain('sourcing');
    const plan = (await service.store.getQuote(quote.quote_id))?.sourcing;
    if (!plan) throw new Error('the quote sources part of its output');
    const sellRaw = BigInt(plan.sellRaw);
    const mid = midOf(USDC_MINT, 6, SOL_MINT, 9);

    // Before: the swap's minimum was the mid less sourcing.max_slippage_bps, or the taker's sourced
    // output when that was higher.
    const floor = floorOut(sellRaw, mid, service.config.sourcing.maxSlippageBps);
    const owed = BigInt(plan.minBuyRaw);
    const old = await signDownTo(USDC, SOL, sellRaw, mid, floor > owed ? floor : owed);
    figures.sourcingBefore = await attacker.attack(old, USDC, SOL);

    // Now: what the runtime signs.
    const hooks = {
      aggregator: aggregator(),
      rawMid: () => mid,
      maxSlippageBps: service.config.sourcing.maxSlippageBps,
      aggregatorMaxSlippageBps: service.config.aggregator.maxSlippageBps,
      routeToleranceBps: tolerance(),
    };
    const signed = await signSourcingSwap(service.chain, hooks, { tradeId: 'measure', ...plan });
    if (!signed.ok) throw new Error(signed.reason);
    figures.sourcingAfter = await attacker.attack(signed, USDC, SOL);

    console.log(show('sourcing, before', figures.sourcingBefore));
    console.log(show('sourcing, after', figures.sourcingAfter));
    expect(figures.sourcingBefore.boughtOut).not.toBeNull();
    expect(figures.sourcingAfter.boughtOut).not.toBeNull();
    expect(figures.sourcingAfter.lossBps).toBeLessThanOrEqual(tolerance());
    // The old minimum let the sandwich take several times the tolerance: the measurement tells them apart.
    expect(figures.sourcingBefore.lossBps).toBeGreaterThan(3 * tolerance());
    // And the taker still gets what it was owed: the swap bought at least the plan's minimum.
    expect(figures.sourcingAfter.boughtOut as bigint).toBeGreaterThanOrEqual(owed);
  });

  test('a hedge: the same, against hedging.max_slippage_bps', async () => {
    const hedging = service.config.hedging;
    const hedged = hedging?.assets[0];
    if (!hedging || !hedged) throw new Error('the config names SOL’s band');
    const amountInRaw = 5_000_000_000n; // sell 5 SOL for USDC
    const mid = midOf(SOL_MINT, 9, USDC_MINT, 6);
    const old = await signDownTo(
      SOL,
      USDC,
      amountInRaw,
      mid,
      slippageFloor(amountInRaw, mid, hedging.maxSlippageBps),
    );
    figures.hedgeBefore = await attacker.attack(old, SOL, USDC);

    const step: Step = {
      plan: { kind: 'clip', side: 'sell', amountInRaw, assetRaw: amountInRaw },
      assetUsd: usd(SOL_MINT),
      quoteUsd: usd(USDC_MINT),
    };
    const clip = await signClip(
      {
        config: hedging,
        aggregatorMaxSlippageBps: service.config.aggregator.maxSlippageBps,
        routeToleranceBps: tolerance(),
        chain: service.chain,
        aggregator: aggregator(),
        freshPrice: usd,
        reservations: service.quotes.reservations,
      },
      hedged,
      step,
    );
    figures.hedgeAfter = await attacker.attack(clip.signed as SignedMakerTransaction, SOL, USDC);

    console.log(show('hedge, before', figures.hedgeBefore));
    console.log(show('hedge, after', figures.hedgeAfter));
    expect(figures.hedgeAfter.boughtOut).not.toBeNull();
    expect(figures.hedgeAfter.lossBps).toBeLessThanOrEqual(tolerance());
    expect(figures.hedgeBefore.lossBps).toBeGreaterThan(3 * tolerance());
  });
});

describe('a sourced trade whose swap is pushed past its minimum', () => {
  const sourcedTrade = async () => {
    const taker = new Taker(service.app);
    await taker.airdrop('USDC', '1000');
    const quote = await taker.quote('USDC', 'SOL', '1000');
    expect(quote.risk_checks).toContain('sourcing');
    const secret = newSecret();
    const settled = (await taker.settle(quote.quote_id, secret)).json();
    const tradeId = settled.trade_id as string;
    return {
      taker,
      quote,
      secret,
      tradeId,
      lock: settled.taker_lock_transaction.transaction_base64 as string,
    };
  };
  const swapsOf = (trade: Json) =>
    (trade.tx_signature_kinds as Json[]).filter((s) => s.kind === 'aggregator_swap');

  test('once: the swap fails for slippage, is quoted again, lands, and the trade settles; the failed swap is listed as failed', async () => {
    const { taker, quote, secret, tradeId, lock } = await sourcedTrade();
    attacks = 1;
    expect((await taker.lock(tradeId, lock)).statusCode).toBe(202);
    await taker.waitFor(tradeId, (t) => t.next_action?.type === 'redeem', 30_000);
    expect(attacks).toBe(0);
    expect((await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).statusCode).toBe(
      202,
    );
    const done = await taker.waitFor(tradeId, (t) => t.settlement_status === 'redeemed', 30_000);
    expect(done.tx_signature_kinds.map((s: Json) => s.kind).slice(0, 4)).toEqual([
      'taker_lock',
      'aggregator_swap',
      'aggregator_swap',
      'maker_lock',
    ]);
    const [failed, landed] = swapsOf(done);
    expect(failed.outcome).toBe('failed');
    expect(landed.outcome).toBe('succeeded');
    expect(failed.signature).not.toBe(landed.signature);
    expect(done.tx_signatures).toContain(failed.signature);
    // On chain: the first failed for its minimum out (the AMM's SlippageExceeded), the second swapped.
    const first = await service.chain.getTransaction(failed.signature, 'finalized');
    expect(first?.err).toMatch(/Custom\(6022\)/);
    expect((await service.chain.getTransaction(landed.signature, 'finalized'))?.err).toBeNull();
    // The failed swap's fee is on the trade's ledger, which balances; the taker got every unit quoted.
    const { entries } = (await service.app.inject('/v1/runtime/ledger')).json();
    const fee = (entries as Json[]).find(
      (e) => e.signature === failed.signature && e.movement === 'network_fee',
    );
    expect(BigInt(fee.amount_raw)).toBe(first?.fee);
    expect(done.ledger_summary.balanced).toBe(true);
    expect(await service.chain.tokenBalance(taker.wallet.publicKey, SOL)).toBe(
      BigInt(quote.quoted_output_amount_raw),
    );
  });

  test('twice: after the second failure the taker is released at once (sourcing_failed), both swaps listed as failed', async () => {
    const { taker, tradeId, lock } = await sourcedTrade();
    attacks = 2;
    expect((await taker.lock(tradeId, lock)).statusCode).toBe(202);
    const released = await taker.waitFor(tradeId, (t) => t.substate === 'refunded.closed', 30_000);
    expect(attacks).toBe(0);
    expect(released.failure_reason).toBe('sourcing_failed');
    expect(released.tx_signature_kinds.map((s: Json) => s.kind)).toEqual([
      'taker_lock',
      'aggregator_swap',
      'aggregator_swap',
      'taker_refund',
    ]);
    expect(swapsOf(released).map((s) => s.outcome)).toEqual(['failed', 'failed']);
    expect(released.ledger_summary.balanced).toBe(true);
  });

  test('a hedge pushed past its minimum fails on chain, and shows on the trade that triggered it as failed', {
    timeout: 90_000,
  }, async () => {
    // Hedging switched on live, SOL's target set a SOL above the maker's balance with a narrow band: once the
    // trade is redeemed the hedger buys SOL back (USDC → SOL, the side the attacker front-runs).
    const balance = await service.chain.tokenBalance(service.chain.makerWallet, SOL);
    const band = await service.app.inject({
      method: 'PATCH',
      url: '/v1/desk/hedging/SOL',
      payload: { target: formatDecimal(balance + 1_000_000_000n, 9), band: '0.1', min_clip: '0.05' },
    });
    expect(band.statusCode, band.body).toBe(200);
    const on = await service.app.inject({
      method: 'PATCH',
      url: '/v1/desk',
      payload: { hedging_enabled: true },
    });
    expect(on.statusCode, on.body).toBe(200);
    try {
      const { taker, secret, tradeId, lock } = await sourcedTrade();
      // The sourcing swap lands untouched; the hedge after the redeem is the one attacked.
      skips = 1;
      attacks = 1;
      expect((await taker.lock(tradeId, lock)).statusCode).toBe(202);
      await taker.waitFor(tradeId, (t) => t.next_action?.type === 'redeem', 30_000);
      expect(
        (await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).statusCode,
      ).toBe(202);
      const done = await taker.waitFor(
        tradeId,
        (t) => t.settlement_status === 'redeemed' && swapsOf(t).length === 2,
        30_000,
      );
      expect(attacks).toBe(0);
      const [sourcing, hedge] = swapsOf(done);
      expect(sourcing.outcome).toBe('succeeded');
      expect(hedge.outcome).toBe('failed');
      expect(done.tx_signature_kinds.at(-1)).toEqual(hedge);
      const [record] = await service.store.hedgesOfTrades([tradeId]);
      expect(record).toMatchObject({ side: 'buy', status: 'failed', signature: hedge.signature });
      expect(record?.error).toMatch(/Custom\(6022\)/);
      const { entries } = (await service.app.inject(`/v1/runtime/ledger?trade_id=${tradeId}`)).json();
      expect(
        (entries as Json[]).some((e) => e.signature === hedge.signature && e.movement === 'network_fee'),
      ).toBe(true);
    } finally {
      await service.app.inject({ method: 'PATCH', url: '/v1/desk', payload: { hedging_enabled: null } });
      await service.app.inject({
        method: 'PATCH',
        url: '/v1/desk/hedging/SOL',
        payload: { target: null, band: null, min_clip: null },
      });
    }
  });
});
