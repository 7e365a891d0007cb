// Following one trade: its live stream (GET /v1/trades/{id}/stream: Server-Sent Events of the trade's
// events, each with the TradeResponse after it), read with fetch so that it runs the same in a browser and on
// Node and resumes after a dropped connection with Last-Event-ID; a re-read now and then for what changes with
// time alone (a refund becomes possible at the expiry, which no event marks); and polling of
// GET /v1/trades/{id} when the stream is refused (a proxy that does not pass it, an old service).
import { createParser } from 'eventsource-parser';
import { FINAL_STATUSES, type ServiceApi, type Trade, type TradeEvent } from './api.ts';

export interface Follower {
  stop(): void;
  /** Reads the trade now (after a command, or when the user asks). */
  refresh(): void;
}

export type FollowMode = 'stream' | 'polling';

export interface FollowOptions {
  /** Replay the events after this seq first (0: all of them). */
  after: number;
  onTrade(trade: Trade, event: TradeEvent | null): void;
  onMode?(mode: FollowMode): void;
  onError?(error: Error): void;
  /** How often the trade is re-read besides the stream (default 5 s), and polled without one (1 s). */
  refreshMs?: number;
  pollMs?: number;
  /** The wait before reconnecting a dropped stream (1 s). */
  reconnectMs?: number;
}

/** A trade the follower stops at: final, and nothing left for the taker to do. */
export const isSettled = (trade: Trade): boolean =>
  FINAL_STATUSES.includes(trade.settlement_status) && trade.next_action === undefined;

export function followTrade(service: ServiceApi, tradeId: string, options: FollowOptions): Follower {
  const refreshMs = options.refreshMs ?? 5_000;
  const pollMs = options.pollMs ?? 1_000;
  const reconnectMs = options.reconnectMs ?? 1_000;
  const abort = new AbortController();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let interval = refreshMs;
  let lastEventId: string | null = null;

  const deliver = (trade: Trade, event: TradeEvent | null) => {
    if (stopped) return;
    options.onTrade(trade, event);
    if (isSettled(trade)) stop();
  };

  const read = async () => {
    try {
      deliver(await service.trade(tradeId), null);
    } catch (error) {
      if (!stopped) options.onError?.(error as Error);
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
    if (stopped) return;
    interval = pollMs;
    options.onMode?.('polling');
    schedule();
  };

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function stream(): Promise<void> {
    let failures = 0;
    while (!stopped) {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      // The first connection asks for the history after `after`; a reconnect resumes after the last event seen.
      if (lastEventId !== null) headers['last-event-id'] = lastEventId;
      const url = `${service.streamUrl(tradeId)}${lastEventId === null ? `?after=${options.after}` : ''}`;
      let response: Response;
      try {
        response = await service.fetch(url, { headers, signal: abort.signal });
      } catch {
        if (stopped) return;
        // Unreachable three times in a row: poll (which reports its own errors) rather than go quiet.
        if (++failures >= 3) return poll();
        await pause(reconnectMs);
        continue;
      }
      const type = response.headers.get('content-type') ?? '';
      if (!response.ok || !type.includes('text/event-stream') || !response.body) {
        await response.body?.cancel().catch(() => {});
        return poll();
      }
      failures = 0;
      options.onMode?.('stream');
      const parser = createParser({
        onEvent: (message) => {
          if (message.id !== undefined) lastEventId = message.id;
          try {
            if (message.event === 'trade') deliver(JSON.parse(message.data) as Trade, null);
            else if (message.event === 'trade-event') {
              const { event, trade } = JSON.parse(message.data) as { event: TradeEvent; trade: Trade };
              deliver(trade, event);
            }
          } catch (error) {
            options.onError?.(error as Error);
          }
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done || stopped) break;
          parser.feed(value);
        }
      } catch {
        // Dropped: reconnected below with Last-Event-ID, so nothing is missed or seen twice.
      }
      if (stopped) return;
      await pause(reconnectMs);
    }
  }

  function stop() {
    stopped = true;
    clearTimeout(timer);
    abort.abort();
  }

  void stream();
  schedule();

  return {
    stop,
    refresh: () => {
      void read();
      schedule();
    },
  };
}
