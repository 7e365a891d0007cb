// Which of a trade's maker transactions still owe the ledger their network fee: read from the trade's
// TX_INTENT events (the payload the runtime's recordIntent wrote) against its ledger. Pure.
import type { LedgerEntry } from '../ledger/index.ts';
import type { TradeEventRecord } from '../store/index.ts';

/**
 * The signatures of the trade's intents with no network_fee in its ledger, once each (the last block
 * height its intent noted; null for an intent recorded before it was noted), in the order first recorded.
 */
export function unpostedFees(
  events: readonly Pick<TradeEventRecord, 'type' | 'payload'>[],
  ledger: readonly Pick<LedgerEntry, 'movement' | 'signature'>[],
): { signature: string; lastValidBlockHeight: number | null }[] {
  const posted = new Set(ledger.filter((e) => e.movement === 'network_fee').map((e) => e.signature));
  const unposted = new Map<string, number | null>();
  for (const event of events) {
    if (event.type !== 'TX_INTENT') continue;
    const { signature, last_valid_block_height: height } = event.payload as {
      signature?: string;
      last_valid_block_height?: number;
    };
    if (signature && !posted.has(signature)) unposted.set(signature, height ?? null);
  }
  return [...unposted].map(([signature, lastValidBlockHeight]) => ({
    signature,
    lastValidBlockHeight,
  }));
}
