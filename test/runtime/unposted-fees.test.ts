// Which maker transactions still owe the ledger their fee: the trade's intents, read from their TX_INTENT
// payloads, less the signatures whose network_fee is posted.
import { expect, test } from 'vitest';
import { unpostedFees } from '../../src/runtime/unposted-fees.ts';

const intent = (signature: string, height?: number) => ({
  type: 'TX_INTENT',
  payload: height === undefined ? { signature } : { signature, last_valid_block_height: height },
});

test('every intent without a posted network fee, once, with the last block height its intent noted', () => {
  const events = [
    intent('a', 10),
    { type: 'LOCK_SUBMITTED', payload: { signature: 'x' } },
    intent('b'),
    intent('c', 30),
    intent('a', 12),
  ];
  const ledger = [
    { movement: 'network_fee' as const, signature: 'c' },
    { movement: 'aggregator_swap' as const, signature: 'b' },
  ];
  expect(unpostedFees(events, ledger)).toEqual([
    { signature: 'a', lastValidBlockHeight: 12 },
    { signature: 'b', lastValidBlockHeight: null },
  ]);
});

test('an intent payload without a signature is skipped', () => {
  expect(unpostedFees([{ type: 'TX_INTENT', payload: {} }], [])).toEqual([]);
});
