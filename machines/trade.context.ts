// A trade's context: what a new trade starts with, and what the statechart's states read off it and off the
// events they take — an effect's input, the params of a guard or an action. trade.machine.ts names these;
// none of them decides where the trade goes.
import type { Preimage } from '../src/vocabulary/index.ts';
import type {
  EscrowEnding,
  EscrowTerms,
  MakerLockOutput,
  MakerRefundOutput,
  RedeemEffectInput,
  TradeContext,
  TradeInput,
} from './trade.types.ts';

/** A new trade's context: its input, nothing recorded yet. */
export function initialContext(input: TradeInput): TradeContext {
  // Spelled out, not spread: V8 builds a spread followed by more properties on a slow path (~40 µs a
  // trade, as much as the rest of a settlement start's bookkeeping together).
  return {
    tradeId: input.tradeId,
    quoteId: input.quoteId,
    runId: input.runId,
    takerWallet: input.takerWallet,
    makerWallet: input.makerWallet,
    inputMint: input.inputMint,
    inputAmountRaw: input.inputAmountRaw,
    outputMint: input.outputMint,
    outputAmountRaw: input.outputAmountRaw,
    takerExpiry: input.takerExpiry,
    lockDeadline: input.lockDeadline,
    takerEscrow: input.takerEscrow,
    makerEscrow: input.makerEscrow,
    makerTimelock: input.makerTimelock,
    safetyMargin: input.safetyMargin,
    minRedeemWindow: input.minRedeemWindow,
    landingMargin: input.landingMargin,
    sourcing: input.sourcing ?? null,
    secretHash: input.secretHash,
    currentRunId: input.runId,
    adoptedAt: null,
    signatures: [],
    lockSignature: null,
    lockSubmissions: [],
    takerLockTerms: null,
    takerLockConfirmedOnly: false,
    assessment: null,
    makerExpiry: null,
    makerLockIntent: null,
    sourcingIntent: null,
    mintIntent: null,
    sourced: null,
    preimage: null,
    makerEscrowRedeemSeen: false,
    abandonedWith: null,
    redeemRequested: false,
    refundRequested: false,
    failureReason: null,
    alert: false,
    effectError: null,
  };
}

/** The taker escrow's terms: the taker's input, paid to the maker by a redeem. */
export const takerEscrowTerms = (context: TradeContext): EscrowTerms => ({
  address: context.takerEscrow,
  mint: context.inputMint,
  amountRaw: context.inputAmountRaw,
  recipient: context.makerWallet,
  initializer: context.takerWallet,
});

/** The maker escrow's terms: the maker's output, paid to the taker by a redeem. */
export const makerEscrowTerms = (context: TradeContext): EscrowTerms => ({
  address: context.makerEscrow,
  mint: context.outputMint,
  amountRaw: context.outputAmountRaw,
  recipient: context.takerWallet,
  initializer: context.makerWallet,
});

// ── Effect inputs ────────────────────────────────────────────────────────────────────────────────────

/** An escrow effect's input: the trade and the escrow's terms. */
export const takerEscrowInput = ({ context }: { context: TradeContext }) => ({
  tradeId: context.tradeId,
  escrow: takerEscrowTerms(context),
});
export const makerEscrowInput = ({ context }: { context: TradeContext }) => ({
  tradeId: context.tradeId,
  escrow: makerEscrowTerms(context),
});

/**
 * The preimage a redeem state redeems with. Both redeem states are entered only once it is known (a redeem
 * request that matched the hash, or a redeem seen on chain), as every effect state's input needs what led
 * to it.
 */
function knownPreimage(context: TradeContext): Preimage {
  if (context.preimage === null) throw new Error('a redeem without a known preimage');
  return context.preimage;
}
/** The maker escrow redeemed for the taker. */
export const takerRedeemInput = ({ context }: { context: TradeContext }): RedeemEffectInput => ({
  ...makerEscrowInput({ context }),
  preimage: knownPreimage(context),
});
/** The taker escrow redeemed for the maker. */
export const makerRedeemInput = ({ context }: { context: TradeContext }): RedeemEffectInput => ({
  ...takerEscrowInput({ context }),
  preimage: knownPreimage(context),
});

// ── Params of guards and actions ─────────────────────────────────────────────────────────────────────

/** The effect's answer, as a guard or an action that reads all of it takes it. */
export const effectOutput = <O>({ event }: { event: { output: O } }): O => event.output;

/** How the effect's escrow ended (the effect's answer), for a guard or an action that reads it. */
export const endingOfOutput = ({ event }: { event: { output: MakerRefundOutput } }) => ({
  ending: event.output,
});

/**
 * The signature that settled the effect's escrow or landed its lock; null when the answer carries none (a
 * maker escrow found never funded, a lock proved unable to land), and the action then records nothing.
 */
export const signatureOfOutput = ({
  event,
}: {
  event: { output: EscrowEnding | MakerRefundOutput | MakerLockOutput };
}) => ({ signature: 'signature' in event.output ? event.output.signature : null });

/** The signature of the movement a chain fact reports. */
export const signatureOfEvent = ({ event }: { event: { signature: string } }) => ({
  signature: event.signature,
});
