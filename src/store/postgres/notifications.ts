// Between instances, live streams hear of each other's events: a commit that appends events NOTIFYs the
// trades it wrote (the notices ride with the COMMIT, so a rolled-back batch tells nobody), and each instance
// LISTENs on a connection of its own, skipping its own notices.
import pg from 'pg';

/** The channel commits that append events notify, with the trades they wrote (see watchEvents). */
export const EVENTS_CHANNEL = 'rfq_trade_events';
/** NOTIFY refuses payloads of 8000 bytes or more. */
const NOTIFY_PAYLOAD_BYTES = 7_999;

interface EventsNotice {
  /** The store instance that committed them: an instance skips its own. */
  from: string;
  trades: string[];
}

/** NOTIFY payloads naming the trades, each under the size NOTIFY takes. */
export function eventsNotices(from: string, tradeIds: Iterable<string>): string[] {
  const notices: string[] = [];
  let trades: string[] = [];
  const empty = Buffer.byteLength(JSON.stringify({ from, trades: [] } satisfies EventsNotice));
  let bytes = empty;
  for (const tradeId of tradeIds) {
    const size = Buffer.byteLength(JSON.stringify(tradeId)) + 1;
    if (trades.length > 0 && bytes + size > NOTIFY_PAYLOAD_BYTES) {
      notices.push(JSON.stringify({ from, trades } satisfies EventsNotice));
      trades = [];
      bytes = empty;
    }
    trades.push(tradeId);
    bytes += size;
  }
  if (trades.length > 0) notices.push(JSON.stringify({ from, trades } satisfies EventsNotice));
  return notices;
}

/**
 * LISTENs on a connection of its own (a pooled one would be handed to others) and calls the listener with
 * the trades of every other instance's notice. Should that connection fail, it goes quiet: the error is
 * swallowed and the listener hears nothing more (the caller's periodic reads still find the events);
 * stopping it then only ends what is left. Resolves once listening; the function it gives stops it.
 */
export function listenForEvents(
  url: string,
  instanceId: string,
  listener: (tradeIds: readonly string[]) => void,
): Promise<() => Promise<void>> {
  return listenOn(url, EVENTS_CHANNEL, 'rfq-maker-events', (payload) => {
    const notice = JSON.parse(payload) as EventsNotice;
    if (notice.from !== instanceId) listener(notice.trades);
  });
}

/** The channel a commit that changes the desk's settings notifies; its payload is the committing instance. */
export const DESK_CHANNEL = 'rfq_desk_changes';

/** Calls the listener on every other instance's change to the desk's settings (as listenForEvents). */
export function listenForDeskChanges(
  url: string,
  instanceId: string,
  listener: () => void,
): Promise<() => Promise<void>> {
  return listenOn(url, DESK_CHANNEL, 'rfq-maker-desk', (payload) => {
    if (payload !== instanceId) listener();
  });
}

/** One channel LISTENed on a connection of its own; `onPayload` gets each notice's payload. */
async function listenOn(
  url: string,
  channel: string,
  applicationName: string,
  onPayload: (payload: string) => void,
): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: url, application_name: applicationName });
  let alive = true;
  client.on('error', () => {
    alive = false;
  });
  client.on('end', () => {
    alive = false;
  });
  client.on('notification', (notice) => {
    if (notice.channel !== channel || notice.payload === undefined) return;
    try {
      onPayload(notice.payload);
    } catch {
      // A listener's failure is its own; a foreign payload is not ours to read.
    }
  });
  try {
    await client.connect();
    await client.query(`LISTEN ${channel}`);
  } catch (error) {
    alive = false;
    await client.end().catch(() => {});
    throw error;
  }
  return async () => {
    if (alive) await client.query(`UNLISTEN ${channel}`).catch(() => {});
    alive = false;
    await client.end().catch(() => {});
  };
}

/** The LISTENing connections of one store (watchEvents, watchDesk), ended with it. */
export class Listeners {
  private readonly stops = new Set<() => Promise<void>>();
  private closed = false;

  /** Starts one (listen resolves once listening); the function it gives stops it. */
  async add(listen: () => Promise<() => Promise<void>>): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('the store is closed');
    const stopListening = await listen();
    const stop = async () => {
      if (!this.stops.delete(stop)) return;
      await stopListening();
    };
    this.stops.add(stop);
    return stop;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.stops].map((stop) => stop()));
  }
}
