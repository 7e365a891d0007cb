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
  type FaultProfile,
  type OutageMode,
  PROFILE_NAMES,
  ProfileError,
  type ProfileName,
  resolveProfile,
} from './profiles.ts';
import { type Random, seededRandom } from './random.ts';
import { type FaultKind, type FaultStats, StatsCounter } from './stats.ts';
import { startWebSocketSide, type WebSocketSide } from './websocket.ts';

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

/** One request's fate, in arrival order (n from 1). */
export interface Decision {
  n: number;
  method: string;
  faults: FaultKind[];
  latencyMs: number;
}

export interface OutageStatus {
  active: boolean;
  mode: 'refuse' | 'hang' | null;
  source: 'timed' | 'control' | null;
  /** When it ends by itself; null while it lasts until switched off. */
  endsAt: string | null;
}

export type OutageSwitch = 'on' | 'off' | { seconds: number };

export interface FaultControl {
  /** The profile in force (the named base it came from, or `custom`). */
  profile(): { name: string; settings: FaultProfile };
  /** A new profile from now on: a name, or changes over the current one (base omitted). */
  setProfile(base: ProfileName | null, changes?: Partial<Record<keyof FaultProfile, unknown>>): FaultProfile;
  /** Starts an outage (until `off`, or for seconds) or ends the current one. */
  outage(action: OutageSwitch, mode?: 'refuse' | 'hang'): OutageStatus;
  outageStatus(): OutageStatus;
  /** Moves the target's clock (its dev_advanceClock: the loopback chain only). */
  warp(seconds: number): Promise<{ slot: number; unixTimestamp: number }>;
  /** Cuts (or mutes) every websocket now, as the timer does; answers how many were cut. */
  cutWebSockets(): number;
  stats(): FaultStats;
  /** The last decisions (up to 20,000), oldest first. */
  decisions(): Decision[];
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

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const host = options.host ?? '127.0.0.1';
  const seed = options.seed ?? 1;
  const target = options.target.replace(/\/$/, '');
  const wsTarget = options.wsTarget ?? websocketUrlFor(options.target);
  const log = options.log ?? (() => {});
  let profileName: string = typeof options.profile === 'string' ? options.profile : 'custom';
  let profile = resolveProfile(options.profile ?? 'none', options.changes);
  if (options.changes && Object.keys(options.changes).length > 0) profileName = `${profileName}+changes`;

  const stats = new StatsCounter();
  const history = new AnswerHistory();
  const decisions: Decision[] = [];
  const random = (stream: string): Random => seededRandom(seed, stream);
  const outageRandom = random('outages');
  let sequence = 0;
  let closed = false;

  // ---------------------------------------------------------------- outages
  let outage: { mode: 'refuse' | 'hang'; source: 'timed' | 'control'; endsAt: number | null } | null = null;
  let outageTimer: NodeJS.Timeout | null = null;
  let nextOutageTimer: NodeJS.Timeout | null = null;
  /** Answers held by a `hang` outage or a lost reply: reset when their time is up, or at close. */
  const held = new Set<ServerResponse>();
  /** Requests on their way to the target: an outage that starts cuts them. */
  const inFlight = new Set<ServerResponse>();

  const outageStatus = (): OutageStatus => ({
    active: outage !== null,
    mode: outage?.mode ?? null,
    source: outage?.source ?? null,
    endsAt: outage?.endsAt ? new Date(outage.endsAt).toISOString() : null,
  });

  const endOutage = () => {
    if (!outage) return;
    if (outageTimer) clearTimeout(outageTimer);
    outageTimer = null;
    const record = stats.outages.at(-1);
    if (record) record.endedAt = new Date().toISOString();
    log(`outage over (${outage.mode}, ${outage.source})`);
    outage = null;
    for (const res of [...held]) {
      held.delete(res);
      reset(res);
    }
    scheduleOutage();
  };

  const startOutage = (mode: 'refuse' | 'hang', source: 'timed' | 'control', seconds: number | null) => {
    if (outage) endOutage();
    if (nextOutageTimer) clearTimeout(nextOutageTimer);
    nextOutageTimer = null;
    outage = { mode, source, endsAt: seconds === null ? null : Date.now() + seconds * 1000 };
    stats.outages.push({ startedAt: new Date().toISOString(), endedAt: null, mode, source });
    log(`outage (${mode}, ${source}${seconds === null ? '' : `, ${seconds} s`})`);
    if (seconds !== null) {
      outageTimer = setTimeout(endOutage, seconds * 1000);
      outageTimer.unref();
    }
    for (const res of [...inFlight]) {
      inFlight.delete(res);
      stats.fault('outage_cut_in_flight', 'http');
      reset(res);
    }
    ws?.closeAll();
  };

  const pickMode = (mode: OutageMode): 'refuse' | 'hang' =>
    mode === 'mixed' ? outageRandom.pick(['refuse', 'hang'] as const) : mode;

  function scheduleOutage() {
    if (nextOutageTimer) clearTimeout(nextOutageTimer);
    nextOutageTimer = null;
    const { outageEveryMinSeconds: min, outageEveryMaxSeconds: max } = profile;
    if (closed || outage || min === null || max === null) return;
    const gap = outageRandom.between(min, max);
    nextOutageTimer = setTimeout(() => {
      nextOutageTimer = null;
      if (outage) return;
      const seconds = outageRandom.between(profile.outageMinSeconds, profile.outageMaxSeconds);
      startOutage(pickMode(profile.outageMode), 'timed', seconds);
    }, gap * 1000);
    nextOutageTimer.unref();
  }

  // ---------------------------------------------------------------- warps and websocket cuts
  const warp = async (seconds: number) => {
    if (!Number.isFinite(seconds) || seconds < 0) throw new ProfileError('warp: seconds must be ≥ 0');
    const res = await fetch(target, {
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
    stats.fault('warp', 'dev_advanceClock');
    stats.warpedSeconds += seconds;
    log(`clock warped ${seconds} s: slot ${json.result.slot}, unix ${json.result.unixTimestamp}`);
    return json.result;
  };

  let cutTimer: NodeJS.Timeout | null = null;
  let warpTimer: NodeJS.Timeout | null = null;
  const armTimers = () => {
    if (cutTimer) clearInterval(cutTimer);
    if (warpTimer) clearInterval(warpTimer);
    cutTimer = null;
    warpTimer = null;
    if (closed) return;
    if (profile.wsCutEverySeconds !== null) {
      cutTimer = setInterval(() => ws?.cutAll(profile.wsMuteShare), profile.wsCutEverySeconds * 1000);
      cutTimer.unref();
    }
    if (profile.warpEverySeconds !== null && profile.warpSeconds > 0) {
      warpTimer = setInterval(() => {
        warp(profile.warpSeconds).catch((e: unknown) => log(`timed warp failed: ${(e as Error).message}`));
      }, profile.warpEverySeconds * 1000);
      warpTimer.unref();
    }
  };

  // ---------------------------------------------------------------- the control
  const control: FaultControl = {
    profile: () => ({ name: profileName, settings: { ...profile } }),
    setProfile: (base, changes = {}) => {
      profile = resolveProfile(base ?? profile, changes);
      const changed = Object.keys(changes).length > 0;
      if (base !== null) profileName = changed ? `${base}+changes` : base;
      else if (changed && !profileName.endsWith('+changes')) profileName = `${profileName}+changes`;
      armTimers();
      if (!outage) scheduleOutage();
      return { ...profile };
    },
    outage: (action, mode) => {
      if (action === 'off') endOutage();
      else {
        const seconds = action === 'on' ? null : action.seconds;
        if (seconds !== null && (!Number.isFinite(seconds) || seconds <= 0)) {
          throw new ProfileError('outage: seconds must be above 0');
        }
        startOutage(mode ?? pickMode(profile.outageMode), 'control', seconds);
      }
      return outageStatus();
    },
    outageStatus,
    warp,
    cutWebSockets: () => ws?.cutAll(profile.wsMuteShare) ?? 0,
    stats: () => stats.snapshot(ws?.open ?? 0),
    decisions: () => decisions.slice(-DECISIONS_KEPT).map((d) => ({ ...d, faults: [...d.faults] })),
  };

  const answerControl = async (request: JsonRpcRequest): Promise<unknown> => {
    const params = Array.isArray(request.params) ? request.params : [];
    switch (request.method) {
      case 'faults_outage': {
        const [action, mode] = params as [unknown, unknown];
        if (mode !== undefined && mode !== 'refuse' && mode !== 'hang') {
          throw new ProfileError('faults_outage: mode is refuse or hang');
        }
        if (action === 'on' || action === 'off') return control.outage(action, mode);
        if (action === undefined) return control.outageStatus();
        const seconds = (action as { seconds?: unknown } | null)?.seconds;
        const inner = (action as { mode?: unknown } | null)?.mode ?? mode;
        if (typeof seconds !== 'number') {
          throw new ProfileError("faults_outage: params ['on' | 'off' | {seconds, mode?}, mode?]");
        }
        if (inner !== undefined && inner !== 'refuse' && inner !== 'hang') {
          throw new ProfileError('faults_outage: mode is refuse or hang');
        }
        return control.outage({ seconds }, inner);
      }
      case 'faults_profile': {
        const [first, second] = params as [unknown, unknown];
        if (first === undefined) return control.profile();
        const base = typeof first === 'string' ? (first as ProfileName) : null;
        const changes = (typeof first === 'string' ? second : first) ?? {};
        if (typeof changes !== 'object' || Array.isArray(changes)) {
          throw new ProfileError(
            `faults_profile: params [name?, {knob: value}?] (${PROFILE_NAMES.join(', ')})`,
          );
        }
        control.setProfile(base, changes as Partial<Record<keyof FaultProfile, unknown>>);
        return control.profile();
      }
      case 'faults_stats':
        return control.stats();
      case 'faults_warp': {
        const [seconds] = params as [unknown];
        if (typeof seconds !== 'number') throw new ProfileError('faults_warp: params [seconds]');
        return control.warp(seconds);
      }
      case 'faults_cut':
        return { cut: control.cutWebSockets() };
      default:
        throw new ProfileError(
          `unknown control ${String(request.method)} (faults_outage, faults_profile, faults_stats, faults_warp, faults_cut)`,
        );
    }
  };

  // ---------------------------------------------------------------- HTTP
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  const forward = async (req: IncomingMessage, body: Buffer) => {
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
  };

  const underOutage = (res: ServerResponse, decision: Decision) => {
    if (outage?.mode === 'hang') {
      decision.faults.push('outage_hung');
      stats.fault('outage_hung', decision.method);
      held.add(res);
      res.on('close', () => held.delete(res));
    } else {
      decision.faults.push('outage_refused');
      stats.fault('outage_refused', decision.method);
      reset(res);
    }
  };

  const inject = (kind: FaultKind, decision: Decision) => {
    decision.faults.push(kind);
    stats.fault(kind, decision.method);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch {
      reset(res);
      return;
    }
    let parsed: unknown;
    try {
      parsed = body.length === 0 ? undefined : JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const single =
      parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as JsonRpcRequest) : null;
    if (single && typeof single.method === 'string' && single.method.startsWith('faults_')) {
      try {
        json(res, 200, { jsonrpc: '2.0', id: single.id ?? null, result: await answerControl(single) });
      } catch (e) {
        json(res, 200, {
          jsonrpc: '2.0',
          id: single.id ?? null,
          error: { code: INVALID_PARAMS, message: (e as Error).message },
        });
      }
      return;
    }

    const method =
      single && typeof single.method === 'string' ? single.method : Array.isArray(parsed) ? 'batch' : 'http';
    const decision: Decision = { n: ++sequence, method, faults: [], latencyMs: 0 };
    decisions.push(decision);
    // Trimmed in halves, not one by one: a long run makes hundreds of thousands of requests.
    if (decisions.length > 2 * DECISIONS_KEPT) decisions.splice(0, decisions.length - DECISIONS_KEPT);
    stats.request(method);
    if (outage) return underOutage(res, decision);

    const draw = random(`request:${decision.n}`);
    const p = profile;
    if (draw.chance(p.resetRate)) {
      inject('reset', decision);
      return reset(res);
    }
    if (draw.chance(p.http429Rate)) {
      inject('http_429', decision);
      const retryAfter = draw.between(p.retryAfterMinSeconds, p.retryAfterMaxSeconds);
      return json(
        res,
        429,
        { jsonrpc: '2.0', id: single?.id ?? null, error: { code: 429, message: 'Too many requests' } },
        { 'retry-after': String(retryAfter) },
      );
    }
    if (draw.chance(p.http503Rate)) {
      inject('http_503', decision);
      if (res.destroyed) return;
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('Service Unavailable');
      return;
    }
    if (draw.chance(p.latencyRate)) {
      decision.latencyMs = draw.between(p.latencyMinMs, p.latencyMaxMs);
      inject('latency', decision);
      inFlight.add(res);
      await sleep(decision.latencyMs);
      inFlight.delete(res);
      if (res.destroyed) return;
      if (outage) return underOutage(res, decision);
    }
    if (single && method === 'sendTransaction' && draw.chance(p.dropSendRate)) {
      const signature = signatureOfSend(single);
      if (signature !== null) {
        inject('dropped_send', decision);
        return json(res, 200, { jsonrpc: '2.0', id: single.id ?? null, result: signature });
      }
    }
    if (single && isRead(method) && draw.chance(p.staleReadRate)) {
      const old = history.behind(single, p.staleMinSlots, p.staleMaxSlots, draw);
      if (old) {
        const min = minContextSlotOf(single);
        if (min !== null && old.slot < min) {
          inject('stale_min_context_slot', decision);
          return json(res, 200, {
            jsonrpc: '2.0',
            id: single.id ?? null,
            error: {
              code: MIN_CONTEXT_SLOT_NOT_REACHED,
              message: 'Minimum context slot has not been reached',
              data: { contextSlot: old.slot },
            },
          });
        }
        inject('stale_read', decision);
        return json(res, 200, { jsonrpc: '2.0', id: single.id ?? null, result: old.result });
      }
    }
    const lost = draw.chance(p.lostReplyRate);
    const hangMs =
      lost && draw.chance(p.lostReplyHangShare)
        ? draw.between(p.lostReplyHangMinMs, p.lostReplyHangMaxMs)
        : 0;

    inFlight.add(res);
    let answer: Awaited<ReturnType<typeof forward>>;
    try {
      answer = await forward(req, body);
    } catch {
      // The target itself did not answer: the client meets a dead connection, as it would without us.
      return reset(res);
    } finally {
      inFlight.delete(res);
    }
    if (res.destroyed) return;
    if (single && answer.status === 200) {
      try {
        const reply = JSON.parse(answer.text) as { result?: unknown };
        if (reply && 'result' in reply) history.remember(single, reply.result);
      } catch {
        // not JSON: nothing to remember
      }
    }
    if (lost) {
      if (hangMs > 0) {
        inject('lost_reply_hang', decision);
        held.add(res);
        res.on('close', () => held.delete(res));
        setTimeout(() => {
          held.delete(res);
          reset(res);
        }, hangMs).unref();
      } else {
        inject('lost_reply_reset', decision);
        reset(res);
      }
      return;
    }
    res.writeHead(answer.status, { 'content-type': answer.contentType });
    res.end(answer.text);
  };

  const server = createServer((req, res) => {
    res.on('error', () => {});
    handle(req, res).catch(() => reset(res));
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  server.keepAliveTimeout = 30_000;

  let ws: WebSocketSide | null = null;
  const wsSide = (port: number) =>
    startWebSocketSide({
      host,
      port,
      target: wsTarget,
      stats,
      random,
      muteShare: () => profile.wsMuteShare,
      notificationDropRate: () => profile.wsNotificationDropRate,
      refusing: () => outage !== null,
    });
  try {
    const port = await listenOn(server, host, options.port ?? 0);
    ws = await wsSide(options.wsPort ?? port + 1).catch((e) => {
      if (options.port !== 0 || options.wsPort !== undefined) throw e;
      return wsSide(0);
    });
  } catch (e) {
    server.close();
    throw e;
  }
  const httpPort = (server.address() as { port: number }).port;
  armTimers();
  scheduleOutage();

  return {
    url: `http://${host}:${httpPort}`,
    wsUrl: `ws://${host}:${ws.port}`,
    control,
    close: async () => {
      if (closed) return;
      closed = true;
      for (const timer of [outageTimer, nextOutageTimer]) if (timer) clearTimeout(timer);
      if (cutTimer) clearInterval(cutTimer);
      if (warpTimer) clearInterval(warpTimer);
      for (const res of [...held, ...inFlight]) reset(res);
      held.clear();
      inFlight.clear();
      await ws?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
