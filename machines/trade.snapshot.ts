// Pure readings of a trade snapshot for the runtime and the HTTP layer: status, substate, whether the
// actor may be dropped, and how to answer a command (accept, replay of one that took effect, refusal).
// Each takes a live snapshot or a persisted { value, context }.
import { initialTransition, type StateValue } from 'xstate';
import type { SettlementStatus } from '../src/vocabulary/index.ts';
import { FINAL_SETTLEMENT_STATUSES, sameHash32 } from '../src/vocabulary/index.ts';
import { initialContext } from './trade.context.ts';
import { stateFacts, type TradeSnapshotLike } from './trade.deadlines.ts';
import { tradeMachine } from './trade.machine.ts';
import type { TradeCommand, TradeInput } from './trade.types.ts';

let initialTemplate: Record<string, unknown> | null = null;

/**
 * A new trade's persisted snapshot, equal to `tradeMachine.getPersistedSnapshot(initialTransition(
 * tradeMachine, input)[0])` without running the interpreter for every trade (that costs ~60 µs): the
 * initial state runs no action and invokes nothing, so only the context depends on the input.
 */
export function initialSnapshot(input: TradeInput): TradeSnapshotLike {
  if (initialTemplate === null) {
    initialTemplate = tradeMachine.getPersistedSnapshot(initialTransition(tradeMachine, input)[0]) as Record<
      string,
      unknown
    >;
  }
  return { ...initialTemplate, context: initialContext(input) } as unknown as TradeSnapshotLike;
}

/**
 * The path of a state value: `{ initiated: { redeeming: 'makerLocked' } }` →
 * `['initiated', 'redeeming', 'makerLocked']` (no parallel states).
 */
function statePath(value: StateValue): string[] {
  if (typeof value === 'string') return [value];
  return Object.entries(value).flatMap(([key, child]) => [key, ...statePath(child as StateValue)]);
}

/** settlement_status: the top-level state. */
export function settlementStatusOf(snapshot: Pick<TradeSnapshotLike, 'value'>): SettlementStatus {
  return statePath(snapshot.value)[0] as SettlementStatus;
}

/** The full state path, e.g. `initiated.redeeming.makerLocked`. */
export function substateOf(snapshot: Pick<TradeSnapshotLike, 'value'>): string {
  return statePath(snapshot.value).join('.');
}

export function isFinalStatus(status: SettlementStatus): boolean {
  return (FINAL_SETTLEMENT_STATUSES as readonly SettlementStatus[]).includes(status);
}

function resolve(snapshot: TradeSnapshotLike) {
  return tradeMachine.resolveState({ value: snapshot.value, context: snapshot.context });
}

/** Final status and no funds of the trade left in any escrow: the runtime may drop the actor. */
export function isClosed(snapshot: Pick<TradeSnapshotLike, 'value'>): boolean {
  return isFinalStatus(settlementStatusOf(snapshot)) && stateFacts(snapshot.value).tags.has('closed');
}

/** Refusals a command can meet; each is a code of the API's error table. */
export type CommandRefusal =
  | 'secret_hash_mismatch'
  | 'lock_signature_exists'
  | 'not_abandonable'
  | 'lock_window_closed'
  | 'preimage_mismatch'
  | 'not_redeemable'
  | 'not_refundable';

export type CommandOutcome =
  | { outcome: 'accept' }
  | { outcome: 'replay' }
  | { outcome: 'refuse'; code: CommandRefusal };

type HttpCommand = Extract<
  TradeCommand,
  { type: 'ABANDON' | 'LOCK_SUBMITTED' | 'REDEEM_REQUESTED' | 'REFUND_REQUESTED' }
>;

const ACCEPT: CommandOutcome = { outcome: 'accept' };
const REPLAY: CommandOutcome = { outcome: 'replay' };
const refuse = (code: CommandRefusal): CommandOutcome => ({ outcome: 'refuse', code });

/**
 * How to answer a command before sending it. `accept`: send it (the machine will take it); `replay`:
 * the same command already took effect — answer 202 with the trade as it is, send nothing; `refuse`:
 * answer the code. A command the trade reached its state without (abandon on a trade failed by its
 * lock window) is a refusal, not a replay: the context records what each command did.
 */
export function commandOutcome(snapshot: TradeSnapshotLike, command: HttpCommand): CommandOutcome {
  const { context } = snapshot;
  const can = () => resolve(snapshot).can(command);
  switch (command.type) {
    case 'ABANDON': {
      // The machine's guard compares the commitment (in constant time); only a refusal asks why.
      if (can()) return ACCEPT;
      if (!sameHash32(context.secretHash, command.secretHash)) return refuse('secret_hash_mismatch');
      // Only an abandon with the settlement's hash records abandonedWith.
      if (context.abandonedWith !== null) return REPLAY;
      // In pending, with the settlement's hash, only a lock signature stops an abandon.
      return settlementStatusOf(snapshot) === 'pending'
        ? refuse('lock_signature_exists')
        : refuse('not_abandonable');
    }
    case 'LOCK_SUBMITTED': {
      // The lock signature is the one held, seen or finalized (a finalized lock keeps it for good).
      const known =
        context.lockSignature === command.signature ||
        context.lockSubmissions.some((s) => s.signature === command.signature);
      if (known) return REPLAY;
      if (can()) return ACCEPT;
      return settlementStatusOf(snapshot) === 'pending'
        ? refuse('lock_signature_exists')
        : refuse('lock_window_closed');
    }
    case 'REDEEM_REQUESTED': {
      if (!sameHash32(command.preimageHash, context.secretHash)) return refuse('preimage_mismatch');
      // A requested redeem stored its preimage, and a preimage of the same hash is that preimage.
      if (context.redeemRequested) return REPLAY;
      return can() ? ACCEPT : refuse('not_redeemable');
    }
    case 'REFUND_REQUESTED': {
      if (context.refundRequested) return REPLAY;
      return can() ? ACCEPT : refuse('not_refundable');
    }
  }
}

/**
 * Substates that redeem an escrow with a preimage already known (the maker's redeem of the taker escrow, a
 * redeem for the taker): the taker's expiry runs against them, so they act first when the chain answers
 * again after an outage. A trade's record names the substate its last transition was stored in, so one
 * stored by machine version 4 names it by the flat path until the trade moves again.
 */
const REDEEMING_WITH_PREIMAGE: ReadonlySet<string> = new Set([
  'initiated.redeeming.makerRedeeming',
  'initiated.redeeming.redeemingForTaker',
  'initiated.makerRedeeming',
  'initiated.redeemingForTaker',
]);

export function knowsPreimageToRedeem(substate: string): boolean {
  return REDEEMING_WITH_PREIMAGE.has(substate);
}
