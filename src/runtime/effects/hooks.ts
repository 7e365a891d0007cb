// What the runtime hands the effects: the durability barrier, intents and fees, chain time, the last look,
// sourcing and minting. Each effect takes the slice of it that it reads (a Pick of EffectHooks).
import type { PriceCheck } from '../../../machines/index.ts';
import type { MintingHooks, PostMint } from '../minting.ts';
import type { PostSwap, SourcingHooks } from '../sourcing.ts';

export interface EffectHooks {
  /**
   * Resolves once everything the runtime has written so far is durable; rejects if a write of this trade
   * failed (the transition that started the effect is not stored: nothing may act on it).
   */
  barrier(tradeId: string): Promise<void>;
  /** Durably records that a transaction of this kind and signature is about to be sent. */
  recordIntent(tradeId: string, kind: string, signature: string, lastValidBlockHeight: number): Promise<void>;
  /**
   * The maker transactions of the trade (its intents) whose network fee the ledger does not show yet, with
   * the last block height each could land at (null for an intent recorded before it was noted).
   */
  unpostedFees(tradeId: string): Promise<{ signature: string; lastValidBlockHeight: number | null }[]>;
  /**
   * The fee the maker paid for one of the trade's transactions, once the chain showed it final (landed or
   * failed): posted to the trade's ledger as a network_fee, once, whatever the transaction moved.
   */
  postFee(tradeId: string, signature: string, lamports: bigint): Promise<void>;
  /** The runtime's best knowledge of chain time (the failure time of an effect). */
  chainTime(): number;
  /** The trade's quote re-priced from the current price snapshot (the maker's last look before it locks). */
  reprice(quoteId: string): Promise<PriceCheck | null>;
  minRedeemWindowSeconds: number;
  landTimeoutMs: number;
  /** How long the taker lock's broadcast waits between rounds while the chain cannot be reached. */
  rebroadcastPauseMs?: number;
  /** Just-in-time sourcing's aggregator and bounds; null (or absent): a sourcing step is declined. */
  sourcing?: SourcingHooks | null;
  /** Books a final sourcing swap on the trade's ledger, once per signature. */
  postSwap?: PostSwap;
  /** Just-in-time minting's Gateway, depositor and bounds; null (or absent): a minting step is declined. */
  minting?: MintingHooks | null;
  /** Books a final gatewayMint on the trade's ledger, once per signature. */
  postMint?: PostMint;
  /** The Gateway's USDC mint (base58) when a Gateway runs: the shortfall checkInventory measures is of it. */
  mintableUsdc?: string | null;
}
