// The actor host's notes: a runtime note (an intent before a transaction is sent) says where the trade is,
// also when the effect that writes it outlived its actor.
import { afterEach, describe, expect, test } from 'vitest';
import { FakeChain, type Harness, openHarness } from './fake-chain.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('notes', () => {
  test('a note on a trade without an actor records the state its record was stored in', async () => {
    h = await openHarness(new FakeChain('rpc'));
    await h.start();
    const { tradeId } = await h.startTrade();
    expect(h.runtime.host.isActive(tradeId)).toBe(false);

    await h.runtime.host.note(tradeId, 'TX_INTENT', { kind: 'maker_lock', signature: 'sig' });

    const note = (await h.store.tradeEvents(tradeId)).find((event) => event.type === 'TX_INTENT');
    expect(note).toMatchObject({ status: 'pending', substate: 'pending.awaitingLock' });
  });

  test('a note on a trade the store does not hold is refused and writes nothing', async () => {
    h = await openHarness(new FakeChain('rpc'));
    await h.start();
    const unknown = '01a00000-0000-7000-8000-000000000000';
    await expect(h.runtime.host.note(unknown, 'TX_INTENT', {})).rejects.toThrow('is not stored');
    expect(await h.store.tradeEvents(unknown)).toEqual([]);
  });
});
