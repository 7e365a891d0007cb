// Model-based test of the whole service: random sequences of taker, adversary, clock and process commands
// against the real runtime and HTTP layer on the embedded chain, checked after every step against a small
// reference model (test/properties/model/). The adversarial taker also signs the program's instructions
// itself (cancel, redeem either escrow, refund, close, donate), with the service running, stopped or killed.
// Every step ends with each trade at rest (no actor in memory); every run ends with time running out and
// every trade closed as the chain shows it. DEEP=1 (npm run test:deep) runs more and longer sequences.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  AbandonRight,
  AbandonWrong,
  AdvanceBy,
  AdvanceToNextExpiry,
  type ClockJump,
  Concurrent,
  commandArbitraries,
  IntentNeverSent,
  LateLock,
  Lock,
  LockAfterAbandon,
  type MoveKind,
  MoveWhileStopped,
  moveListArbitrary,
  NewTrade,
  PAIR_COUNT,
  RedeemService,
  RedeemWallet,
  RedeemWrong,
  Restart,
  Settle,
  TakerChainMove,
  TakerRefundsItself,
  VenueDown,
  VenueRestore,
  VenueSlip,
  WrongTerms,
} from './model/commands.ts';
import { CRASH_STEPS, runCrashCase } from './model/crash.ts';
import { finale, type Model, type MTrade } from './model/model.ts';
import { World } from './model/world.ts';

const DEEP = process.env.DEEP === '1';
const CRASH_RUNS = Number(process.env.MODEL_CRASH_RUNS ?? (DEEP ? 12 : 3));
const NUM_RUNS = Number(process.env.MODEL_RUNS ?? (DEEP ? 150 : 25));
const MAX_COMMANDS = Number(process.env.MODEL_COMMANDS ?? (DEEP ? 60 : 30));
const MAX_TRADES = DEEP ? 4 : 3;

/** Runs one fixed command sequence through the same model and invariants (directed regressions). */
async function runSequence(
  cmds: fc.AsyncCommand<Model, World>[],
  sourcing?: MTrade['sourcing'][],
): Promise<void> {
  const world = await World.create();
  try {
    const model: Model = { trades: [], maxTrades: 4 };
    await fc.asyncModelRun(() => ({ model, real: world }), cmds);
    await finale(model, world);
    // The sourcing paths the sequence is about were the ones taken.
    if (sourcing !== undefined) expect(model.trades.map((t) => t.sourcing)).toEqual(sourcing);
  } catch (error) {
    const path = cmds.map(String).join(',');
    throw new Error(
      `${(error as Error).message}\n-- path -- ${path}\n-- trail --\n${world.trail.join('\n')}`,
      { cause: error },
    );
  } finally {
    await world.dispose();
  }
}

describe('model-based: directed sequences', () => {
  test.each([
    [
      'a lock sent after abandoning (window still open) is released by cancel; the trade stays failed',
      () => [
        new NewTrade(1, 0),
        new Settle(0),
        new AbandonRight(0, false),
        new LockAfterAbandon(0),
        new AdvanceToNextExpiry(1),
      ],
    ],
    [
      'a lock sent after abandoning, across a restart',
      () => [
        new NewTrade(0, 0),
        new Settle(0),
        new AbandonRight(0, true),
        new Restart(),
        new LockAfterAbandon(0),
      ],
    ],
    [
      'a late lock is refused by the program and the service',
      () => [new NewTrade(3, 0), new Settle(0), new LateLock(0, 0)],
    ],
    [
      "wrong terms (amount) through /lock are never this trade's",
      () => [new NewTrade(0, 1), new Settle(0), new WrongTerms(0, 'amount', true)],
    ],
    [
      'wrong terms (expiry) sent on chain are released',
      () => [new NewTrade(1, 1), new Settle(0), new WrongTerms(0, 'expiry', false)],
    ],
    [
      'abandon racing a lock: never both',
      () => [new NewTrade(2, 0), new Settle(0), new Concurrent(0, 'abandonVsLock', 2)],
    ],
    [
      'duplicate locks, settlement retries and redeems at once: one of each movement',
      () => [
        new NewTrade(1, 0),
        new Settle(0),
        new Concurrent(0, 'settleRetry', 3),
        new Concurrent(0, 'lock', 4),
        new Concurrent(0, 'redeem', 3),
      ],
    ],
    [
      'the taker redeems on chain itself, racing the service redeem',
      () => [new NewTrade(0, 0), new Settle(0), new Lock(0), new Concurrent(0, 'redeemVsWallet', 2)],
    ],
    [
      'the taker never redeems: both escrows come back at their expiries, across a restart',
      () => [
        new NewTrade(1, 2),
        new Settle(0),
        new Lock(0),
        new AdvanceToNextExpiry(0),
        new AdvanceToNextExpiry(0),
        new Restart(),
        new AdvanceToNextExpiry(0),
        new AdvanceToNextExpiry(0),
      ],
    ],
    [
      "redeem in the landing margin is refused, the taker's own redeem still lands",
      () => [
        new NewTrade(3, 1),
        new Settle(0),
        new Lock(0),
        new AdvanceToNextExpiry(0),
        new RedeemService(0),
        new RedeemWallet(0),
      ],
    ],
    [
      'the taker refunds itself past its expiry, racing the runtime',
      () => [new NewTrade(2, 1), new Settle(0), new Lock(0), new TakerRefundsItself(0)],
    ],
    [
      'a refused command leaves no actor in memory: the trade is at rest after the 403',
      () => [new NewTrade(1, 0), new Settle(0), new Lock(0), new AbandonWrong(0), new RedeemWrong(0, false)],
    ],
    [
      "a run stopped between a redeem's intent and its send: the next run redeems again, and the trade closes once the first can no longer land",
      () => [
        new NewTrade(1, 0),
        new Settle(0),
        new Lock(0),
        new IntentNeverSent(0),
        new Restart(),
        new RedeemService(0),
      ],
    ],
    // The maker never assumes its own move happened: the taker ends escrows on chain in every way the
    // program allows.
    [
      'the taker cancels the maker escrow: the maker releases the taker escrow at once',
      () => [new NewTrade(1, 1), new Settle(0), new Lock(0), new TakerChainMove(0, ['cancel'])],
    ],
    [
      'the taker redeems both escrows and closes its own in one transaction: redeemed, no alert',
      () => [
        new NewTrade(0, 0),
        new Settle(0),
        new Lock(0),
        new TakerChainMove(0, ['redeemMaker', 'redeemTaker', 'close']),
      ],
    ],
    [
      'the taker pays the maker without redeeming its side, then cancels the maker escrow: redeemed',
      () => [
        new NewTrade(3, 1),
        new Settle(0),
        new Lock(0),
        new TakerChainMove(0, ['redeemTaker']),
        new AdvanceBy(3),
        new TakerChainMove(0, ['cancel', 'close']),
      ],
    ],
    [
      'dust in both vaults, a redeem and the taker closing its escrow: everything closes, the maker swept its unit',
      () => [
        new NewTrade(1, 1),
        new Settle(0),
        new Lock(0),
        new TakerChainMove(0, ['donateMaker', 'donateTaker']),
        new RedeemService(0),
        new TakerChainMove(0, ['close']),
      ],
    ],
    [
      'cancelled while the service is stopped, then refunded and closed by the taker after its expiry',
      () => [
        new NewTrade(2, 0),
        new Settle(0),
        new Lock(0),
        new MoveWhileStopped(0, ['cancel'], 'takerExpiry', ['refund', 'close']),
      ],
    ],
    [
      'the maker escrow redeemed while the service is stopped past the taker expiry, the taker escrow refunded: a real loss, alerted',
      () => [
        new NewTrade(1, 0),
        new Settle(0),
        new Lock(0),
        new MoveWhileStopped(0, ['redeemMaker'], 'takerExpiry', ['refund']),
      ],
    ],
    // Just-in-time sourcing (pair 4: USDC→JUP, beyond what the maker's JUP gives a wallet).
    [
      'a sourced trade buys the rest through the venue before the maker lock, and settles',
      () => [new NewTrade(4, 1), new Settle(0), new Lock(0), new RedeemService(0)],
      ['landed'],
    ],
    [
      'the venue down after the quote: the maker declines and releases the taker at once; a new quote is refused until a restart',
      () => [
        new NewTrade(4, 0),
        new Settle(0),
        new VenueDown(),
        new NewTrade(4, 1),
        new Lock(0),
        new Restart(),
        new NewTrade(4, 1),
        new Settle(0),
        new Lock(0),
      ],
      ['failed', 'landed'],
    ],
    [
      'the pool slipped between quote and sourcing: released at once; restored, the next sourced trade swaps',
      () => [
        new NewTrade(4, 0),
        new Settle(0),
        new VenueSlip(),
        new NewTrade(4, 0),
        new Lock(0),
        new VenueRestore(),
        new NewTrade(4, 1),
        new Settle(0),
        new Lock(0),
        new AdvanceToNextExpiry(0),
      ],
      ['failed', 'landed'],
    ],
    [
      'concurrent locks of a sourced trade: one swap, one maker lock',
      () => [
        new NewTrade(4, 1),
        new Settle(0),
        new Concurrent(0, 'lock', 3),
        new TakerChainMove(0, ['redeemMaker']),
      ],
      ['landed'],
    ],
  ] as [string, () => fc.AsyncCommand<Model, World>[], MTrade['sourcing'][]?][])(
    '%s',
    async (_name, cmds, sourcing) => runSequence(cmds(), sourcing),
    60_000,
  );
});

describe('model-based: the service against a reference model', () => {
  test(
    'random trade, adversary, clock and restart commands keep every invariant',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          // Every run starts with one or two trades (quoted, settled or locked), then runs the random commands.
          fc.array(
            fc.tuple(
              fc.nat(PAIR_COUNT - 1),
              fc.nat(2),
              fc.oneof(
                { arbitrary: fc.constant(0), weight: 1 },
                { arbitrary: fc.constant(1), weight: 2 },
                { arbitrary: fc.constant(2), weight: 3 },
              ),
            ),
            { minLength: 1, maxLength: 2 },
          ),
          fc.commands(commandArbitraries(), { maxCommands: MAX_COMMANDS, size: 'max' }),
          async (initial, cmds) => {
            const world = await World.create();
            try {
              const model: Model = { trades: [], maxTrades: MAX_TRADES };
              await fc.asyncModelRun(async () => {
                // Each initial trade is quoted (stage 0), settled (1) or locked (2).
                for (const [pair, size, stage] of initial) {
                  const n = model.trades.length;
                  await new NewTrade(pair, size).run(model, world);
                  if (stage >= 1) await new Settle(n).run(model, world);
                  if (stage >= 2) await new Lock(n).run(model, world);
                }
                return { model, real: world };
              }, cmds);
              await finale(model, world);
              if (process.env.MODEL_LOG === '1')
                console.log(`ran: ${String(cmds)}\n${world.trail.join('\n')}`);
            } catch (error) {
              throw new Error(`${(error as Error).message}\n-- trail --\n${world.trail.join('\n')}`, {
                cause: error,
              });
            } finally {
              await world.dispose();
            }
          },
        ),
        {
          numRuns: NUM_RUNS,
          verbose: 1,
          // Each step waits on a real runtime; shrinking replays whole sequences, so keep it bounded.
          endOnFailure: !DEEP && process.env.MODEL_SHRINK !== '1',
        },
      );
    },
    // A ceiling, not a measure: some 85 s quiet, over 240 s with the cores oversubscribed sevenfold.
    DEEP ? 3_600_000 : 600_000,
  );

  test(
    'kill -9 of the service process between or during steps: a new process adopts the trade and finishes it',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            pair: fc.nat(2),
            acked: fc.integer({ min: 1, max: CRASH_STEPS.length }),
            inflightMs: fc.option(fc.integer({ min: 0, max: 400 }), { nil: null }),
            redeemAfter: fc.boolean(),
            moves: fc.option(
              fc.record({
                before: moveListArbitrary,
                clock: fc.constantFrom<ClockJump>('none', 'makerExpiry', 'takerExpiry'),
                after: fc.oneof(fc.constant<MoveKind[]>([]), moveListArbitrary),
              }),
              { nil: null },
            ),
          }),
          async (crash) => {
            const log: string[] = [];
            try {
              await runCrashCase(crash, log);
              if (process.env.MODEL_LOG === '1') console.log(JSON.stringify(crash), log.join('; '));
            } catch (error) {
              throw new Error(`${(error as Error).message}\n-- trail --\n${log.join('\n')}`, {
                cause: error,
              });
            }
          },
        ),
        {
          numRuns: CRASH_RUNS,
          verbose: 1,
          endOnFailure: !DEEP,
        },
      );
    },
    DEEP ? 1_800_000 : 180_000,
  );
});
