// The reservation book: what holds hold per mint, funded or not, and per holder while unfunded.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { type Reservation, ReservationBook } from '../../src/quotes/index.ts';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const alice = { client: '198.51.100.7', wallet: 'WalletA' };
const bob = { client: '203.0.113.9', wallet: 'WalletB' };

/** An open quote of `raw` USDC until `untilMs`, held by `holder`. */
const quote = (id: string, raw: bigint, holder = alice, untilMs = 1_000): Reservation => ({
  id,
  mint: USDC,
  wallet: holder.wallet,
  raw,
  untilMs,
  unfunded: true,
  holder,
});

/** A trade's hold as the runtime indexes it: no wallet count, unfunded until its lock lands. */
const tradeHold = (id: string, raw: bigint, unfunded: boolean, untilMs = 1_000): Reservation => ({
  id,
  mint: USDC,
  wallet: null,
  raw,
  untilMs,
  ...(unfunded ? { unfunded: true } : {}),
});

describe('ReservationBook', () => {
  test('open quotes are unfunded holds summed per mint, per client address and per wallet', () => {
    const book = new ReservationBook();
    book.reserve(quote('q1', 100n));
    book.reserve(quote('q2', 50n));
    book.reserve(quote('q3', 7n, bob));
    book.reserve({ ...quote('q4', 9n), mint: SOL });
    expect(book.reserved(USDC)).toBe(157n);
    expect(book.unfunded(USDC)).toBe(157n);
    expect(book.heldByClient(alice.client, USDC)).toBe(150n);
    expect(book.heldByWallet(alice.wallet, USDC)).toBe(150n);
    expect(book.heldByClient(bob.client, USDC)).toBe(7n);
    expect(book.heldByClient(alice.client, SOL)).toBe(9n);
    expect(book.countFor(alice.wallet)).toBe(3);
    book.release('q1');
    expect(book.heldByClient(alice.client, USDC)).toBe(50n);
    expect(book.countFor(alice.wallet)).toBe(2);
  });

  test('a trade counts against its quote’s holder while unfunded, and against nobody once its lock landed', () => {
    const book = new ReservationBook();
    book.reserve(quote('q1', 100n));
    book.attribute('t1', book.holderOf('q1') ?? bob);
    book.reserve(tradeHold('t1', 100n, true));
    book.release('q1');
    expect(book.unfunded(USDC)).toBe(100n);
    expect(book.heldByClient(alice.client, USDC)).toBe(100n);
    expect(book.heldByWallet(alice.wallet, USDC)).toBe(100n);
    // A trade's hold never adds to the wallet's count of open quotes (its live trades are counted apart).
    expect(book.countFor(alice.wallet)).toBe(0);

    book.reserve(tradeHold('t1', 100n, false, 5_000));
    expect(book.reserved(USDC)).toBe(100n);
    expect(book.unfunded(USDC)).toBe(0n);
    expect(book.heldByClient(alice.client, USDC)).toBe(0n);
    expect(book.heldByWallet(alice.wallet, USDC)).toBe(0n);
  });

  test('an expired hold is gone at once; a trade whose lock lands later is held again as funded', () => {
    const book = new ReservationBook();
    book.reserve(quote('q1', 100n, alice, 1_000));
    book.attribute('t1', alice);
    book.reserve(tradeHold('t1', 30n, true, 2_000));
    book.expire(999);
    expect(book.reserved(USDC)).toBe(130n);
    book.expire(1_000);
    expect(book.has('q1')).toBe(false);
    expect(book.heldByClient(alice.client, USDC)).toBe(30n);
    book.expire(2_000);
    expect(book.reserved(USDC)).toBe(0n);
    expect(book.heldByClient(alice.client, USDC)).toBe(0n);
    // Its lock landed after all: held again (funded), and still released for good when the trade closes.
    book.reserve(tradeHold('t1', 30n, false, 9_000));
    expect(book.reserved(USDC)).toBe(30n);
    expect(book.unfunded(USDC)).toBe(0n);
    book.release('t1');
    expect(book.size).toBe(0);
    expect(book.holderOf('t1')).toBeNull();
  });

  const op = fc.oneof(
    fc.record({
      kind: fc.constant('reserve' as const),
      id: fc.integer({ min: 0, max: 9 }),
      raw: fc.bigInt({ min: 0n, max: 1_000n }),
      unfunded: fc.boolean(),
      holder: fc.constantFrom(alice, bob),
      untilMs: fc.integer({ min: 0, max: 100 }),
    }),
    fc.record({ kind: fc.constant('release' as const), id: fc.integer({ min: 0, max: 9 }) }),
    fc.record({ kind: fc.constant('expire' as const), at: fc.integer({ min: 0, max: 100 }) }),
  );

  test.prop([fc.array(op, { maxLength: 60 })])(
    'its sums always equal the sums over the holds it keeps',
    (ops) => {
      const book = new ReservationBook();
      const live = new Map<number, { raw: bigint; unfunded: boolean; holder: typeof alice; until: number }>();
      let now = 0;
      for (const o of ops) {
        if (o.kind === 'reserve') {
          book.reserve({
            id: String(o.id),
            mint: USDC,
            wallet: null,
            raw: o.raw,
            untilMs: o.untilMs,
            unfunded: o.unfunded,
            holder: o.holder,
          });
          live.set(o.id, { raw: o.raw, unfunded: o.unfunded, holder: o.holder, until: o.untilMs });
        } else if (o.kind === 'release') {
          book.release(String(o.id));
          live.delete(o.id);
        } else {
          now = Math.max(now, o.at);
          book.expire(now);
          for (const [id, hold] of live) if (hold.until <= now) live.delete(id);
        }
      }
      // A hold reserved already expired is dropped at the next expire only: do one now.
      book.expire(now);
      for (const [id, hold] of live) if (hold.until <= now) live.delete(id);
      const sum = (pick: (h: typeof live extends Map<number, infer H> ? H : never) => boolean) =>
        [...live.values()].filter(pick).reduce((total, h) => total + h.raw, 0n);
      expect(book.reserved(USDC)).toBe(sum(() => true));
      expect(book.unfunded(USDC)).toBe(sum((h) => h.unfunded));
      for (const who of [alice, bob]) {
        expect(book.heldByClient(who.client, USDC)).toBe(sum((h) => h.unfunded && h.holder === who));
        expect(book.heldByWallet(who.wallet, USDC)).toBe(sum((h) => h.unfunded && h.holder === who));
      }
    },
  );
});
