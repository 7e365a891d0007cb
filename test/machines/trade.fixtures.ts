// Small factories for trade-machine tests: a trade's input, its lock terms, fake chain effects and the
// escrow endings they answer. The fakes are not what is tested; they resolve with recognisable signatures
// and count their calls.
import {
  type Actor,
  createActor,
  fromPromise,
  initialTransition,
  type SnapshotFrom,
  transition,
  waitFor,
} from 'xstate';
import {
  type BroadcastTakerLockInput,
  type BroadcastTakerLockOutput,
  type CheckInventoryInput,
  type CheckInventoryOutput,
  type CloseEscrowsInput,
  type EscrowEnding,
  type EscrowTerms,
  type MakerLockInput,
  type MakerLockOutput,
  type MakerRedeemInput,
  type MakerRefundInput,
  type MakerRefundOutput,
  type ReturnedHow,
  type SendSourcingInput,
  type SendSourcingOutput,
  type SignMakerLockInput,
  type SignMakerLockOutput,
  type SignSourcingInput,
  type SignSourcingOutput,
  type TakerEscrowReleaseInput,
  type TakerLockTerms,
  type TakerRedeemInput,
  type TradeEvent,
  type TradeInput,
  tradeMachine,
} from '../../machines/index.ts';
import { hash32FromBytes, type Preimage, preimageFromBytes } from '../../src/vocabulary/index.ts';

export const T0 = 1_700_000_000;
export const PREIMAGE = preimageFromBytes(Buffer.alloc(32, 0x11));
/** sha256 of PREIMAGE is computed by the runtime; the tests only need a fixed, distinct hex pair. */
export const SECRET_HASH = hash32FromBytes(Buffer.alloc(32, 0xab));
export const OTHER_HASH = hash32FromBytes(Buffer.alloc(32, 0xcd));

export function tradeInput(overrides: Partial<TradeInput> = {}): TradeInput {
  return {
    tradeId: '00000000-0000-4000-8000-000000000001',
    quoteId: '00000000-0000-4000-8000-000000000002',
    runId: '00000000-0000-4000-8000-0000000000r1',
    takerWallet: 'TakerWa11et1111111111111111111111111111111',
    makerWallet: 'MakerWa11et1111111111111111111111111111111',
    secretHash: SECRET_HASH,
    inputMint: 'InputMint11111111111111111111111111111111',
    inputAmountRaw: '1000000',
    outputMint: 'OutputMint1111111111111111111111111111111',
    outputAmountRaw: '9223372036854775807',
    takerExpiry: T0 + 900,
    lockDeadline: T0 + 120,
    takerEscrow: 'TakerEscrow111111111111111111111111111111',
    makerEscrow: 'MakerEscrow111111111111111111111111111111',
    makerTimelock: 300,
    safetyMargin: 300,
    minRedeemWindow: 120,
    landingMargin: 30,
    sourcing: null,
    ...overrides,
  };
}

/** Decision time used by the fake inventory check: maker expiry = min(T0+60+300, T0+900−300) = T0+360. */
export const DECIDED_AT = T0 + 60;
export const MAKER_EXPIRY = T0 + 360;
export const REDEEM_BY = MAKER_EXPIRY - 30;
export const TAKER_EXPIRY = T0 + 900;
export const LOCK_DEADLINE = T0 + 120;

export function lockTerms(
  input: TradeInput = tradeInput(),
  overrides: Partial<TakerLockTerms> = {},
): TakerLockTerms {
  return {
    escrow: input.takerEscrow,
    initializer: input.takerWallet,
    recipient: input.makerWallet,
    mint: input.inputMint,
    amountRaw: input.inputAmountRaw,
    hashlock: input.secretHash,
    expiry: input.takerExpiry,
    lockDeadline: input.lockDeadline,
    ...overrides,
  };
}

export const SIG = {
  takerLock: 'sig-taker-lock',
  makerLock: 'sig-maker-lock',
  takerRedeem: 'sig-taker-redeem',
  makerRedeem: 'sig-maker-redeem',
  makerRefund: 'sig-maker-refund',
  takerRefund: 'sig-taker-refund',
  cancel: 'sig-cancel',
  /** The maker's just-in-time sourcing swap through an aggregator. */
  swap: 'sig-sourcing-swap',
  /** A sourcing swap that landed and failed (its minimum out not met). */
  failedSwap: 'sig-sourcing-swap-failed',
  /** The maker's just-in-time mint through Circle Gateway. */
  gatewayMint: 'sig-gateway-mint',
  /** The taker's cancel of the maker escrow (it is that escrow's recipient). */
  makerEscrowCancel: 'sig-maker-escrow-cancel',
} as const;

/** The maker escrow's terms as effects receive them: the maker's output, paid to the taker by a redeem. */
export const makerEscrowOf = (input: TradeInput = tradeInput()): EscrowTerms => ({
  address: input.makerEscrow,
  mint: input.outputMint,
  amountRaw: input.outputAmountRaw,
  recipient: input.takerWallet,
  initializer: input.makerWallet,
});

/** The taker escrow's terms as effects receive them: the taker's input, paid to the maker by a redeem. */
export const takerEscrowOf = (input: TradeInput = tradeInput()): EscrowTerms => ({
  address: input.takerEscrow,
  mint: input.inputMint,
  amountRaw: input.inputAmountRaw,
  recipient: input.makerWallet,
  initializer: input.takerWallet,
});

/** Escrow endings as effects answer them. */
export const paid = (signature: string, preimage: Preimage | null = null): EscrowEnding => ({
  kind: 'paid',
  signature,
  preimage,
});
export const returned = (signature: string, how: ReturnedHow = 'refunded'): EscrowEnding => ({
  kind: 'returned',
  signature,
  how,
});
export const ABSENT = { kind: 'absent' } as const;

/** What the runtime's effects reject with: an Error stamped with the chain time of the failure. */
export const failureAt = (message: string, at: number) => Object.assign(new Error(message), { at });

export const finalizedLock = (input = tradeInput(), terms: Partial<TakerLockTerms> = {}) =>
  ({ type: 'TAKER_LOCK_FINALIZED', signature: SIG.takerLock, terms: lockTerms(input, terms) }) as const;
/** The same lock read at confirmed: the commitment policy may let the maker go on it. */
export const confirmedLock = (input = tradeInput(), terms: Partial<TakerLockTerms> = {}) =>
  ({ type: 'TAKER_LOCK_CONFIRMED', signature: SIG.takerLock, terms: lockTerms(input, terms) }) as const;
/** A fork took back the taker lock (and the maker lock, when it landed on that fork). */
export const rolledBack = (
  withMakerLock: boolean,
): Extract<TradeEvent, { type: 'TAKER_LOCK_ROLLED_BACK' }> => ({
  type: 'TAKER_LOCK_ROLLED_BACK',
  dropped: [
    { kind: 'taker_lock', signature: SIG.takerLock },
    ...(withMakerLock ? [{ kind: 'maker_lock' as const, signature: SIG.makerLock }] : []),
  ],
});
export const redeemRequest = (now: number, preimageHash = SECRET_HASH) =>
  ({ type: 'REDEEM_REQUESTED', preimage: PREIMAGE, preimageHash, now }) as const;
export const chainTime = (now: number) => ({ type: 'CHAIN_TIME_ADVANCED', now }) as const;

// ── Pure replay: events fed to the machine without running its effects ──────────────────────────────────

/** A machine event, or one of xstate's own (an effect's done event) fed in its place. */
export type AnyTradeEvent = TradeEvent | { type: `xstate.${string}`; [key: string]: unknown };

/** The snapshot after `event`, effects not run. */
export const step = (snapshot: TradeSnapshot, event: AnyTradeEvent) =>
  transition(tradeMachine, snapshot, event as TradeEvent)[0];

/** Replays `events` from the initial state (effects are not run; their done events are fed). */
export function drive(events: readonly AnyTradeEvent[], input = tradeInput()): TradeSnapshot {
  let [snapshot] = initialTransition(tradeMachine, input);
  for (const event of events) snapshot = step(snapshot, event);
  return snapshot;
}

/** The done event of the effect `id` with its output. */
export const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output }) as const;

/** From the start to initiated.redeeming.makerLocked: the taker's final lock, then the maker's check, signing and lock. */
export const TO_MAKER_LOCKED: AnyTradeEvent[] = [
  finalizedLock(),
  done('checkInventory', { available: true, now: DECIDED_AT, price: null }),
  done('signMakerLock', { signature: SIG.makerLock, lastValidBlockHeight: 1_000, transactionBase64: 'AQID' }),
  done('makerLock', { landed: true, signature: SIG.makerLock }),
];

type Behaviour<TIn, TOut> = (input: TIn) => Promise<TOut> | TOut;

export interface FakeEffects {
  broadcastTakerLock: Behaviour<BroadcastTakerLockInput, BroadcastTakerLockOutput>;
  signSourcing: Behaviour<SignSourcingInput, SignSourcingOutput>;
  sendSourcing: Behaviour<SendSourcingInput, SendSourcingOutput>;
  checkInventory: Behaviour<CheckInventoryInput, CheckInventoryOutput>;
  signMakerLock: Behaviour<SignMakerLockInput, SignMakerLockOutput>;
  makerLock: Behaviour<MakerLockInput, MakerLockOutput>;
  takerRedeem: Behaviour<TakerRedeemInput, EscrowEnding>;
  makerRedeem: Behaviour<MakerRedeemInput, EscrowEnding>;
  makerRefund: Behaviour<MakerRefundInput, MakerRefundOutput>;
  makerCancel: Behaviour<TakerEscrowReleaseInput, EscrowEnding>;
  takerRefund: Behaviour<TakerEscrowReleaseInput, EscrowEnding>;
  closeEscrows: Behaviour<CloseEscrowsInput, unknown>;
}

/** Each effect does what it was asked, and the chain shows it so: the escrow ends the way it settles it. */
export const DEFAULT_EFFECTS: FakeEffects = {
  broadcastTakerLock: () => ({ outcome: 'landed' }),
  signSourcing: () => ({
    ok: true,
    signature: SIG.swap,
    lastValidBlockHeight: 900,
    transactionBase64: 'BAUG',
  }),
  sendSourcing: ({ plan, intent }) => ({
    landed: true,
    signature: intent.signature,
    soldRaw: plan.sellRaw,
    boughtRaw: plan.minBuyRaw,
  }),
  checkInventory: () => ({ available: true, now: DECIDED_AT, price: null }),
  signMakerLock: () => ({ signature: SIG.makerLock, lastValidBlockHeight: 1_000, transactionBase64: 'AQID' }),
  makerLock: ({ intent }) => ({ landed: true, signature: intent.signature }),
  takerRedeem: ({ preimage }) => paid(SIG.takerRedeem, preimage),
  makerRedeem: ({ preimage }) => paid(SIG.makerRedeem, preimage),
  makerRefund: () => returned(SIG.makerRefund),
  makerCancel: () => returned(SIG.cancel, 'cancelled'),
  takerRefund: () => returned(SIG.takerRefund),
  closeEscrows: () => ({}),
};

export type EffectCalls = { [K in keyof FakeEffects]: unknown[] };

/**
 * The machine with fake effects; `calls` records each effect's inputs in order. `admitConfirmed`: the
 * commitment policy's answer the runtime would give (the bare machine's: never).
 */
export function fakeMachine(overrides: Partial<FakeEffects> = {}, admitConfirmed = false) {
  const effects = { ...DEFAULT_EFFECTS, ...overrides };
  const calls: EffectCalls = {
    broadcastTakerLock: [],
    signSourcing: [],
    sendSourcing: [],
    checkInventory: [],
    signMakerLock: [],
    makerLock: [],
    takerRedeem: [],
    makerRedeem: [],
    makerRefund: [],
    makerCancel: [],
    takerRefund: [],
    closeEscrows: [],
  };
  const fake = <TIn, TOut>(name: keyof FakeEffects, behaviour: Behaviour<TIn, TOut>) =>
    fromPromise<TOut, TIn>(async ({ input }) => {
      calls[name].push(input);
      return behaviour(input);
    });
  const machine = tradeMachine.provide({
    actors: {
      broadcastTakerLock: fake('broadcastTakerLock', effects.broadcastTakerLock),
      signSourcing: fake('signSourcing', effects.signSourcing),
      sendSourcing: fake('sendSourcing', effects.sendSourcing),
      checkInventory: fake('checkInventory', effects.checkInventory),
      signMakerLock: fake('signMakerLock', effects.signMakerLock),
      makerLock: fake('makerLock', effects.makerLock),
      takerRedeem: fake('takerRedeem', effects.takerRedeem),
      makerRedeem: fake('makerRedeem', effects.makerRedeem),
      makerRefund: fake('makerRefund', effects.makerRefund),
      makerCancel: fake('makerCancel', effects.makerCancel),
      takerRefund: fake('takerRefund', effects.takerRefund),
      closeEscrows: fake('closeEscrows', effects.closeEscrows),
    },
    ...(admitConfirmed ? { guards: { confirmedLockAdmitted: () => true } } : {}),
  });
  return { machine, calls };
}

export type TradeActor = Actor<typeof tradeMachine>;
export type TradeSnapshot = SnapshotFrom<typeof tradeMachine>;

export function startTrade(
  overrides: Partial<FakeEffects> = {},
  input: TradeInput = tradeInput(),
  admitConfirmed = false,
) {
  const { machine, calls } = fakeMachine(overrides, admitConfirmed);
  const actor = createActor(machine, { input }).start();
  return { actor, calls, machine };
}

/**
 * Persists the actor's snapshot the way the store does (a JSON round trip) and restores it on `machine`.
 * The input is required by the actor's type only; a restored actor takes everything from the snapshot.
 */
export function persistAndRestore(actor: TradeActor, machine: ReturnType<typeof fakeMachine>['machine']) {
  const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
  actor.stop();
  return createActor(machine, { snapshot: persisted, input: persisted.context as TradeInput }).start();
}

/** Waits until the actor's state matches `path` (e.g. 'initiated.redeeming.makerLocked'). */
export function reach(actor: TradeActor, path: string): Promise<TradeSnapshot> {
  const value = path
    .split('.')
    .reduceRight<unknown>((inner, key) => (inner === undefined ? key : { [key]: inner }), undefined);
  return waitFor(actor, (s) => s.matches(value as never), { timeout: 1_000 });
}

/** A promise the test settles by hand: an effect that is still in flight. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const kinds = (s: TradeSnapshot) => s.context.signatures.map((x) => x.kind);

/** Waits until the running effect failed and its retry is scheduled. */
export function effectFailed(actor: TradeActor): Promise<TradeSnapshot> {
  return waitFor(actor, (s) => s.context.effectError !== null && s.context.effectError.retryAt !== null, {
    timeout: 1_000,
  });
}

/**
 * What the runtime does for a failed effect: once its retry falls due (`retryAt`, chain time), send
 * RETRY_EFFECT with that time. Returns the retry time it used.
 */
export async function retryWhenDue(actor: TradeActor): Promise<number> {
  const retryAt = (await effectFailed(actor)).context.effectError?.retryAt ?? Number.NaN;
  actor.send({ type: 'RETRY_EFFECT', now: retryAt });
  return retryAt;
}
