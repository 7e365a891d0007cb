// The loopback chain's websocket side: Solana PubSub JSON-RPC (account, program and signature
// subscriptions) as a validator serves it next to its HTTP port, notifications shaped as web3.js 1.x parses
// them (AccountNotificationResult, ProgramAccountNotificationResult, SignatureNotification), driven by the
// ledger's writes at each subscription's commitment (finalized when none is given): on the instant chain
// every commitment hears of a write as it lands; on a chain that keeps real time, confirmed and finalized a
// few and some thirty slots later, and a rollback is told at processed and confirmed with the accounts as
// restored. Like a validator, a program subscription is told only about accounts the program still owns
// after the write: an escrow that a transaction closed is not notified (see src/chain/rpc/feed.ts).

import { PublicKey, SystemProgram } from '@solana/web3.js';
import WebSocket from 'ws';
import { accountJson } from '../chain/embedded/json-rpc.ts';
import {
  COMMITMENTS,
  type CommitmentLevel,
  type EmbeddedLedger,
  type LedgerWrite,
} from '../chain/embedded/ledger.ts';
import type { StoredAccount } from '../chain/embedded/store.ts';
import { decodeBase58 } from '../vocabulary/base58.ts';
import { listenWebSocket } from './listen.ts';

export interface PubSubOptions {
  ledger: EmbeddedLedger;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Told each request's method (subscriptions, unsubscriptions, the clients' keep-alive notifications). */
  onRequest: (method: string) => void;
  onNotify: (method: string) => void;
}

export interface PubSub {
  readonly port: number;
  close(): Promise<void>;
}

type Filter = { dataSize: number } | { memcmp: { offset: number; bytes: Uint8Array } };

interface Subscription {
  id: number;
  socket: WebSocket;
  encoding: string;
  commitment: CommitmentLevel;
  target:
    | { kind: 'account'; address: string }
    | { kind: 'program'; programId: string; filters: Filter[] }
    | { kind: 'signature'; signature: string };
}

class InvalidParams extends Error {}

const ENCODINGS = new Set(['base58', 'base64']);
const SYSTEM_PROGRAM = SystemProgram.programId.toBase58();

const subscribeMethods = {
  accountSubscribe: 'account',
  programSubscribe: 'program',
  signatureSubscribe: 'signature',
} as const;
const unsubscribeMethods = new Set(['accountUnsubscribe', 'programUnsubscribe', 'signatureUnsubscribe']);

function address(v: unknown): string {
  try {
    if (typeof v !== 'string') throw new Error();
    return new PublicKey(v).toBase58();
  } catch {
    throw new InvalidParams('Invalid Request: Invalid pubkey provided');
  }
}

function encodingOf(config: Record<string, unknown>): string {
  const encoding = config.encoding ?? 'base58';
  if (typeof encoding !== 'string' || !ENCODINGS.has(encoding)) {
    throw new InvalidParams(
      `Invalid params: encoding ${String(encoding)} is not served by the loopback chain`,
    );
  }
  return encoding;
}

function commitmentOf(config: Record<string, unknown>): CommitmentLevel {
  const asked = config.commitment ?? 'finalized';
  if (typeof asked !== 'string' || !(COMMITMENTS as readonly string[]).includes(asked)) {
    throw new InvalidParams(`Invalid params: commitment ${String(asked)}`);
  }
  return asked as CommitmentLevel;
}

function signatureParam(v: unknown): string {
  if (typeof v !== 'string' || v.length < 64 || v.length > 90) {
    throw new InvalidParams('Invalid Request: Invalid signature provided');
  }
  return v;
}

function filtersOf(raw: unknown): Filter[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new InvalidParams('Invalid params: filters must be an array');
  return raw.map(
    (f: { dataSize?: unknown; memcmp?: { offset?: unknown; bytes?: unknown; encoding?: unknown } }) => {
      if (typeof f?.dataSize === 'number') return { dataSize: f.dataSize };
      const m = f?.memcmp;
      if (m && typeof m.offset === 'number' && typeof m.bytes === 'string') {
        const bytes = m.encoding === 'base64' ? Buffer.from(m.bytes, 'base64') : decodeBase58(m.bytes);
        return { memcmp: { offset: m.offset, bytes: new Uint8Array(bytes) } };
      }
      throw new InvalidParams('Invalid params: unsupported filter');
    },
  );
}

const passes = (filters: Filter[], data: Uint8Array) =>
  filters.every((f) =>
    'dataSize' in f
      ? data.length === f.dataSize
      : f.memcmp.offset + f.memcmp.bytes.length <= data.length &&
        f.memcmp.bytes.every((b, i) => data[f.memcmp.offset + i] === b),
  );

/** What a validator notifies for an account that no longer exists: the default account. */
const deletedAccount = (address: string): StoredAccount => ({
  address,
  lamports: 0n,
  owner: SYSTEM_PROGRAM,
  executable: false,
  data: new Uint8Array(),
});

function send(socket: WebSocket, message: unknown): void {
  if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

/** The subscriptions of every socket, and the notifications the ledger's writes make of them. */
class Subscriptions {
  private nextId = 1;
  private readonly byId = new Map<number, Subscription>();
  private readonly bySocket = new Map<WebSocket, Set<number>>();

  constructor(
    private readonly ledger: EmbeddedLedger,
    private readonly onNotify: (method: string) => void,
  ) {}

  opened(socket: WebSocket): void {
    this.bySocket.set(socket, new Set());
  }

  closed(socket: WebSocket): void {
    for (const id of this.bySocket.get(socket) ?? []) this.byId.delete(id);
    this.bySocket.delete(socket);
  }

  clear(): void {
    this.byId.clear();
  }

  /** A (un)subscription's answer; undefined when the method is not one of them. */
  call(socket: WebSocket, method: string, params: unknown[]): unknown {
    const kind = (subscribeMethods as Record<string, 'account' | 'program' | 'signature'>)[method];
    if (kind) return this.subscribe(socket, kind, params);
    if (unsubscribeMethods.has(method)) return this.unsubscribe(socket, params[0]);
    return undefined;
  }

  private subscribe(socket: WebSocket, kind: Subscription['target']['kind'], params: unknown[]): number {
    const config = (params[1] && typeof params[1] === 'object' ? params[1] : {}) as Record<string, unknown>;
    const target: Subscription['target'] =
      kind === 'account'
        ? { kind, address: address(params[0]) }
        : kind === 'program'
          ? { kind, programId: address(params[0]), filters: filtersOf(config.filters) }
          : { kind, signature: signatureParam(params[0]) };
    const sub: Subscription = {
      id: this.nextId++,
      socket,
      encoding: kind === 'signature' ? 'base64' : encodingOf(config),
      commitment: commitmentOf(config),
      target,
    };
    this.byId.set(sub.id, sub);
    this.bySocket.get(socket)?.add(sub.id);
    // Already there: told at once, after the answer that names the subscription.
    if (target.kind === 'signature') {
      setImmediate(() => {
        if (this.byId.has(sub.id)) this.notifySignature(sub, target.signature);
      });
    }
    return sub.id;
  }

  private unsubscribe(socket: WebSocket, id: unknown): true {
    const sub = typeof id === 'number' ? this.byId.get(id) : undefined;
    if (!sub || sub.socket !== socket) throw new InvalidParams('Invalid subscription id.');
    this.byId.delete(sub.id);
    this.bySocket.get(socket)?.delete(sub.id);
    return true;
  }

  private notify(sub: Subscription, method: string, slot: number, value: unknown): void {
    this.onNotify(method);
    send(sub.socket, {
      jsonrpc: '2.0',
      method,
      params: { result: { context: { slot }, value }, subscription: sub.id },
    });
  }

  /** A signature subscription is told once, when its transaction reaches the commitment, then dropped. */
  private notifySignature(sub: Subscription, signature: string): boolean {
    const record = this.ledger.transaction(signature, sub.commitment);
    if (!record) return false;
    this.byId.delete(sub.id);
    this.bySocket.get(sub.socket)?.delete(sub.id);
    this.notify(sub, 'signatureNotification', this.ledger.slotAt(sub.commitment), { err: record.err });
    return true;
  }

  /** Tells every subscription at this commitment what the write changed. */
  onWrite(commitment: CommitmentLevel, write: LedgerWrite): void {
    if (this.byId.size === 0) return;
    const accounts = new Map(write.addresses.map((a) => [a, this.ledger.getAccount(a, commitment)]));
    for (const sub of this.byId.values()) {
      if (sub.commitment !== commitment) continue;
      const t = sub.target;
      if (t.kind === 'signature') {
        if (t.signature === write.signature) this.notifySignature(sub, t.signature);
      } else if (t.kind === 'account') {
        if (!accounts.has(t.address)) continue;
        const account = accounts.get(t.address) ?? deletedAccount(t.address);
        this.notify(sub, 'accountNotification', write.slot, accountJson(account, sub.encoding));
      } else {
        this.notifyProgram(sub, t, write.slot, accounts);
      }
    }
  }

  private notifyProgram(
    sub: Subscription,
    t: { programId: string; filters: Filter[] },
    slot: number,
    accounts: Map<string, StoredAccount | null | undefined>,
  ): void {
    for (const [pubkey, account] of accounts) {
      if (!account || account.owner !== t.programId || !passes(t.filters, account.data)) continue;
      this.notify(sub, 'programNotification', slot, { pubkey, account: accountJson(account, sub.encoding) });
    }
  }
}

/** One JSON-RPC message from a socket, answered unless it is a notification. */
function answer(
  subscriptions: Subscriptions,
  options: PubSubOptions,
  socket: WebSocket,
  data: unknown,
): void {
  let request: { id?: unknown; method?: unknown; params?: unknown };
  try {
    request = JSON.parse(String(data));
  } catch {
    send(socket, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    return;
  }
  const id = request?.id ?? null;
  if (!request || typeof request !== 'object' || typeof request.method !== 'string') {
    send(socket, { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } });
    return;
  }
  options.onRequest(request.method);
  // A notification (no id, such as web3.js's keep-alive `ping`) gets no answer.
  if (request.id === undefined) return;
  try {
    const params = Array.isArray(request.params) ? request.params : [];
    const result = subscriptions.call(socket, request.method, params);
    if (result === undefined) {
      send(socket, {
        jsonrpc: '2.0',
        id,
        error: { code: -32601, message: `Method not found: ${request.method}` },
      });
    } else {
      send(socket, { jsonrpc: '2.0', id, result });
    }
  } catch (e) {
    const message = e instanceof InvalidParams ? e.message : `Internal error: ${(e as Error).message}`;
    send(socket, {
      jsonrpc: '2.0',
      id,
      error: { code: e instanceof InvalidParams ? -32602 : -32603, message },
    });
  }
}

export async function startPubSub(options: PubSubOptions): Promise<PubSub> {
  const { ledger } = options;
  const wss = await listenWebSocket(options.host, options.port);
  const subscriptions = new Subscriptions(ledger, options.onNotify);
  const stops = COMMITMENTS.map((commitment) =>
    ledger.onWrite((write) => subscriptions.onWrite(commitment, write), commitment),
  );
  wss.on('connection', (socket) => {
    subscriptions.opened(socket);
    socket.on('close', () => subscriptions.closed(socket));
    socket.on('error', () => {});
    socket.on('message', (data) => answer(subscriptions, options, socket, data));
  });
  const port = (wss.address() as { port: number }).port;
  return {
    port,
    close: async () => {
      for (const stop of stops) stop();
      for (const socket of wss.clients) socket.terminate();
      subscriptions.clear();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
