// Every write the running service makes, as data: the group commit gathers a turn's writes and applies
// them in one SQLite transaction, each in its own savepoint.
import type { LedgerEntry } from '../ledger/index.ts';
import type { NewTradeEvent, QuoteRecord, Store, TradeRecord, TradeUpdate } from './index.ts';

export type StoreWrite =
  | { kind: 'insertQuote'; quote: QuoteRecord }
  | { kind: 'createTrade'; trade: TradeRecord; event: NewTradeEvent }
  | { kind: 'saveTransition'; update: TradeUpdate; events: NewTradeEvent[]; ledger: LedgerEntry[] }
  | { kind: 'appendEvents'; events: NewTradeEvent[] }
  | { kind: 'setSeen'; tradeId: string; seen: string }
  | { kind: 'setWake'; tradeId: string; at: number | null }
  | { kind: 'claimTrade'; tradeId: string; runId: string };

export function applyWrite(store: Store, write: StoreWrite): void {
  switch (write.kind) {
    case 'insertQuote':
      store.insertQuote(write.quote);
      break;
    case 'createTrade':
      store.createTrade(write.trade, write.event);
      break;
    case 'saveTransition':
      store.saveTransition(write.update, write.events, write.ledger);
      break;
    case 'appendEvents':
      store.appendEvents(write.events);
      break;
    case 'setSeen':
      store.setSeen(write.tradeId, write.seen);
      break;
    case 'setWake':
      store.setWake(write.tradeId, write.at);
      break;
    case 'claimTrade':
      store.claimTrade(write.tradeId, write.runId);
      break;
  }
}

/** How each write of a committed batch went: a write that threw rolled back to its savepoint alone. */
export type WriteOutcome = { ok: true } | { ok: false; message: string };

/** Applies a batch in one transaction, each write in its own savepoint. Throws when the commit fails. */
export function commitBatch(store: Store, batch: readonly StoreWrite[]): WriteOutcome[] {
  return store.transaction(() =>
    batch.map((write): WriteOutcome => {
      try {
        store.transaction(() => applyWrite(store, write));
        return { ok: true };
      } catch (error) {
        return { ok: false, message: (error as Error).message };
      }
    }),
  );
}
