// Following one trade: its live stream (GET /v1/trades/{id}/stream, Server-Sent Events of the trade's events
// each with the TradeResponse after it; EventSource resumes with Last-Event-ID by itself), a re-read now and
// then for what changes with time alone (a refund becomes possible at the expiry, which no event marks),
// and polling of GET /v1/trades/{id} only when no stream can be had.
import { api, FINAL_STATUSES, type Trade, type TradeEvent } from './api.ts';

export interface Follower {
  stop(): void;
  /** Reads the trade now (after a command, or when the user asks). */
  refresh(): void;
}

export interface FollowOptions {
  /** Replay the events after this seq (0: all of them). */
  after: number;
  onTrade(trade: Trade, event: TradeEvent | null): void;
  onMode?(mode: 'stream' | 'polling'): void;
  onError?(error: Error): void;
  /** How often the trade is re-read besides the stream. */
  refreshMs?: number;
  pollMs?: number;
}

export function followTrade(tradeId: string, options: FollowOptions): Follower {
  const refreshMs = options.refreshMs ?? 5_000;
  const pollMs = options.pollMs ?? 1_000;
  let stopped = false;
  let source: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let interval = refreshMs;

  const deliver = (trade: Trade, event: TradeEvent | null) => {
    if (stopped) return;
    options.onTrade(trade, event);
    if (FINAL_STATUSES.includes(trade.settlement_status) && trade.next_action === undefined) stop();
  };

  const read = async () => {
    try {
      deliver(await api.trade(tradeId), null);
    } catch (error) {
      options.onError?.(error as Error);
    }
  };

  const schedule = () => {
    clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(async () => {
      await read();
      schedule();
    }, interval);
  };

  const poll = () => {
    source?.close();
    source = null;
    interval = pollMs;
    options.onMode?.('polling');
    schedule();
  };

  if (typeof EventSource === 'undefined') poll();
  else {
    source = new EventSource(api.streamUrl(tradeId, options.after));
    source.addEventListener('open', () => options.onMode?.('stream'));
    source.addEventListener('trade', (message) => deliver(JSON.parse(message.data) as Trade, null));
    source.addEventListener('trade-event', (message) => {
      const { event, trade } = JSON.parse(message.data) as { event: TradeEvent; trade: Trade };
      deliver(trade, event);
    });
    // EventSource retries a dropped stream by itself; CLOSED means it gave up (no such route, an error
    // answer): the page polls instead.
    source.addEventListener('error', () => {
      if (source?.readyState === EventSource.CLOSED) poll();
    });
    schedule();
  }

  function stop() {
    stopped = true;
    clearTimeout(timer);
    source?.close();
    source = null;
  }

  return {
    stop,
    refresh: () => {
      void read();
      schedule();
    },
  };
}
