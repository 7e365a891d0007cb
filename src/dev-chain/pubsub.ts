// The loopback chain's websocket side: Solana PubSub JSON-RPC (account, program and signature
// subscriptions) as a validator serves it next to its HTTP port, notifications shaped as web3.js 1.x parses
// them (AccountNotificationResult, ProgramAccountNotificationResult, SignatureNotification), driven by the
// ledger's writes at each subscription's commitment (finalized when none is given): on the instant chain
// every commitment hears of a write as it lands; on a chain that keeps real time, confirmed and finalized a
// few and some thirty slots later, and a rollback is told at processed and confirmed with the accounts as
// restored. Like a validator, a program subscription is told only about accounts the program still owns
// after the write: an escrow that a transaction closed is not notified (see src/chain/rpc/feed.ts).

import { PublicKey, SystemProgram } from '@solana/web3.js';
import WebSocket, { WebSocketServer } from 'ws';
import { accountJson } from '../chain/embedded/json-rpc.ts';
import {
  COMMITMENTS,
  type CommitmentLevel,
  type EmbeddedLedger,
  type LedgerWrite,
} from '../chain/embedded/ledger.ts';
import type { StoredAccount } from '../chain/embedded/store.ts';
import { decodeBase58 } from '../vocabulary/base58.ts';

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

export async function startPubSub(options: PubSubOptions): Promise<PubSub> {
  const { ledger } = options;
  const wss = new WebSocketServer({ host: options.host, port: options.port });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', reject);
  }).catch((e) => {
    wss.close();
    throw e;
  });

  let nextId = 1;
  const subscriptions = new Map<number, Subscription>();
  const bySocket = new Map<WebSocket, Set<number>>();

  const send = (socket: WebSocket, message: unknown) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };
  const notify = (sub: Subscription, method: string, slot: number, value: unknown) => {
    options.onNotify(method);
    send(sub.socket, {
      jsonrpc: '2.0',
      method,
      params: { result: { context: { slot }, value }, subscription: sub.id },
    });
  };

  /** A signature subscription is told once, when its transaction reaches the commitment, then dropped. */
  const notifySignature = (sub: Subscription, signature: string) => {
    const record = ledger.transaction(signature, sub.commitment);
    if (!record) return false;
    subscriptions.delete(sub.id);
    bySocket.get(sub.socket)?.delete(sub.id);
    notify(sub, 'signatureNotification', ledger.slotAt(sub.commitment), { err: record.err });
    return true;
  };

  const onWrite = (commitment: CommitmentLevel, write: LedgerWrite) => {
    if (subscriptions.size === 0) return;
    const accounts = new Map(write.addresses.map((a) => [a, ledger.getAccount(a, commitment)]));
    for (const sub of subscriptions.values()) {
      if (sub.commitment !== commitment) continue;
      const t = sub.target;
      if (t.kind === 'signature') {
        if (t.signature === write.signature) notifySignature(sub, t.signature);
        continue;
      }
      if (t.kind === 'account') {
        if (!accounts.has(t.address)) continue;
        const account = accounts.get(t.address) ?? deletedAccount(t.address);
        notify(sub, 'accountNotification', write.slot, accountJson(account, sub.encoding));
        continue;
      }
      for (const [pubkey, account] of accounts) {
        if (!account || account.owner !== t.programId || !passes(t.filters, account.data)) continue;
        notify(sub, 'programNotification', write.slot, {
          pubkey,
          account: accountJson(account, sub.encoding),
        });
      }
    }
  };
  const stops = COMMITMENTS.map((commitment) =>
    ledger.onWrite((write) => onWrite(commitment, write), commitment),
  );
  const stopListening = () => {
    for (const stop of stops) stop();
  };

  const call = (socket: WebSocket, method: string, params: unknown[]): unknown => {
    const kind = (subscribeMethods as Record<string, 'account' | 'program' | 'signature'>)[method];
    if (kind) {
      const config = (params[1] && typeof params[1] === 'object' ? params[1] : {}) as Record<string, unknown>;
      const target: Subscription['target'] =
        kind === 'account'
          ? { kind, address: address(params[0]) }
          : kind === 'program'
            ? { kind, programId: address(params[0]), filters: filtersOf(config.filters) }
            : { kind, signature: signatureParam(params[0]) };
      const sub: Subscription = {
        id: nextId++,
        socket,
        encoding: kind === 'signature' ? 'base64' : encodingOf(config),
        commitment: commitmentOf(config),
        target,
      };
      subscriptions.set(sub.id, sub);
      bySocket.get(socket)?.add(sub.id);
      // Already there: told at once, after the answer that names the subscription.
      if (target.kind === 'signature') {
        setImmediate(() => {
          if (subscriptions.has(sub.id)) notifySignature(sub, target.signature);
        });
      }
      return sub.id;
    }
    if (unsubscribeMethods.has(method)) {
      const id = params[0];
      const sub = typeof id === 'number' ? subscriptions.get(id) : undefined;
      if (!sub || sub.socket !== socket) throw new InvalidParams('Invalid subscription id.');
      subscriptions.delete(sub.id);
      bySocket.get(socket)?.delete(sub.id);
      return true;
    }
    return undefined;
  };

  wss.on('connection', (socket) => {
    bySocket.set(socket, new Set());
    socket.on('close', () => {
      for (const id of bySocket.get(socket) ?? []) subscriptions.delete(id);
      bySocket.delete(socket);
    });
    socket.on('error', () => {});
    socket.on('message', (data) => {
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
        const result = call(socket, request.method, Array.isArray(request.params) ? request.params : []);
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
    });
  });

  const port = (wss.address() as { port: number }).port;
  return {
    port,
    close: async () => {
      stopListening();
      for (const socket of wss.clients) socket.terminate();
      subscriptions.clear();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
