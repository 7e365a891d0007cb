// A Solana JSON-RPC endpoint that misbehaves on purpose: an HTTP proxy (and a websocket proxy beside it)
// in front of any JSON-RPC node that delays, drops, loses, refuses and rewinds what passes, each decision
// drawn from one seeded generator (random.ts), as the profile (profiles.ts) says. `faults_*` JSON-RPC
// methods on the same port are its control and are never faulted, even during an outage.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { websocketUrlFor } from '../../chain/rpc/feed.ts';
import { parseWireTransaction, signatureOf } from '../../chain/wire.ts';
import { decodeBase58 } from '../../vocabulary/base58.ts';
import { AnswerHistory, isRead, type JsonRpcRequest, minContextSlotOf } from './answers.ts';
import {
  answerControl,
  type Decision,
  type FaultControl,
  type OutageStatus,
  type OutageSwitch,
} from './control.ts';
import {
  type FaultProfile,
  type OutageMode,
  ProfileError,
  type ProfileName,
  resolveProfile,
} from './profiles.ts';
import { type Random, seededRandom } from './random.ts';
import { type FaultKind, StatsCounter } from './stats.ts';
import { startWebSocketSide, type WebSocketSide } from './websocket.ts';

export type { Decision, FaultControl, OutageStatus, OutageSwitch } from './control.ts';

export interface FaultProxyOptions {
  /** The JSON-RPC endpoint behind the proxy (http/https URL). */
  target: string;
  /** Its PubSub websocket; default derived from target as web3.js does (port + 1). */
  wsTarget?: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The proxy's websocket port; default port + 1 (with port 0: the HTTP port + 1 when free, else any). */
  wsPort?: number;
  /** A named profile or a whole one; `none` by default. */
  profile?: ProfileName | FaultProfile;
  /** Knobs changed over the profile. */
  changes?: Partial<Record<keyof FaultProfile, unknown>>;
  /** Seeds every decision; the same seed and the same request sequence give the same faults. */
  seed?: string | number;
  /** One line per outage start and end and per warp. */
  log?: (line: string) => void;
}

export interface FaultProxy {
  readonly url: string;
  readonly wsUrl: string;
  readonly control: FaultControl;
  close(): Promise<void>;
}

const DECISIONS_KEPT = 20_000;
const BODY_LIMIT = 8 * 1024 * 1024;
const UPSTREAM_TIMEOUT_MS = 60_000;
// JSON-RPC errors the proxy answers itself.
const INVALID_PARAMS = -32602;
const MIN_CONTEXT_SLOT_NOT_REACHED = -32016;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A connection ended as a crashed node or a middlebox ends it: a TCP reset where the platform can. */
function reset(res: ServerResponse): void {
  const socket = res.socket as (Socket & { resetAndDestroy?: () => void }) | null;
  if (!socket || socket.destroyed) return;
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The signature a cluster would answer for these bytes: the first signature, base58. */
function signatureOfSend(request: JsonRpcRequest): string | null {
  const params = Array.isArray(request.params) ? request.params : [];
  const [encoded, config] = params as [unknown, { encoding?: unknown } | undefined];
  if (typeof encoded !== 'string') return null;
  try {
    const bytes =
      config?.encoding === 'base64'
        ? new Uint8Array(Buffer.from(encoded, 'base64'))
        : new Uint8Array(decodeBase58(encoded));
    return signatureOf(parseWireTransaction(bytes));
  } catch {
    return null;
  }
}

async function listenOn(server: ReturnType<typeof createServer>, host: string, port: number) {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as { port: number }).port;
}

type OutageState = { mode: 'refuse' | 'hang'; source: 'timed' | 'control'; endsAt: number | null };

/**
 * Everything the proxy remembers between requests (the profile, the outage, the counters, the answers it
 * holds) and the timers that change it on their own: outages, websocket cuts, clock warps.
 */
class ProxyState {
  profileName: string;
  profile: FaultProfile;
  readonly stats = new StatsCounter();
  readonly history = new AnswerHistory();
  readonly decisions: Decision[] = [];
  /** Answers held by a `hang` outage or a lost reply: reset when their time is up, or at close. */
  readonly held = new Set<ServerResponse>();
  /** Requests on their way to the target: an outage that starts cuts them. */
  readonly inFlight = new Set<ServerResponse>();
  outage: OutageState | null = null;
  ws: WebSocketSide | null = null;
  closed = false;
  private sequence = 0;
  private readonly outageRandom: Random;
  private outageTimer: NodeJS.Timeout | null = null;
  private nextOutageTimer: NodeJS.Timeout | null = null;
  private cutTimer: NodeJS.Timeout | null = null;
  private warpTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly seed: string | number,
    readonly target: string,
    readonly log: (line: string) => void,
    options: Pick<FaultProxyOptions, 'profile' | 'changes'>,
  ) {
    this.profileName = typeof options.profile === 'string' ? options.profile : 'custom';
    this.profile = resolveProfile(options.profile ?? 'none', options.changes);
    if (options.changes && Object.keys(options.changes).length > 0) this.profileName += '+changes';
    this.outageRandom = this.random('outages');
  }

  random(stream: string): Random {
    return seededRandom(this.seed, stream);
  }

  /** A new request's decision, numbered in arrival order and counted. */
  decide(method: string): Decision {
    const decision: Decision = { n: ++this.sequence, method, faults: [], latencyMs: 0 };
    this.decisions.push(decision);
    // Trimmed in halves, not one by one: a long run makes hundreds of thousands of requests.
    if (this.decisions.length > 2 * DECISIONS_KEPT) {
      this.decisions.splice(0, this.decisions.length - DECISIONS_KEPT);
    }
    this.stats.request(method);
    return decision;
  }

  inject(kind: FaultKind, decision: Decision): void {
    decision.faults.push(kind);
    this.stats.fault(kind, decision.method);
  }

  /** Keeps the answer unsent until reset (by an outage's end, a timer or close). */
  hold(res: ServerResponse): void {
    this.held.add(res);
    res.on('close', () => this.held.delete(res));
  }

  // ---------------------------------------------------------------- the profile
  setProfile(base: ProfileName | null, changes: Partial<Record<keyof FaultProfile, unknown>>): FaultProfile {
    this.profile = resolveProfile(base ?? this.profile, changes);
    const changed = Object.keys(changes).length > 0;
    if (base !== null) this.profileName = changed ? `${base}+changes` : base;
    else if (changed && !this.profileName.endsWith('+changes')) this.profileName += '+changes';
    this.armTimers();
    if (!this.outage) this.scheduleOutage();
    return { ...this.profile };
  }

  // ---------------------------------------------------------------- outages
  outageStatus(): OutageStatus {
    const outage = this.outage;
    return {
      active: outage !== null,
      mode: outage?.mode ?? null,
      source: outage?.source ?? null,
      endsAt: outage?.endsAt ? new Date(outage.endsAt).toISOString() : null,
    };
  }

  switchOutage(action: OutageSwitch, mode: 'refuse' | 'hang' | undefined): OutageStatus {
    if (action === 'off') this.endOutage();
    else {
      const seconds = action === 'on' ? null : action.seconds;
      if (seconds !== null && (!Number.isFinite(seconds) || seconds <= 0)) {
        throw new ProfileError('outage: seconds must be above 0');
      }
      this.startOutage(mode ?? this.pickMode(this.profile.outageMode), 'control', seconds);
    }
    return this.outageStatus();
  }

  endOutage(): void {
    if (!this.outage) return;
    if (this.outageTimer) clearTimeout(this.outageTimer);
    this.outageTimer = null;
    const record = this.stats.outages.at(-1);
    if (record) record.endedAt = new Date().toISOString();
    this.log(`outage over (${this.outage.mode}, ${this.outage.source})`);
    this.outage = null;
    for (const res of [...this.held]) {
      this.held.delete(res);
      reset(res);
    }
    this.scheduleOutage();
  }

  startOutage(mode: 'refuse' | 'hang', source: 'timed' | 'control', seconds: number | null): void {
    if (this.outage) this.endOutage();
    if (this.nextOutageTimer) clearTimeout(this.nextOutageTimer);
    this.nextOutageTimer = null;
    this.outage = { mode, source, endsAt: seconds === null ? null : Date.now() + seconds * 1000 };
    this.stats.outages.push({ startedAt: new Date().toISOString(), endedAt: null, mode, source });
    this.log(`outage (${mode}, ${source}${seconds === null ? '' : `, ${seconds} s`})`);
    if (seconds !== null) {
      this.outageTimer = setTimeout(() => this.endOutage(), seconds * 1000);
      this.outageTimer.unref();
    }
    for (const res of [...this.inFlight]) {
      this.inFlight.delete(res);
      this.stats.fault('outage_cut_in_flight', 'http');
      reset(res);
    }
    this.ws?.closeAll();
  }

  pickMode(mode: OutageMode): 'refuse' | 'hang' {
    return mode === 'mixed' ? this.outageRandom.pick(['refuse', 'hang'] as const) : mode;
  }

  scheduleOutage(): void {
    if (this.nextOutageTimer) clearTimeout(this.nextOutageTimer);
    this.nextOutageTimer = null;
    const { outageEveryMinSeconds: min, outageEveryMaxSeconds: max } = this.profile;
    if (this.closed || this.outage || min === null || max === null) return;
    const gap = this.outageRandom.between(min, max);
    this.nextOutageTimer = setTimeout(() => {
      this.nextOutageTimer = null;
      if (this.outage) return;
      const seconds = this.outageRandom.between(this.profile.outageMinSeconds, this.profile.outageMaxSeconds);
      this.startOutage(this.pickMode(this.profile.outageMode), 'timed', seconds);
    }, gap * 1000);
    this.nextOutageTimer.unref();
  }

  // ---------------------------------------------------------------- warps and websocket cuts
  async warp(seconds: number): Promise<{ slot: number; unixTimestamp: number }> {
    if (!Number.isFinite(seconds) || seconds < 0) throw new ProfileError('warp: seconds must be ≥ 0');
    const res = await fetch(this.target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'dev_advanceClock', params: [seconds] }),
      signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
    });
    const json = (await res.json()) as {
      result?: { slot: number; unixTimestamp: number };
      error?: { message: string };
    };
    if (!json.result) throw new Error(`dev_advanceClock: ${json.error?.message ?? res.status}`);
    this.stats.fault('warp', 'dev_advanceClock');
    this.stats.warpedSeconds += seconds;
    this.log(`clock warped ${seconds} s: slot ${json.result.slot}, unix ${json.result.unixTimestamp}`);
    return json.result;
  }

  armTimers(): void {
    this.clearIntervals();
    if (this.closed) return;
    const profile = this.profile;
    if (profile.wsCutEverySeconds !== null) {
      this.cutTimer = setInterval(
        () => this.ws?.cutAll(this.profile.wsMuteShare),
        profile.wsCutEverySeconds * 1000,
      );
      this.cutTimer.unref();
    }
    if (profile.warpEverySeconds !== null && profile.warpSeconds > 0) {
      this.warpTimer = setInterval(() => {
        this.warp(this.profile.warpSeconds).catch((e: unknown) =>
          this.log(`timed warp failed: ${(e as Error).message}`),
        );
      }, profile.warpEverySeconds * 1000);
      this.warpTimer.unref();
    }
  }

  private clearIntervals(): void {
    if (this.cutTimer) clearInterval(this.cutTimer);
    if (this.warpTimer) clearInterval(this.warpTimer);
    this.cutTimer = null;
    this.warpTimer = null;
  }

  /** Stops every timer and resets every answer held or on its way; the sockets are the caller's. */
  stop(): void {
    this.closed = true;
    for (const timer of [this.outageTimer, this.nextOutageTimer]) if (timer) clearTimeout(timer);
    this.clearIntervals();
    for (const res of [...this.held, ...this.inFlight]) reset(res);
    this.held.clear();
    this.inFlight.clear();
  }
}

function controlOf(state: ProxyState): FaultControl {
  return {
    profile: () => ({ name: state.profileName, settings: { ...state.profile } }),
    setProfile: (base, changes = {}) => state.setProfile(base, changes),
    outage: (action, mode) => state.switchOutage(action, mode),
    outageStatus: () => state.outageStatus(),
    warp: (seconds) => state.warp(seconds),
    cutWebSockets: () => state.ws?.cutAll(state.profile.wsMuteShare) ?? 0,
    stats: () => state.stats.snapshot(state.ws?.open ?? 0),
    decisions: () => state.decisions.slice(-DECISIONS_KEPT).map((d) => ({ ...d, faults: [...d.faults] })),
  };
}

// ---------------------------------------------------------------- HTTP
function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function forward(target: string, req: IncomingMessage, body: Buffer) {
  const url = !req.url || req.url === '/' ? target : `${target}${req.url}`;
  const upstream = await fetch(url, {
    method: req.method ?? 'POST',
    headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
    ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body }),
    signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
  });
  return {
    status: upstream.status,
    contentType: upstream.headers.get('content-type') ?? 'application/json',
    text: await upstream.text(),
  };
}

/** One faultable request on its way: its decision, its draws and the profile it arrived under. */
interface Passage {
  state: ProxyState;
  req: IncomingMessage;
  res: ServerResponse;
  body: Buffer;
  /** The request when it is a single JSON-RPC call (not a batch, not unparseable). */
  single: JsonRpcRequest | null;
  decision: Decision;
  draw: Random;
  profile: FaultProfile;
}

function underOutage(state: ProxyState, res: ServerResponse, decision: Decision): void {
  if (state.outage?.mode === 'hang') {
    state.inject('outage_hung', decision);
    state.hold(res);
  } else {
    state.inject('outage_refused', decision);
    reset(res);
  }
}

async function answerControlRequest(control: FaultControl, single: JsonRpcRequest, res: ServerResponse) {
  try {
    json(res, 200, { jsonrpc: '2.0', id: single.id ?? null, result: await answerControl(control, single) });
  } catch (e) {
    json(res, 200, {
      jsonrpc: '2.0',
      id: single.id ?? null,
      error: { code: INVALID_PARAMS, message: (e as Error).message },
    });
  }
}

/** Reset, 429, 503 and latency, drawn in that order; true when the request has had its answer. */
async function faultedBeforeTarget({ state, res, single, decision, draw, profile: p }: Passage) {
  if (draw.chance(p.resetRate)) {
    state.inject('reset', decision);
    reset(res);
    return true;
  }
  if (draw.chance(p.http429Rate)) {
    state.inject('http_429', decision);
    const retryAfter = draw.between(p.retryAfterMinSeconds, p.retryAfterMaxSeconds);
    json(
      res,
      429,
      { jsonrpc: '2.0', id: single?.id ?? null, error: { code: 429, message: 'Too many requests' } },
      { 'retry-after': String(retryAfter) },
    );
    return true;
  }
  if (draw.chance(p.http503Rate)) {
    state.inject('http_503', decision);
    if (res.destroyed) return true;
    res.writeHead(503, { 'content-type': 'text/plain' });
    res.end('Service Unavailable');
    return true;
  }
  if (draw.chance(p.latencyRate)) {
    decision.latencyMs = draw.between(p.latencyMinMs, p.latencyMaxMs);
    state.inject('latency', decision);
    state.inFlight.add(res);
    await sleep(decision.latencyMs);
    state.inFlight.delete(res);
    if (res.destroyed) return true;
    if (state.outage) {
      underOutage(state, res, decision);
      return true;
    }
  }
  return false;
}

/** A dropped send or a stale read, answered by the proxy itself; true when it answered. */
function answeredWithoutTarget({ state, res, single, decision, draw, profile: p }: Passage): boolean {
  if (!single) return false;
  if (decision.method === 'sendTransaction' && draw.chance(p.dropSendRate)) {
    const signature = signatureOfSend(single);
    if (signature !== null) {
      state.inject('dropped_send', decision);
      json(res, 200, { jsonrpc: '2.0', id: single.id ?? null, result: signature });
      return true;
    }
  }
  if (!isRead(decision.method) || !draw.chance(p.staleReadRate)) return false;
  const old = state.history.behind(single, p.staleMinSlots, p.staleMaxSlots, draw);
  if (!old) return false;
  const min = minContextSlotOf(single);
  if (min !== null && old.slot < min) {
    state.inject('stale_min_context_slot', decision);
    json(res, 200, {
      jsonrpc: '2.0',
      id: single.id ?? null,
      error: {
        code: MIN_CONTEXT_SLOT_NOT_REACHED,
        message: 'Minimum context slot has not been reached',
        data: { contextSlot: old.slot },
      },
    });
    return true;
  }
  state.inject('stale_read', decision);
  json(res, 200, { jsonrpc: '2.0', id: single.id ?? null, result: old.result });
  return true;
}

/** Forwards to the target, remembers the answer for stale reads, then delivers it or loses it. */
async function forwardAndDeliver({ state, req, res, body, single, decision, draw, profile: p }: Passage) {
  const lost = draw.chance(p.lostReplyRate);
  const hangMs =
    lost && draw.chance(p.lostReplyHangShare) ? draw.between(p.lostReplyHangMinMs, p.lostReplyHangMaxMs) : 0;
  state.inFlight.add(res);
  let answer: Awaited<ReturnType<typeof forward>>;
  try {
    answer = await forward(state.target, req, body);
  } catch {
    // The target itself did not answer: the client meets a dead connection, as it would without us.
    return reset(res);
  } finally {
    state.inFlight.delete(res);
  }
  if (res.destroyed) return;
  if (single && answer.status === 200) {
    try {
      const reply = JSON.parse(answer.text) as { result?: unknown };
      if (reply && 'result' in reply) state.history.remember(single, reply.result);
    } catch {
      // not JSON: nothing to remember
    }
  }
  if (!lost) {
    res.writeHead(answer.status, { 'content-type': answer.contentType });
    res.end(answer.text);
  } else if (hangMs > 0) {
    state.inject('lost_reply_hang', decision);
    state.hold(res);
    setTimeout(() => {
      state.held.delete(res);
      reset(res);
    }, hangMs).unref();
  } else {
    state.inject('lost_reply_reset', decision);
    reset(res);
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return body.length === 0 ? undefined : JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

async function handle(state: ProxyState, control: FaultControl, req: IncomingMessage, res: ServerResponse) {
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch {
    reset(res);
    return;
  }
  const parsed = parseJson(body);
  const single =
    parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as JsonRpcRequest) : null;
  if (single && typeof single.method === 'string' && single.method.startsWith('faults_')) {
    return answerControlRequest(control, single, res);
  }
  const method =
    single && typeof single.method === 'string' ? single.method : Array.isArray(parsed) ? 'batch' : 'http';
  const decision = state.decide(method);
  if (state.outage) return underOutage(state, res, decision);
  const draw = state.random(`request:${decision.n}`);
  const passage: Passage = { state, req, res, body, single, decision, draw, profile: state.profile };
  if (await faultedBeforeTarget(passage)) return;
  if (answeredWithoutTarget(passage)) return;
  await forwardAndDeliver(passage);
}

/** The HTTP side on its port, then the websocket side on port + 1 (or any free port when that was a guess). */
async function listen(
  state: ProxyState,
  server: ReturnType<typeof createServer>,
  options: FaultProxyOptions,
  host: string,
): Promise<WebSocketSide> {
  const wsSide = (port: number) =>
    startWebSocketSide({
      host,
      port,
      target: options.wsTarget ?? websocketUrlFor(options.target),
      stats: state.stats,
      random: (stream) => state.random(stream),
      muteShare: () => state.profile.wsMuteShare,
      notificationDropRate: () => state.profile.wsNotificationDropRate,
      refusing: () => state.outage !== null,
    });
  try {
    const port = await listenOn(server, host, options.port ?? 0);
    return await wsSide(options.wsPort ?? port + 1).catch((e) => {
      if (options.port !== 0 || options.wsPort !== undefined) throw e;
      return wsSide(0);
    });
  } catch (e) {
    server.close();
    throw e;
  }
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const host = options.host ?? '127.0.0.1';
  const target = options.target.replace(/\/$/, '');
  const state = new ProxyState(options.seed ?? 1, target, options.log ?? (() => {}), options);
  const control = controlOf(state);
  const server = createServer((req, res) => {
    res.on('error', () => {});
    handle(state, control, req, res).catch(() => reset(res));
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  server.keepAliveTimeout = 30_000;
  const ws = await listen(state, server, options, host);
  state.ws = ws;
  const httpPort = (server.address() as { port: number }).port;
  state.armTimers();
  state.scheduleOutage();
  return {
    url: `http://${host}:${httpPort}`,
    wsUrl: `ws://${host}:${ws.port}`,
    control,
    close: async () => {
      if (state.closed) return;
      state.stop();
      await ws.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
