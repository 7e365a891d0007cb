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
  const pingMs = options.pingIntervalMs ?? 10_000;
  const minDelay = options.reconnectMinMs ?? 250;
  const maxDelay = options.reconnectMaxMs ?? 5_000;
  let socket: WebSocket | null = null;
  let subscription: number | null = null;
  let generation = 0;
  let closed = false;
  let delay = minDelay;
  /** Which of wsUrls the next attempt goes to (modulo their number). */
  let next = 0;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let pingTimer: NodeJS.Timeout | null = null;

  const stopPing = () => {
    if (pingTimer) clearInterval(pingTimer);
    pingTimer = null;
  };

  const connect = () => {
    reconnectTimer = null;
    if (closed) return;
    const ws = new WebSocket(options.wsUrls[next % options.wsUrls.length] as string, {
      handshakeTimeout: 10_000,
    });
    const subscribedBefore = generation;
    socket = ws;
    let answered = true;
    ws.on('open', () => {
      ws.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: SUBSCRIBE_ID,
          method: 'programSubscribe',
          params: [options.programId, { encoding: 'base64', commitment: options.commitment }],
        }),
      );
      pingTimer = setInterval(() => {
        if (!answered) {
          ws.terminate();
          return;
        }
        answered = false;
        ws.ping();
      }, pingMs);
      pingTimer.unref();
    });
    ws.on('pong', () => {
      answered = true;
    });
    ws.on('message', (data) => {
      answered = true;
      receive(ws, String(data));
    });
    // 'close' follows every error; reconnecting happens there.
    ws.on('error', () => {});
    ws.on('close', () => {
      if (socket !== ws) return;
      socket = null;
      subscription = null;
      stopPing();
      if (closed) return;
      if (generation === subscribedBefore) next += 1;
      reconnectTimer = setTimeout(connect, delay);
      reconnectTimer.unref();
      delay = Math.min(delay * 2, maxDelay);
    });
  };

  const receive = (ws: WebSocket, text: string) => {
    let message: {
      id?: unknown;
      result?: unknown;
      error?: unknown;
      method?: unknown;
      params?: { subscription?: unknown; result?: { value?: { pubkey?: unknown } } };
    };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message.id === SUBSCRIBE_ID) {
      if (typeof message.result === 'number') {
        subscription = message.result;
        generation += 1;
        delay = minDelay;
      } else {
        // Refused (or answered nonsense): drop the socket and try again later.
        ws.terminate();
      }
      return;
    }
    if (message.method !== 'programNotification' || message.params?.subscription !== subscription) return;
    const pubkey = message.params?.result?.value?.pubkey;
    if (typeof pubkey !== 'string') return;
    try {
      options.onChange([pubkey]);
    } catch {
      // The watcher's failure must not take the socket down with it.
    }
  };

  connect();
  return {
    get live() {
      return !closed && subscription !== null && socket?.readyState === WebSocket.OPEN;
    },
    get generation() {
      return generation;
    },
    close: () => {
      if (closed) return;
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      stopPing();
      subscription = null;
      socket?.terminate();
      socket = null;
    },
  };
}
