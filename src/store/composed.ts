// The store as the composition of its repositories: every read of the port (port.ts) is answered by the
// repository of its aggregate, as each engine builds them (sqlite/<aggregate>.ts, postgres/<aggregate>.ts).
// Each engine's store extends this with what spans them: the commit of a batch (one transaction whichever
// repositories its writes touch), its shape of ownership, and the connection itself.

import type { Hash32 } from '../vocabulary/index.ts';
import type { DeskChange, DeskOverride, DeskRepository } from './desk.ts';
import type { EventsRepository } from './events.ts';
import type { HedgeRecord, HedgesRepository } from './hedges.ts';
import type { QuotesRepository } from './quotes.ts';
import type {
  QuoteRecord,
  RunRecord,
  StoredLedgerEntry,
  TradeEventRecord,
  TradeFilter,
  TradeRecord,
} from './records.ts';
import type { RunsRepository } from './runs.ts';
import type { TradesRepository } from './trades.ts';
import type { TransferRecord, TransfersRepository } from './transfers.ts';

/** One engine's repositories, one per aggregate. */
export interface Repositories {
  readonly quotes: QuotesRepository;
  readonly trades: TradesRepository;
  readonly events: EventsRepository;
  readonly hedges: HedgesRepository;
  readonly transfers: TransfersRepository;
  readonly desk: DeskRepository;
  readonly runs: RunsRepository;
}

export abstract class ComposedStore
  implements
    QuotesRepository,
    TradesRepository,
    EventsRepository,
    HedgesRepository,
    TransfersRepository,
    DeskRepository,
    RunsRepository
{
  constructor(private readonly repositories: Repositories) {}

  // ── Quotes (quotes.ts) ──
  getQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    return this.repositories.quotes.getQuote(quoteId);
  }
  openQuotes(nowMs: number): Promise<QuoteRecord[]> {
    return this.repositories.quotes.openQuotes(nowMs);
  }

  // ── Trades (trades.ts) ──
  getTrade(tradeId: string): Promise<TradeRecord | undefined> {
    return this.repositories.trades.getTrade(tradeId);
  }
  findTradeBySecretHash(secretHash: Hash32): Promise<TradeRecord | undefined> {
    return this.repositories.trades.findTradeBySecretHash(secretHash);
  }
  findTradeByQuote(quoteId: string): Promise<TradeRecord | undefined> {
    return this.repositories.trades.findTradeByQuote(quoteId);
  }
  listTrades(filter: TradeFilter): Promise<TradeRecord[]> {
    return this.repositories.trades.listTrades(filter);
  }
  liveTradeCount(wallet: string): Promise<number> {
    return this.repositories.trades.liveTradeCount(wallet);
  }
  tradeCounts(current: string): Promise<{ runId: string; created: number; owned: number }[]> {
    return this.repositories.trades.tradeCounts(current);
  }

  // ── Events and the ledger (events.ts) ──
  tradeEvents(tradeId: string): Promise<TradeEventRecord[]> {
    return this.repositories.events.tradeEvents(tradeId);
  }
  events(afterSeq: number, limit: number): Promise<TradeEventRecord[]> {
    return this.repositories.events.events(afterSeq, limit);
  }
  lastEventSeq(): Promise<number> {
    return this.repositories.events.lastEventSeq();
  }
  ledger(tradeId?: string): Promise<StoredLedgerEntry[]> {
    return this.repositories.events.ledger(tradeId);
  }
  watchEvents(listener: (tradeIds: readonly string[]) => void): Promise<() => Promise<void>> {
    return this.repositories.events.watchEvents(listener);
  }

  // ── Hedges (hedges.ts) ──
  getHedge(hedgeId: string): Promise<HedgeRecord | undefined> {
    return this.repositories.hedges.getHedge(hedgeId);
  }
  hedgesOfTrades(tradeIds: readonly string[]): Promise<HedgeRecord[]> {
    return this.repositories.hedges.hedgesOfTrades(tradeIds);
  }
  hedgesInFlight(): Promise<HedgeRecord[]> {
    return this.repositories.hedges.hedgesInFlight();
  }
  recentHedges(limit: number): Promise<HedgeRecord[]> {
    return this.repositories.hedges.recentHedges(limit);
  }

  // ── The Gateway's transfers (transfers.ts) ──
  getTransfer(transferId: string): Promise<TransferRecord | undefined> {
    return this.repositories.transfers.getTransfer(transferId);
  }
  transfersOfTrades(tradeIds: readonly string[]): Promise<TransferRecord[]> {
    return this.repositories.transfers.transfersOfTrades(tradeIds);
  }
  openTransfers(): Promise<TransferRecord[]> {
    return this.repositories.transfers.openTransfers();
  }
  recentTransfers(limit: number): Promise<TransferRecord[]> {
    return this.repositories.transfers.recentTransfers(limit);
  }

  // ── The desk's overrides (desk.ts) ──
  deskOverrides(): Promise<DeskOverride[]> {
    return this.repositories.desk.deskOverrides();
  }
  deskChanges(limit: number, beforeSeq?: number): Promise<DeskChange[]> {
    return this.repositories.desk.deskChanges(limit, beforeSeq);
  }
  watchDesk(listener: () => void): Promise<() => Promise<void>> {
    return this.repositories.desk.watchDesk(listener);
  }

  // ── Runs (runs.ts) ──
  stopRun(runId: string, stoppedAt: string): Promise<void> {
    return this.repositories.runs.stopRun(runId, stoppedAt);
  }
  retireRuns(url: string, runId: string, stoppedAt: string): Promise<number> {
    return this.repositories.runs.retireRuns(url, runId, stoppedAt);
  }
  listRuns(): Promise<RunRecord[]> {
    return this.repositories.runs.listRuns();
  }
}
