// The recording side of the metrics, without a service: the metered chain port and what a trade's stored
// transitions count.
import { PublicKey } from '@solana/web3.js';
import { describe, expect, test } from 'vitest';
import type { PriceCheck } from '../../machines/index.ts';
import { ChainError, type ChainPort, METERED_CHAIN_METHODS, meterChain } from '../../src/chain/index.ts';
import { ServiceMetrics } from '../../src/metrics/index.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';
import { parseExposition, sampleValue } from './exposition.ts';

/** What a transition tells the metrics of its trade, before anything failed or was assessed. */
const TRADE = {
  alert: false,
  effectError: null,
  assessment: null,
  inputMint: SOL_MINT,
  outputMint: USDC_MINT,
};

const PROGRAM = new PublicKey('11111111111111111111111111111112');
const MAKER = new PublicKey('SysvarC1ock11111111111111111111111111111111');

/** A port whose every method answers its own name and arguments; `fail` names methods that throw instead. */
function echoChain(fail: Partial<Record<string, Error>> = {}) {
  const closed: string[] = [];
  const port: Record<string, unknown> = { kind: 'embedded', programId: PROGRAM, makerWallet: MAKER };
  for (const method of METERED_CHAIN_METHODS) {
    port[method] = async (...args: unknown[]) => {
      const error = fail[method];
      if (error) throw error;
      return { method, args };
    };
  }
  port.watchAccounts = () => ({ live: true, generation: 7, close: () => closed.push('feed') });
  port.close = async () => {
    closed.push('chain');
  };
  return { chain: port as unknown as ChainPort, closed };
}

describe('meterChain', () => {
  test('every metered method reaches the port with its arguments and is recorded under its own name', async () => {
    const calls: [string, number, string | null][] = [];
    const { chain } = echoChain();
    const metered = meterChain(chain, { chainCall: (m, s, f) => calls.push([m, s, f]) });
    for (const method of METERED_CHAIN_METHODS) {
      const call = metered[method] as (...args: unknown[]) => Promise<unknown>;
      expect(await call('a', 2), method).toEqual({ method, args: ['a', 2] });
    }
    expect(calls.map(([method]) => method)).toEqual([...METERED_CHAIN_METHODS]);
    for (const [method, seconds, failure] of calls) {
      expect(seconds, method).toBeGreaterThanOrEqual(0);
      expect(failure, method).toBe(null);
    }
  });

  test('a failure is rethrown as is and recorded with its chain error code, or as other', async () => {
    const calls: [string, string | null][] = [];
    const unavailable = new ChainError('unavailable', 'connection refused');
    const bug = new TypeError('not a key');
    const { chain } = echoChain({ readEscrow: unavailable, readMint: bug });
    const metered = meterChain(chain, { chainCall: (m, _s, f) => calls.push([m, f]) });
    await expect(metered.readEscrow(PROGRAM, 'finalized')).rejects.toBe(unavailable);
    await expect(metered.readMint(PROGRAM)).rejects.toBe(bug);
    expect(calls).toEqual([
      ['readEscrow', 'unavailable'],
      ['readMint', 'other'],
    ]);
  });

  test('constants, the push feed and close pass through unmetered', async () => {
    const calls: string[] = [];
    const { chain, closed } = echoChain();
    const metered = meterChain(chain, { chainCall: (m) => calls.push(m) });
    expect([metered.kind, metered.programId, metered.makerWallet]).toEqual(['embedded', PROGRAM, MAKER]);
    const feed = metered.watchAccounts(() => {});
    expect(feed.generation).toBe(7);
    feed.close();
    await metered.close();
    expect(closed).toEqual(['feed', 'chain']);
    expect(calls).toEqual([]);
  });
});

describe('ServiceMetrics.tradeTransition', () => {
  const metrics = () => new ServiceMetrics({ version: 'test', chain: 'embedded' });
  const scrape = async (m: ServiceMetrics) => parseExposition(await m.exposition());
  const base = {
    tradeId: 'trade-1',
    event: 'TAKER_LOCK_FINALIZED',
    from: 'pending',
    to: 'pending',
    substate: 'pending.lockSeen',
    context: TRADE,
    alertedBefore: false,
    createdAt: '2026-01-01T00:00:00.000Z',
  } as const;
  const error = (effect: 'makerLock' | 'makerRedeem', attempts: number, retryAt: number | null) => ({
    ...TRADE,
    effectError: { effect, message: 'chain unreachable', attempts, retryAt },
  });

  test('a status change counts by old and new status; reaching a final status observes the settlement', async () => {
    const m = metrics();
    m.tradeTransition({ ...base, to: 'initiated' });
    m.tradeTransition(
      { ...base, event: 'xstate.done.actor.makerRedeem', from: 'initiated', to: 'redeemed' },
      Date.parse(base.createdAt) + 42_000,
    );
    m.tradeTransition({ ...base, event: 'xstate.done.actor.closeEscrows', from: 'redeemed', to: 'redeemed' });
    const f = await scrape(m);
    expect(sampleValue(f, 'rfq_maker_trade_status_changes_total', { from: 'pending', to: 'initiated' })).toBe(
      1,
    );
    expect(
      sampleValue(f, 'rfq_maker_trade_status_changes_total', { from: 'initiated', to: 'redeemed' }),
    ).toBe(1);
    expect(sampleValue(f, 'rfq_maker_trade_status_changes_total', { from: 'redeemed', to: 'redeemed' })).toBe(
      undefined,
    );
    expect(sampleValue(f, 'rfq_maker_settlement_duration_seconds_count', { status: 'redeemed' })).toBe(1);
    expect(sampleValue(f, 'rfq_maker_settlement_duration_seconds_sum', { status: 'redeemed' })).toBe(42);
    expect(
      sampleValue(f, 'rfq_maker_settlement_duration_seconds_bucket', { status: 'redeemed', le: '30' }),
    ).toBe(0);
    expect(
      sampleValue(f, 'rfq_maker_settlement_duration_seconds_bucket', { status: 'redeemed', le: '60' }),
    ).toBe(1);
  });

  test('an effect’s error event counts a failure of that effect; RETRY_EFFECT a retry of the failing one', async () => {
    const m = metrics();
    m.tradeTransition({ ...base, event: 'xstate.error.actor.makerLock', context: error('makerLock', 1, 10) });
    m.tradeTransition({ ...base, event: 'RETRY_EFFECT', context: error('makerLock', 1, null) });
    m.tradeTransition({ ...base, event: 'xstate.error.actor.makerLock', context: error('makerLock', 2, 12) });
    // Not an effect: an error event of something else, and a retry with nothing failing.
    m.tradeTransition({
      ...base,
      event: 'xstate.error.actor.somethingElse',
      context: error('makerLock', 2, 12),
    });
    m.tradeTransition({ ...base, event: 'RETRY_EFFECT' });
    m.tradeTransition({ ...base, event: 'xstate.error.actor.closeEscrows' });
    const f = await scrape(m);
    expect(sampleValue(f, 'rfq_maker_effect_failures_total', { effect: 'makerLock' })).toBe(2);
    expect(sampleValue(f, 'rfq_maker_effect_retries_total', { effect: 'makerLock' })).toBe(1);
    expect(sampleValue(f, 'rfq_maker_effect_failures_total', { effect: 'closeEscrows' })).toBe(1);
    expect(sampleValue(f, 'rfq_maker_effect_retries_total', { effect: 'closeEscrows' })).toBe(0);
    expect(sampleValue(f, 'rfq_maker_effect_failures_total', { effect: 'makerRedeem' })).toBe(0);
  });

  test('the maker-loss alert counts once per trade, when it is raised', async () => {
    const m = metrics();
    const lost = { ...TRADE, alert: true };
    m.tradeTransition({ ...base, from: 'initiated', to: 'refunded', context: lost });
    m.tradeTransition({ ...base, from: 'refunded', to: 'refunded', context: lost, alertedBefore: true });
    m.tradeTransition({ ...base, from: 'initiated', to: 'refunded' });
    expect(sampleValue(await scrape(m), 'rfq_maker_maker_losses_total')).toBe(1);
  });

  test("the maker's last look counts by pair and outcome, once per assessment", async () => {
    const m = metrics();
    const looked = (price: PriceCheck | null) => ({
      ...base,
      event: 'xstate.done.actor.checkInventory',
      from: 'initiated' as const,
      to: 'initiated' as const,
      context: { ...TRADE, assessment: { available: true, now: 1, price } },
    });
    const check = { quotedMid: '150', currentMid: '149', movedBps: 67, toleranceBps: 50 };
    m.tradeTransition(looked({ ...check, holds: false, reason: 'price_moved' }));
    m.tradeTransition(looked({ ...check, holds: true, reason: null, movedBps: 10 }));
    m.tradeTransition(looked({ ...check, holds: false, reason: 'price_unavailable', currentMid: null }));
    // Nothing re-priced (an assessment from before the last look existed), and another event: not counted.
    m.tradeTransition(looked(null));
    m.tradeTransition({ ...looked({ ...check, holds: true, reason: null }), event: 'RETRY_EFFECT' });
    const f = await scrape(m);
    const count = (outcome: string) =>
      sampleValue(f, 'rfq_maker_maker_last_looks_total', { pair: `${SOL_MINT}/${USDC_MINT}`, outcome });
    expect([count('holds'), count('price_moved'), count('price_unavailable')]).toEqual([1, 1, 1]);
  });

  test('chain calls and store commits land in their histograms', async () => {
    const m = metrics();
    m.chainCall('land', 3, null);
    m.chainCall('land', 0.002, 'timeout');
    m.storeCommitted({ size: 5, ms: 1.5 });
    const f = await scrape(m);
    expect(sampleValue(f, 'rfq_maker_chain_call_duration_seconds_count', { method: 'land' })).toBe(2);
    expect(
      sampleValue(f, 'rfq_maker_chain_call_duration_seconds_bucket', { method: 'land', le: '0.0025' }),
    ).toBe(1);
    expect(sampleValue(f, 'rfq_maker_chain_call_errors_total', { method: 'land', code: 'timeout' })).toBe(1);
    expect(sampleValue(f, 'rfq_maker_store_commit_duration_seconds_sum')).toBe(0.0015);
    expect(sampleValue(f, 'rfq_maker_store_commit_batch_size_bucket', { le: '4' })).toBe(0);
    expect(sampleValue(f, 'rfq_maker_store_commit_batch_size_bucket', { le: '8' })).toBe(1);
  });

  test('two services in one process keep their own series', async () => {
    const a = metrics();
    const b = metrics();
    a.storeCommitted({ size: 1, ms: 1 });
    expect(sampleValue(await scrape(a), 'rfq_maker_store_commit_batch_size_count')).toBe(1);
    expect(sampleValue(await scrape(b), 'rfq_maker_store_commit_batch_size_count')).toBe(0);
  });
});
