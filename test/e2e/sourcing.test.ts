// Just-in-time sourcing end to end on the embedded chain, through the embedded venue over real HTTP: a maker
// with 2 SOL is asked for more than 5. The quote prices the free part from its inventory and the rest from
// the venue's route (risk check `sourcing`); after the taker's lock is final the maker buys the rest with its
// own USDC (aggregator_swap), then locks, and the trade settles with the ledger matching the chain's token
// balances to the base unit. With the venue's API gone between quote and lock, the maker declines
// (sourcing_failed) and releases the taker's escrow at once, long before its expiry.
import { readFileSync } from 'node:fs';
import { PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_CONFIG_PATH } from '../../src/config/index.ts';
import { signSourcingSwap } from '../../src/runtime/sourcing.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';
import { startService, type TestService } from '../support/service.ts';
import { newSecret, Taker } from '../support/taker.ts';

type Json = ReturnType<typeof JSON.parse>;

const shipped = JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')) as Record<string, unknown>;

let service: TestService;
let start: { sol: bigint; usdc: bigint };

const balances = async (owner?: PublicKey) => {
  const who = owner ?? service.chain.makerWallet;
  return {
    sol: await service.chain.tokenBalance(who, new PublicKey(SOL_MINT)),
    usdc: await service.chain.tokenBalance(who, new PublicKey(USDC_MINT)),
  };
};

beforeAll(async () => {
  service = await startService((doc) => {
    // The venue is configured and no sourcing section is: sourcing is on by default.
    doc.venue = shipped.venue;
    doc.inventory = doc.inventory.map((entry) => (entry.asset === 'SOL' ? { ...entry, amount: '2' } : entry));
  });
  start = await balances();
});
afterAll(async () => service?.dispose());

// One story on one maker: the quote, its trade, the books, then the refusals on the venue the trade moved.
describe('just-in-time sourcing on the embedded chain', { shuffle: false }, () => {
  let tradeId: string;
  let quote: Json;

  test('a quote for more SOL than the maker has names the sourcing check and prices the rest from the route', async () => {
    const taker = new Taker(service.app);
    await taker.airdrop('USDC', '1000');
    // A quote its inventory covers does not name sourcing, nor show a sourcing cost.
    const small = await taker.quote('USDC', 'SOL', '10');
    expect(small.risk_checks).not.toContain('sourcing');
    expect(small.spread_breakdown.sourcing_bps).toBeUndefined();
    quote = await taker.quote('USDC', 'SOL', '1000');
    const output = BigInt(quote.quoted_output_amount_raw);
    // 1000 USDC at $187.42 is some 5.34 SOL: more than the maker's 2.
    expect(output).toBeGreaterThan(start.sol);
    expect(quote.risk_checks).toContain('sourcing');
    expect(quote.risk_checks).toContain('inventory');
    // Never above the mid, and the breakdown adds up with the route's cost.
    const mid = (1000n * 10n ** 9n * 100n) / 18_742n;
    expect(output).toBeLessThan(mid);
    const b = quote.spread_breakdown;
    expect(b.sourcing_bps).toBeGreaterThanOrEqual(0);
    expect(b.base_bps + b.confidence_bps + b.option_bps + b.size_and_skew_bps + b.sourcing_bps).toBe(
      quote.spread_bps,
    );
    // The taker's output is never below what the reported spread implies.
    expect(output).toBeGreaterThanOrEqual((mid * BigInt(10_000 - quote.spread_bps)) / 10_000n);

    const secret = newSecret();
    const settled = (await taker.settle(quote.quote_id, secret)).json();
    tradeId = settled.trade_id as string;
    const locked = await taker.lock(tradeId, settled.taker_lock_transaction.transaction_base64);
    expect(locked.statusCode, locked.body).toBe(202);
    await taker.waitFor(tradeId, (t) => t.next_action?.type === 'redeem', 30_000);
    expect((await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).statusCode).toBe(
      202,
    );
    const done = await taker.waitFor(tradeId, (t) => t.settlement_status === 'redeemed', 30_000);
    expect(done.failure_reason ?? null).toBeNull();
    // The taker got every raw unit quoted.
    expect((await balances(new PublicKey(taker.address))).sol).toBe(output);
  });

  test('the trade shows the aggregator_swap before the maker_lock; the swap bought at least the sourced part', async () => {
    const trade = (await service.app.inject(`/v1/trades/${tradeId}`)).json();
    const kinds = trade.tx_signature_kinds.map((s: Json) => s.kind);
    expect(kinds.slice(0, 3)).toEqual(['taker_lock', 'aggregator_swap', 'maker_lock']);
    expect(kinds.filter((k: string) => k === 'aggregator_swap')).toHaveLength(1);
    const swap = trade.tx_signature_kinds.find((s: Json) => s.kind === 'aggregator_swap').signature;
    const tx = await service.chain.getTransaction(swap, 'finalized');
    expect(tx?.err).toBeNull();
    const { entries } = (await service.app.inject('/v1/runtime/ledger')).json();
    const legs = (entries as Json[]).filter((e) => e.signature === swap);
    expect(legs.every((e) => e.trade_id === tradeId)).toBe(true);
    const venueSol = legs.find(
      (e) => e.movement === 'aggregator_swap' && e.account === 'venue' && e.mint === SOL_MINT,
    );
    const venueUsdc = legs.find(
      (e) => e.movement === 'aggregator_swap' && e.account === 'venue' && e.mint === USDC_MINT,
    );
    // The maker sold USDC of its own to the venue and bought SOL from it.
    expect(venueUsdc.side).toBe('debit');
    expect(venueSol.side).toBe('credit');
    const fee = legs.find((e) => e.movement === 'network_fee');
    expect(BigInt(fee.amount_raw)).toBe(tx?.fee);
    // The quote's free part came from the inventory: at most the maker's 2 SOL.
    expect(BigInt(quote.quoted_output_amount_raw) - BigInt(venueSol.amount_raw)).toBeLessThanOrEqual(
      start.sol,
    );
  });

  test('the ledger matches the chain’s token balances to the base unit, and every trade balances', async () => {
    const { entries, summaries } = (await service.app.inject('/v1/runtime/ledger')).json();
    const net = new Map<string, bigint>();
    for (const e of entries as Json[]) {
      if (e.account !== 'maker' || e.movement === 'network_fee') continue;
      const signed = e.side === 'debit' ? BigInt(e.amount_raw) : -BigInt(e.amount_raw);
      net.set(e.mint, (net.get(e.mint) ?? 0n) + signed);
    }
    const end = await balances();
    expect(end.sol - start.sol).toBe(net.get(SOL_MINT) ?? 0n);
    expect(end.usdc - start.usdc).toBe(net.get(USDC_MINT) ?? 0n);
    expect(summaries.every((s: Json) => s.balanced)).toBe(true);
  });

  test('a route that slipped below what the taker is owed, or an input the maker lacks, is refused before anything is signed', async () => {
    const aggregator = service.aggregator;
    if (aggregator === null) throw new Error('the venue serves an aggregator');
    const sellRaw = 500_000_000n; // 500 USDC
    // At $187.42 the mid value is some 2.668 SOL; the venue's fee alone keeps the route below it.
    const midOut = (sellRaw * 100_000n) / 18_742n;
    const hooks = {
      aggregator,
      rawMid: () => ({ num: 100_000n, den: 18_742n }),
      maxSlippageBps: 100,
      aggregatorMaxSlippageBps: 100,
      routeToleranceBps: 20,
    };
    const plan = { tradeId: 'probe', sellMint: USDC_MINT, sellRaw: sellRaw.toString(), buyMint: SOL_MINT };
    const slipped = await signSourcingSwap(service.chain, hooks, { ...plan, minBuyRaw: midOut.toString() });
    expect(slipped).toMatchObject({ ok: false, reason: expect.stringContaining('below the') });
    // Within the bound it signs (nothing is sent: the maker's balances do not move).
    const before = await balances();
    const fine = await signSourcingSwap(service.chain, hooks, {
      ...plan,
      minBuyRaw: ((midOut * 99n) / 100n).toString(),
    });
    expect(fine).toMatchObject({ ok: true });
    expect(await balances()).toEqual(before);
    const rich = await signSourcingSwap(service.chain, hooks, {
      ...plan,
      sellRaw: (before.usdc + 1n).toString(),
      minBuyRaw: '1',
    });
    expect(rich).toMatchObject({ ok: false, reason: expect.stringContaining('less than the') });
  });

  test('with the venue’s API gone after the quote, the maker declines (sourcing_failed) and releases the taker at once', async () => {
    const taker = new Taker(service.app);
    await taker.airdrop('USDC', '1000');
    const q = await taker.quote('USDC', 'SOL', '1000');
    expect(q.risk_checks).toContain('sourcing');
    const secret = newSecret();
    const settled = (await taker.settle(q.quote_id, secret)).json();
    const id = settled.trade_id as string;
    const before = await balances(new PublicKey(taker.address));
    // A real fault: the aggregator's base URL no longer answers.
    if (service.venue === null) throw new Error('the config names a venue');
    await service.venue.close();
    const locked = await taker.lock(id, settled.taker_lock_transaction.transaction_base64);
    expect(locked.statusCode, locked.body).toBe(202);
    const failed = await taker.waitFor(id, (t) => t.substate === 'refunded.closed', 20_000);
    expect(failed.failure_reason).toBe('sourcing_failed');
    // Released at once by the maker (the release shows as the taker's refund): no swap, no maker lock.
    expect(failed.tx_signature_kinds.map((s: Json) => s.kind)).toEqual(['taker_lock', 'taker_refund']);
    expect(failed.ledger_summary.balanced).toBe(true);
    // Long before the escrow's expiry (15 minutes after the start): the taker did not wait for it.
    const chainNow = Number(await service.chain.now());
    expect(chainNow).toBeLessThan(Date.parse(failed.expires_at) / 1000 - 600);
    const after = await balances(new PublicKey(taker.address));
    expect(after.usdc).toBe(before.usdc);
    // Why, in the trade's history: the aggregator could not be reached; then the maker's cancel.
    const events = await service.store.tradeEvents(id);
    const signed = events.find((e) => e.type === 'xstate.done.actor.signSourcing');
    expect(signed?.payload).toMatchObject({
      output: { ok: false, reason: expect.stringMatching(/^unavailable/) },
    });
    const released = events.find((e) => e.type === 'xstate.done.actor.makerCancel');
    expect(released?.payload).toMatchObject({ output: { kind: 'returned', how: 'cancelled' } });
    expect(events.some((e) => e.type === 'xstate.done.actor.sendSourcing')).toBe(false);
  });
});
