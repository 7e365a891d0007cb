// Snapshots stored by an older build of the machine, brought to this build's shape one version at a time,
// so a trade written by any earlier release resumes under this one. Each step says what changed.
import type { TradeSnapshotLike } from './trade.deadlines.ts';
import { TRADE_MACHINE_VERSION } from './trade.machine.ts';
import type { LockSubmission } from './trade.types.ts';

type Step = (snapshot: TradeSnapshotLike) => TradeSnapshotLike;

/** Version 4's flat substates of initiated, by the phase version 5 holds each in. */
export const PHASE_OF_V4_INITIATED: Readonly<Record<string, 'locking' | 'redeeming' | 'unwinding'>> = {
  assessing: 'locking',
  deciding: 'locking',
  signingSourcing: 'locking',
  sendingSourcing: 'locking',
  signingMakerLock: 'locking',
  sendingMakerLock: 'locking',
  makerLocked: 'redeeming',
  redeemingForTaker: 'redeeming',
  takerRedeemLanded: 'redeeming',
  makerRedeeming: 'redeeming',
  refundingMakerEscrow: 'unwinding',
  awaitingTakerExpiry: 'unwinding',
  refundingTakerEscrow: 'unwinding',
  releasingTaker: 'unwinding',
};

/** From version n (the key) to n + 1. */
const STEPS: Readonly<Record<number, Step>> = {
  // Version 2 kept an effect error without its attempt count and retry time: it counts as one failure,
  // retried at once.
  2: (snapshot) => {
    const error = snapshot.context.effectError as { effect: never; message: string } | null;
    return {
      ...snapshot,
      context: { ...snapshot.context, effectError: error && { ...error, attempts: 1, retryAt: 0 } },
    };
  },
  // Version 4 keeps the bytes of a lock handed over through POST /lock, to broadcast it until it lands
  // (locks held before were not kept: the service cannot broadcast those again), assesses the price as well
  // as inventory before the maker locks (an assessment made before did not: nothing was re-priced), and may
  // source part of the output just in time (a trade from before had no sourcing plan).
  3: (snapshot) => ({
    ...snapshot,
    context: {
      ...snapshot.context,
      lockSubmissions: snapshot.context.lockSubmissions.map(
        (held): LockSubmission => ({ ...held, transactionBase64: held.transactionBase64 ?? null }),
      ),
      assessment: snapshot.context.assessment && { ...snapshot.context.assessment, price: null },
      sourcing: snapshot.context.sourcing ?? null,
      sourcingIntent: snapshot.context.sourcingIntent ?? null,
      sourced: snapshot.context.sourced ?? null,
    },
  }),
  // Version 5 groups initiated's states into phases (locking, redeeming, unwinding); each keeps its name,
  // so only the path to it changes. The context keeps its shape: where the older build named "no signature"
  // with an empty string, its guards had already excluded that case, so no stored context holds one.
  4: (snapshot) => {
    const { value } = snapshot;
    if (typeof value !== 'object' || typeof value.initiated !== 'string') return snapshot;
    const phase = PHASE_OF_V4_INITIATED[value.initiated];
    if (phase === undefined)
      throw new Error(`snapshot of machine version 4 in unknown initiated.${value.initiated}`);
    return { ...snapshot, value: { initiated: { [phase]: value.initiated } } };
  },
  // Version 6 may go on a taker lock at confirmed (the commitment policy) and knows a fork can take it back:
  // every trade before it went on final locks only.
  5: (snapshot) => ({ ...snapshot, context: { ...snapshot.context, takerLockConfirmedOnly: false } }),
  // Version 7 may mint part of the output through Circle Gateway before it locks: no trade before it did.
  6: (snapshot) => ({ ...snapshot, context: { ...snapshot.context, mintIntent: null } }),
};

export function upgradeSnapshot(version: number, snapshot: TradeSnapshotLike): TradeSnapshotLike {
  if (version > TRADE_MACHINE_VERSION) {
    throw new Error(`snapshot of machine version ${version}; this build runs ${TRADE_MACHINE_VERSION}`);
  }
  let upgraded = snapshot;
  for (let from = version; from < TRADE_MACHINE_VERSION; from++) {
    const step = STEPS[from];
    if (!step) throw new Error(`snapshot of machine version ${version}: no upgrade from ${from}`);
    upgraded = step(upgraded);
  }
  return upgraded;
}
