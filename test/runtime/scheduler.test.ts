// Deadlines from the store's index, on the real runtime over a temp store with only the chain faked:
// which trades a due time wakes (and how many reads and activations that costs), and what happens to a
// deadline that changes nothing. The runtime's ticker is set far out; each test asks its scheduler to wake
// what is due, as the tick does.
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { TradeEvent } from '../../machines/index.ts';
import type { TradeRuntime } from '../../src/runtime/index.ts';
import type { DeadlineScheduler } from '../../src/runtime/scheduler.ts';
import {
  FakeChain,
  GENESIS,
  type Harness,
  lockTransaction,
  openHarness,
  takerEscrowState,
  turns,
} from './fake-chain.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** What the runtime's tick does about deadlines. */
const wakeDue = (runtime: TradeRuntime) =>
  (runtime as unknown as { scheduler: DeadlineScheduler }).scheduler.wakeDue();

/** One whole tick, as the runtime's timer runs it: the sweep of watched escrows, then the due deadlines. */
const tick = (runtime: TradeRuntime) => (runtime as unknown as { tick(): Promise<void> }).tick();

/**
 * Chain time jumps to `seconds`, and the runtime's clock learns it (as it does by itself when its estimate
 * nears a deadline, or from a sweep's batched read): without this the scheduler rightly trusts its
 * estimate, which follows the host's clock, and a jump of the fake clock would go unseen for a while.
 */
async function chainTimeIs(harness: Harness, seconds: number, finalityLag = 0): Promise<void> {
  harness.chain.setNow(seconds, { finalityLag });
  await harness.runtime.clock.read();
}

/** Records every trade the host is asked to act on (an activation, for a trade at rest). */
function recordUses(runtime: TradeRuntime): string[] {
  const used: string[] = [];
  const use = runtime.host.use.bind(runtime.host);
  vi.spyOn(runtime.host, 'use').mockImplementation((tradeId, fn) => {
    used.push(tradeId);
    return use(tradeId, fn);
  });
  return used;
}

/** The failure reason in a trade's stored snapshot. */
const failureReason = async (harness: Harness, tradeId: string) =>
  (
    JSON.parse((await harness.store.getTrade(tradeId))?.snapshot ?? '{}') as {
      context?: { failureReason?: string };
    }
  ).context?.failureReason;

/** recheckSeconds as the runtime derives it from its tick (one minute in these tests). */
const RECHECK = 60;
const HELD_LOCK = 'held-lock-signature';
const lockSubmitted: TradeEvent[] = [
  { type: 'LOCK_SUBMITTED', signature: HELD_LOCK, lastValidBlockHeight: null, transactionBase64: null },
];

describe('the deadline scheduler', () => {
  test('a due deadline wakes exactly the due trades: one batched read, one activation each', async () => {
    const harness = await openHarness(new FakeChain('rpc'));
    h = harness;
    const due = await Promise.all(
      [0, 1, 2].map(async () => (await harness.insertTrade({ now: GENESIS })).input),
    );
    const later = await Promise.all(
      [0, 1].map(async () => (await harness.insertTrade({ now: GENESIS + 50 })).input),
    );
    const runtime = await h.start();
    const used = recordUses(runtime);
    await chainTimeIs(h, GENESIS + 121); // past the first three's lock window (deadline + 1), not the others'
    h.chain.resetCounts();
    await wakeDue(runtime);
    await turns(20);

    expect(new Set(used)).toEqual(new Set(due.map((t) => t.tradeId)));
    expect(used).toHaveLength(3);
    const batched = h.chain.reads.filter((r) => r.method === 'readEscrowsAndClock');
    expect(batched.map((r) => new Set(r.addresses))).toEqual([new Set(due.map((t) => t.takerEscrow))]);
    expect(h.chain.calls.now, 'the clock is read once, to check the deadline came').toBe(1);
    for (const t of due) {
      expect((await h.store.getTrade(t.tradeId))?.status).toBe('failed');
      expect(await failureReason(h, t.tradeId)).toBe('lock_window_expired');
    }
    for (const t of later) expect((await h.store.getTrade(t.tradeId))?.status).toBe('pending');
    expect(runtime.host.activeCount).toBe(0);
  });

  test('a tick learns a jump of chain time from its batched read, and wakes what came due', async () => {
    h = await openHarness(new FakeChain('rpc'));
    const due = await h.insertTrade({ now: GENESIS });
    const later = await h.insertTrade({ now: GENESIS + 50 });
    const runtime = await h.start();
    await tick(runtime); // the first sweep, owed at start
    const used = recordUses(runtime);
    h.chain.setNow(GENESIS + 121);
    h.chain.resetCounts();
    await tick(runtime);
    await turns(20);
    expect(used).toEqual([due.input.tradeId]);
    const batched = h.chain.reads.filter((r) => r.method === 'readEscrowsAndClock');
    expect(
      batched.map((r) => r.addresses.length),
      'the sweep (both), then the due one',
    ).toEqual([2, 1]);
    expect((await h.store.getTrade(due.input.tradeId))?.status).toBe('failed');
    expect((await h.store.getTrade(later.input.tradeId))?.status).toBe('pending');
  });

  test('with no deadline due, the scheduler reads nothing from the chain and wakes nobody', async () => {
    h = await openHarness(new FakeChain('rpc'));
    for (let i = 0; i < 5; i++) await h.insertTrade({ now: GENESIS });
    const runtime = await h.start();
    const used = recordUses(runtime);
    h.chain.resetCounts();
    for (let i = 0; i < 3; i++) await wakeDue(runtime);
    expect(used).toEqual([]);
    expect(h.chain.totalCalls).toBe(0);
  });

  test('a held lock not final at its deadline changes nothing: re-armed recheckSeconds later, not looped on', async () => {
    h = await openHarness(new FakeChain('rpc'));
    const trade = await h.insertTrade({ now: GENESIS, events: lockSubmitted });
    const { input } = trade;
    // The lock landed before the deadline and is confirmed, not final: the finalized bank is 13 s behind.
    h.chain.setEscrow(input.takerEscrow, takerEscrowState(h.chain, input), { finalized: false });
    h.chain.addTransaction(lockTransaction(input, HELD_LOCK), { finalized: false });
    const runtime = await h.start();
    const used = recordUses(runtime);
    const now = input.lockDeadline + 1;
    await chainTimeIs(h, now, 13);

    await wakeDue(runtime);
    await turns(20);
    expect(used).toEqual([input.tradeId]);
    expect(await h.store.getTrade(input.tradeId)).toMatchObject({
      substate: 'pending.lockSubmitted',
      nextDeadline: now + RECHECK,
    });

    h.chain.resetCounts();
    for (let i = 0; i < 3; i++) await wakeDue(runtime);
    expect(used, 'not woken again before the recheck').toHaveLength(1);
    expect(h.chain.totalCalls).toBe(0);

    // Finality stalled meanwhile (the lock is still not final): looked at again, and re-armed again.
    await chainTimeIs(h, now + RECHECK, 13 + RECHECK);
    await wakeDue(runtime);
    await turns(20);
    expect(used).toHaveLength(2);
    expect((await h.store.getTrade(input.tradeId))?.nextDeadline).toBe(now + 2 * RECHECK);
  });

  test('a held lock absent at finality once the window ended is dropped: the trade fails (lock_not_landed)', async () => {
    h = await openHarness(new FakeChain('rpc'));
    const { input } = await h.insertTrade({ now: GENESIS, events: lockSubmitted });
    const runtime = await h.start();
    await chainTimeIs(h, input.lockDeadline + 1);
    await wakeDue(runtime);
    await turns(20);
    expect((await h.store.getTrade(input.tradeId))?.status).toBe('failed');
    expect(await failureReason(h, input.tradeId)).toBe('lock_not_landed');
  });

  test('more than a batch of due trades that change nothing: each is woken once per due time', async () => {
    const harness = await openHarness(new FakeChain('rpc'));
    h = harness;
    // Held locks confirmed before the deadline, none final yet: each wake changes nothing and re-arms.
    for (let i = 0; i < 130; i++) {
      const { input } = await harness.insertTrade({ now: GENESIS, events: lockSubmitted });
      h.chain.setEscrow(input.takerEscrow, takerEscrowState(h.chain, input), { finalized: false });
      h.chain.addTransaction(lockTransaction(input), { finalized: false });
    }
    const runtime = await h.start();
    const used = recordUses(runtime);
    await chainTimeIs(h, GENESIS + 121, 13);
    await wakeDue(runtime);
    await turns(20);
    expect(used, `${used.length} activations for 130 due trades`).toHaveLength(130);
    expect(new Set(used).size).toBe(130);
  });
});
