// The rpc chain's push feed: one programSubscribe on the HTLC program over the cluster's websocket,
// reconnecting with backoff (to the next websocket of the list while one cannot be subscribed to). `live`
// holds only while the subscription is confirmed and the socket answers pings, so the watcher knows when
// to fall back to batched polling.
//
// What programSubscribe does NOT push: a validator builds program notifications from the accounts
// stored in a slot WHOSE OWNER (after the slot) is the program — agave `filter_program_results` over
// `Bank::get_program_accounts_modified_since_parent` → `Accounts::load_by_program_slot(slot,
// Some(program_id))`, which keeps `stored_account.owner() == program_id`. Closing an escrow reassigns
// it to the System program (and a zero-lamport account is stored as the default account), so the close
// is never pushed; nor is anything else that slot did to an escrow it also closed (a redeem-and-close in
// one transaction pushes nothing). solana-labs/solana#13440 made accountSubscribe notify deletions and
// notes program subscriptions still don't; solana-labs/solana#22685 describes the same for geyser.
// Each notification carries an account's last state in its slot, so several changes in one slot arrive
// as one. The watcher's periodic batched sweep (readEscrows answers null for a closed escrow) is what
// sees closes; getTransaction's tokenBalances then tell how the escrow ended.

import WebSocket from 'ws';
import type { AccountFeed, Commitment } from '../port.ts';

export interface ProgramFeedOptions {
  /**
   * Websocket endpoints, the preferred first. Pushes come from one at a time: an attempt that does not get
   * to a subscription moves on to the next; a subscription that drops is tried again where it was.
   */
  wsUrls: readonly string[];
  programId: string;
  commitment: Commitment;
  onChange: (addresses: readonly string[]) => void;
  /** A ping goes out this often; a socket that has not answered the previous one is dropped. */
  pingIntervalMs?: number;
  /** Reconnect backoff: starts here, doubles per failed attempt up to reconnectMaxMs. */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
}

/**
 * The websocket endpoint web3.js 1.x derives from an RPC URL (Connection's makeWebsocketUrl): http→ws,
 * https→wss, and port + 1 only when the URL names a port (a validator's 8899 → 8900); without a port,
 * the default port, where a proxy is assumed to upgrade the connection.
 */
export function websocketUrlFor(httpUrl: string): string {
  const match = /^[^:]+:\/\/([^:[]+|\[[^\]]+\])(:\d+)?(.*)/i.exec(httpUrl);
  if (!match) throw new TypeError('rpc chain: the RPC URL is not a URL');
  const [, host, port, rest] = match;
  const protocol = httpUrl.startsWith('https:') ? 'wss:' : 'ws:';
  return `${protocol}//${host}${port ? `:${Number(port.slice(1)) + 1}` : ''}${rest}`;
}

const SUBSCRIBE_ID = 1;

export function openProgramFeed(options: ProgramFeedOptions): AccountFeed {
  const feed = new ProgramFeed(options);
  feed.connect();
  return feed;
}

/** A message the subscription's socket may carry: the subscription's answer, or a notification. */
interface FeedMessage {
  id?: unknown;
  result?: unknown;
  error?: unknown;
  method?: unknown;
  params?: { subscription?: unknown; result?: { value?: { pubkey?: unknown } } };
}

class ProgramFeed implements AccountFeed {
  private socket: WebSocket | null = null;
  private subscription: number | null = null;
  private closed = false;
  private delay: number;
  /** Which of wsUrls the next attempt goes to (modulo their number). */
  private next = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private readonly pingMs: number;
  private readonly minDelay: number;
  private readonly maxDelay: number;
  /** How many times the feed has gone live (AccountFeed.generation). */
  private subscriptions = 0;

  constructor(private readonly options: ProgramFeedOptions) {
    this.pingMs = options.pingIntervalMs ?? 10_000;
    this.minDelay = options.reconnectMinMs ?? 250;
    this.maxDelay = options.reconnectMaxMs ?? 5_000;
    this.delay = this.minDelay;
  }

  get generation(): number {
    return this.subscriptions;
  }

  get live(): boolean {
    return !this.closed && this.subscription !== null && this.socket?.readyState === WebSocket.OPEN;
  }

  /** Opens a socket to the next endpoint; once open it subscribes and starts pinging. */
  connect(): void {
    this.reconnectTimer = null;
    if (this.closed) return;
    const ws = new WebSocket(this.options.wsUrls[this.next % this.options.wsUrls.length] as string, {
      handshakeTimeout: 10_000,
    });
    const subscribedBefore = this.subscriptions;
    this.socket = ws;
    /** Whether the socket has answered (a pong or any message) since the last ping. */
    const heard = { answered: true };
    ws.on('open', () => {
      this.subscribe(ws);
      this.startPing(ws, heard);
    });
    ws.on('pong', () => {
      heard.answered = true;
    });
    ws.on('message', (data) => {
      heard.answered = true;
      this.receive(ws, String(data));
    });
    // 'close' follows every error; reconnecting happens there.
    ws.on('error', () => {});
    ws.on('close', () => this.dropped(ws, subscribedBefore));
  }

  private subscribe(ws: WebSocket): void {
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: SUBSCRIBE_ID,
        method: 'programSubscribe',
        params: [this.options.programId, { encoding: 'base64', commitment: this.options.commitment }],
      }),
    );
  }

  /** A ping every pingMs; a socket that has not answered the previous one is dropped. */
  private startPing(ws: WebSocket, heard: { answered: boolean }): void {
    this.pingTimer = setInterval(() => {
      if (!heard.answered) {
        ws.terminate();
        return;
      }
      heard.answered = false;
      ws.ping();
    }, this.pingMs);
    this.pingTimer.unref();
  }

  private stopPing(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  /**
   * The socket closed: try again after the backoff, at the next endpoint when this one never got to a
   * subscription.
   */
  private dropped(ws: WebSocket, subscribedBefore: number): void {
    if (this.socket !== ws) return;
    this.socket = null;
    this.subscription = null;
    this.stopPing();
    if (this.closed) return;
    if (this.subscriptions === subscribedBefore) this.next += 1;
    this.reconnectTimer = setTimeout(() => this.connect(), this.delay);
    this.reconnectTimer.unref();
    this.delay = Math.min(this.delay * 2, this.maxDelay);
  }

  private receive(ws: WebSocket, text: string): void {
    let message: FeedMessage;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message.id === SUBSCRIBE_ID) this.subscribed(ws, message);
    else this.notified(message);
  }

  /** The subscription's answer: live from here, or the socket dropped to try again later. */
  private subscribed(ws: WebSocket, message: FeedMessage): void {
    if (typeof message.result === 'number') {
      this.subscription = message.result;
      this.subscriptions += 1;
      this.delay = this.minDelay;
    } else {
      // Refused (or answered nonsense): drop the socket and try again later.
      ws.terminate();
    }
  }

  private notified(message: FeedMessage): void {
    if (message.method !== 'programNotification' || message.params?.subscription !== this.subscription)
      return;
    const pubkey = message.params?.result?.value?.pubkey;
    if (typeof pubkey !== 'string') return;
    try {
      this.options.onChange([pubkey]);
    } catch {
      // The watcher's failure must not take the socket down with it.
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.stopPing();
    this.subscription = null;
    this.socket?.terminate();
    this.socket = null;
  }
}
