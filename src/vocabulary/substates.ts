// The public substates: what TradeResponse.substate and every trade event's substate say, one name per state
// a trade can rest in. They are part of the contract (docs/interface.md#substates): the machine may group its
// states into phases (initiated.locking, initiated.redeeming, initiated.unwinding) without renaming them.

/**
 * `<settlement_status>.<state>`, in the order a trade meets them. The names machine version 4 gave its
 * states, kept when version 5 grouped initiated's states into phases (CHANGELOG.md).
 */
export const SUBSTATES = [
  'pending.awaitingLock',
  'pending.broadcastingLock',
  'pending.lockSubmitted',
  'pending.lockSeen',
  'initiated.assessing',
  'initiated.deciding',
  'initiated.signingMint',
  'initiated.attestingMint',
  'initiated.sendingMint',
  'initiated.signingSourcing',
  'initiated.sendingSourcing',
  'initiated.signingMakerLock',
  'initiated.sendingMakerLock',
  'initiated.makerLocked',
  'initiated.redeemingForTaker',
  'initiated.takerRedeemLanded',
  'initiated.makerRedeeming',
  'initiated.refundingMakerEscrow',
  'initiated.awaitingTakerExpiry',
  'initiated.refundingTakerEscrow',
  'initiated.releasingTaker',
  'initiated.takerLockRolledBack',
  'initiated.reclaimingAfterRollback',
  'redeemed.closingEscrows',
  'redeemed.closed',
  'refunded.settling',
  'refunded.reclaimingMakerEscrow',
  'refunded.closingEscrows',
  'refunded.closed',
  'failed.lockWindowOpen',
  'failed.noLock',
  'failed.lateLockSeen',
  'failed.lateLockFinalized',
  'failed.releasingLateLock',
  'failed.awaitingLateLockExpiry',
  'failed.refundingLateLock',
  'failed.released',
] as const;
export type Substate = (typeof SUBSTATES)[number];

const KNOWN: ReadonlySet<string> = new Set(SUBSTATES);

export function isSubstate(value: string): value is Substate {
  return KNOWN.has(value);
}

/**
 * The public name of a state path of the trade machine: its top-level state and its own name, the phases
 * between left out (`initiated.redeeming.makerLocked` → `initiated.makerLocked`). A path stored by machine
 * version 4 is already its public name. The only mapping from the machine's paths to the contract's names:
 * test/contract/substate.test.ts walks every state of the machine through it.
 *
 * Unchecked: a string outside the vocabulary comes back as the rule makes it. The only one a store can hold
 * is `unknown`, which a runtime note stored before 2026-11-27 wrote for a trade whose actor had stopped.
 */
export function publicSubstate(path: string): Substate {
  const parts = path.split('.');
  const name = parts.length > 2 ? `${parts[0]}.${parts.at(-1)}` : path;
  return name as Substate;
}
