// What a reading of a trade shows is durable: a live actor may move while the reading reads the trade's row
// (an effect finishes, a command lands), and its transition is then still in the turn's group commit. A
// reading answered before that commit showed a state a kill -9 could take back — the kill -9 model case on
// PostgreSQL saw a trade answered `redeemed` come back `initiated`, its transition's event never stored.
import { afterEach, expect, test } from 'vitest';
import type { TradeReading } from '../../src/runtime/index.ts';
import type { StoreWrite } from '../../src/store/index.ts';
import { FakeChain, type Harness, openHarness, turns, until } from './fake-chain.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

test("a reading shows a transition made while it read the trade's row only once that transition is durable", async () => {
  h = await openHarness(new FakeChain('rpc'));
  const harness = h;
  await harness.start();
  const trade = await harness.startTrade();
  const { store } = harness;

  // From here every commit waits for the release.
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const commit = store.commit.bind(store);
  store.commit = async (batch: readonly StoreWrite[]) => {
    await released;
    return commit(batch);
  };
  // While the reading reads the trade's row, the taker abandons: the actor is failed in memory, its
  // transition waits in the held commit.
  const abandoned = () =>
    harness.runtime.host.liveSnapshot(trade.tradeId)?.context.failureReason === 'abandoned';
  const getTrade = store.getTrade.bind(store);
  let abandoning: Promise<unknown> | null = null;
  store.getTrade = async (tradeId: string) => {
    const record = await getTrade(tradeId);
    if (abandoning === null) {
      abandoning = harness.runtime.commands.abandon(trade.tradeId, trade.secret.secretHash);
      await until(abandoned, 'the abandon in memory');
    }
    return record;
  };

  let shown: TradeReading | null = null;
  const reading = harness.runtime.queries.trade(trade.tradeId).then((r) => {
    shown = r;
  });
  await until(abandoned, 'the abandon in memory');
  await turns(50);
  // Not durable yet: not shown.
  expect(shown).toBeNull();
  release();
  await reading;
  await abandoning;
  expect((shown as TradeReading | null)?.status).toBe('failed');
  expect((await getTrade(trade.tradeId))?.status).toBe('failed');
});
