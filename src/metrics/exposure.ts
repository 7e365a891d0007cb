// What the open trades hold in escrow and how close their deadlines are, read from their contexts with the
// trade machine's own rules, so a gauge means exactly what the machine means. Pure.
import {
  hasSignature,
  makerEscrowUnsettled,
  redeemBy,
  type TradeContext,
  takerEscrowHoldsFunds,
} from '../../machines/index.ts';

export type ExposureContext = Pick<
  TradeContext,
  | 'signatures'
  | 'inputMint'
  | 'inputAmountRaw'
  | 'outputMint'
  | 'outputAmountRaw'
  | 'takerLockTerms'
  | 'takerExpiry'
  | 'makerExpiry'
  | 'landingMargin'
  | 'makerEscrowRedeemSeen'
>;

export const ESCROW_SIDES = ['taker', 'maker'] as const;
export type EscrowSide = (typeof ESCROW_SIDES)[number];

/**
 * The deadlines an operator watches, each over the trades it can still hurt:
 * - `maker_expiry`: maker escrows holding funds (locked, neither redeemed by the taker nor refunded);
 * - `redeem_by`: the last moment the taker's redeem of those escrows is accepted;
 * - `taker_expiry`: taker escrows still holding funds after the maker's escrow paid the taker — the maker
 *   must redeem before it, or the taker can refund and keep both sides.
 */
export const DEADLINES = ['maker_expiry', 'redeem_by', 'taker_expiry'] as const;
export type Deadline = (typeof DEADLINES)[number];

export interface Exposure {
  /** Raw units in escrow per side and mint. */
  escrowed: Record<EscrowSide, Map<string, bigint>>;
  /** The earliest of each deadline (chain unix seconds) among the trades it concerns; null when none. */
  nearest: Record<Deadline, number | null>;
}

/** The exposure of the trades whose stored snapshots these are (the store's settlingSnapshots). */
export function storedExposure(snapshots: Iterable<string>): Exposure {
  return escrowExposure(
    (function* () {
      for (const snapshot of snapshots) yield (JSON.parse(snapshot) as { context: ExposureContext }).context;
    })(),
  );
}

export function escrowExposure(contexts: Iterable<ExposureContext>): Exposure {
  const exposure: Exposure = {
    escrowed: { taker: new Map(), maker: new Map() },
    nearest: { maker_expiry: null, redeem_by: null, taker_expiry: null },
  };
  const add = (side: EscrowSide, mint: string, raw: string) => {
    if (!/^\d+$/.test(raw)) return; // never from this service; a gauge must not fail the scrape over it
    const held = exposure.escrowed[side];
    held.set(mint, (held.get(mint) ?? 0n) + BigInt(raw));
  };
  const earliest = (deadline: Deadline, at: number | null) => {
    const known = exposure.nearest[deadline];
    if (at !== null && (known === null || at < known)) exposure.nearest[deadline] = at;
  };
  for (const context of contexts) {
    if (takerEscrowHoldsFunds(context)) {
      // What the taker's lock put there, as read on chain (the ledger posts the same).
      const locked = context.takerLockTerms;
      add('taker', locked?.mint ?? context.inputMint, locked?.amountRaw ?? context.inputAmountRaw);
      if (hasSignature(context, 'taker_redeem') || context.makerEscrowRedeemSeen) {
        earliest('taker_expiry', context.takerExpiry);
      }
    }
    if (makerEscrowUnsettled(context)) {
      add('maker', context.outputMint, context.outputAmountRaw);
      earliest('maker_expiry', context.makerExpiry);
      earliest('redeem_by', redeemBy(context));
    }
  }
  return exposure;
}
