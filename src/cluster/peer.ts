// Instances vouch for each other: a command forwarded to its trade's owner carries an HMAC-SHA256, under the
// cluster's shared secret, over what the owner must be able to trust — the method, the path and query, the
// body's digest, the time, a nonce, the forwarding run and the original client's address. Only a request
// whose signature checks out (constant time, inside the time window, its nonce unseen) has its client
// address believed, for the owner's rate limit; any other request is an ordinary client's, whatever headers
// it carries. The body is digested as it streams in and compared once it is read.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Marks a forwarded request with the run that forwarded it; a request is never forwarded twice. */
export const FORWARDED_BY = 'x-rfq-forwarded-by';

const HEADERS = {
  client: 'x-rfq-peer-client',
  time: 'x-rfq-peer-time',
  nonce: 'x-rfq-peer-nonce',
  body: 'x-rfq-peer-body',
  signature: 'x-rfq-peer-signature',
} as const;

/** Every header the signature covers or carries: a forward sets all of them, and never relays a caller's. */
export const PEER_HEADERS: readonly string[] = [FORWARDED_BY, ...Object.values(HEADERS)];

/**
 * How far a signature's time may be from the owner's clock either way. Instances on one network keep their
 * clocks within a second; a forward waits at most a minute for its answer, but its signature is checked when
 * it arrives, so the window only has to cover the trip and the skew.
 */
export const PEER_WINDOW_MS = 30_000;

/** At most this many nonces are remembered (a window's worth of forwards); past it, signatures are refused. */
const MAX_REMEMBERED_NONCES = 100_000;

const EMPTY_DIGEST = sha256Hex(Buffer.alloc(0));

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export interface PeerRequest {
  method: string;
  /** Origin-form: the path and query exactly as sent. */
  pathAndQuery: string;
  body: Buffer | null;
  /** The run forwarding it. */
  forwardedBy: string;
  /** The address the forwarding instance took the request from (its own trustProxy applied). */
  client: string;
}

interface Signed {
  method: string;
  pathAndQuery: string;
  bodyDigest: string;
  timeMs: number;
  nonce: string;
  forwardedBy: string;
  client: string;
}

/** One line per field: none of them can hold a newline (checked), so no two requests sign the same text. */
function canonical(s: Signed): string {
  return [
    'rfq-forward-v1',
    s.method,
    s.pathAndQuery,
    s.bodyDigest,
    s.timeMs,
    s.nonce,
    s.forwardedBy,
    s.client,
  ].join('\n');
}

/** One per app: signs this instance's forwards and checks the ones it receives. */
export class ClusterPeers {
  private readonly key: Buffer | null;
  /** What each request's headers proved (checked once, at its first question). */
  private readonly verdicts = new WeakMap<FastifyRequest, Verdict>();
  /** Nonces of accepted signatures, with when they leave the window (insertion order is time order). */
  private readonly nonces = new Map<string, number>();

  constructor(
    /** cluster.secret; null: forwards go unsigned and no request's client address is believed. */
    secret: string | null,
    private readonly nowMs: () => number = Date.now,
    private readonly log?: (message: string) => void,
  ) {
    this.key = secret === null ? null : Buffer.from(secret, 'utf8');
  }

  get signing(): boolean {
    return this.key !== null;
  }

  /** The headers a forward carries. Unsigned without a secret: the owner then counts it as from this instance. */
  headers(request: PeerRequest): Record<string, string> {
    const headers: Record<string, string> = { [FORWARDED_BY]: request.forwardedBy };
    if (this.key === null) return headers;
    const signed: Signed = {
      method: request.method,
      pathAndQuery: request.pathAndQuery,
      bodyDigest: request.body === null ? EMPTY_DIGEST : sha256Hex(request.body),
      timeMs: this.nowMs(),
      nonce: randomBytes(16).toString('hex'),
      forwardedBy: request.forwardedBy,
      client: request.client,
    };
    headers[HEADERS.client] = signed.client;
    headers[HEADERS.time] = String(signed.timeMs);
    headers[HEADERS.nonce] = signed.nonce;
    headers[HEADERS.body] = signed.bodyDigest;
    headers[HEADERS.signature] = this.mac(signed).toString('hex');
    return headers;
  }

  /**
   * The client a peer vouches for, or null: the request is then an ordinary client's. Answered from the
   * headers alone (the rate limit asks before the body is read); the body's digest is held to the signed one
   * once the body is in (install()).
   */
  vouchedClient(request: FastifyRequest): string | null {
    let verdict = this.verdicts.get(request);
    if (verdict === undefined) {
      verdict = this.check(request);
      this.verdicts.set(request, verdict);
      if (verdict.kind === 'refused') this.log?.(`forwarded request not trusted: ${verdict.why}`);
    }
    return verdict.kind === 'vouched' ? verdict.client : null;
  }

  /**
   * Hooks the app: the body of a vouched request is digested as it streams in, and a body other than the
   * signed one is refused (400) before validation — its client address was believed on the signature's word.
   * `tampered`: the error it is refused with (the API's validation_failed).
   */
  install(app: FastifyInstance, tampered: (message: string) => Error): void {
    if (this.key === null) return;
    app.addHook('preParsing', async (request, _reply, payload) => {
      if (this.vouchedClient(request) === null) return payload;
      const digest = new Digest();
      const verdict = this.verdicts.get(request) as Vouched;
      verdict.body = digest;
      // The bytes pass unchanged: Fastify's body limit and Content-Length checks count them as they come.
      payload.on('error', (error) => digest.destroy(error));
      return payload.pipe(digest);
    });
    app.addHook('preValidation', async (request) => {
      const verdict = this.verdicts.get(request);
      if (verdict?.kind !== 'vouched') return;
      const actual = verdict.body?.hex ?? EMPTY_DIGEST;
      if (!sameHex(actual, verdict.bodyDigest)) {
        throw tampered('The forwarded body is not the one its peer signed.');
      }
    });
  }

  private check(request: FastifyRequest): Verdict {
    const header = (name: string) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    const signature = header(HEADERS.signature);
    if (signature === undefined) return { kind: 'none' };
    if (this.key === null) return { kind: 'refused', why: 'this instance has no cluster secret' };
    const forwardedBy = header(FORWARDED_BY);
    const client = header(HEADERS.client);
    const time = header(HEADERS.time);
    const nonce = header(HEADERS.nonce);
    const bodyDigest = header(HEADERS.body);
    const raw = request.raw.url ?? '';
    if (
      forwardedBy === undefined ||
      !/^[A-Za-z0-9-]{1,64}$/.test(forwardedBy) ||
      client === undefined ||
      isIP(client) === 0 ||
      time === undefined ||
      !/^[0-9]{1,15}$/.test(time) ||
      nonce === undefined ||
      !/^[0-9a-f]{32}$/.test(nonce) ||
      bodyDigest === undefined ||
      !/^[0-9a-f]{64}$/.test(bodyDigest) ||
      !/^[0-9a-f]{64}$/.test(signature) ||
      !raw.startsWith('/') ||
      /[\r\n]/.test(raw)
    ) {
      return { kind: 'refused', why: 'malformed peer headers' };
    }
    const timeMs = Number(time);
    const now = this.nowMs();
    if (Math.abs(now - timeMs) > PEER_WINDOW_MS)
      return { kind: 'refused', why: 'signature outside the window' };
    const expected = this.mac({
      method: request.method,
      pathAndQuery: raw,
      bodyDigest,
      timeMs,
      nonce,
      forwardedBy,
      client,
    });
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
      return { kind: 'refused', why: 'wrong signature' };
    }
    if (!this.remember(nonce, timeMs + PEER_WINDOW_MS, now)) {
      return { kind: 'refused', why: 'nonce seen before (a replay)' };
    }
    return { kind: 'vouched', client, bodyDigest, body: null };
  }

  /** false: already seen (a replay), or too many to remember. */
  private remember(nonce: string, expiresAtMs: number, now: number): boolean {
    for (const [seen, expires] of this.nonces) {
      if (expires > now) break;
      this.nonces.delete(seen);
    }
    if (this.nonces.has(nonce) || this.nonces.size >= MAX_REMEMBERED_NONCES) return false;
    // A nonce is kept until its signature's time leaves the window: after that the time check refuses it.
    this.nonces.set(nonce, Math.max(expiresAtMs, now + 1));
    return true;
  }

  private mac(signed: Signed): Buffer {
    return createHmac('sha256', this.key as Buffer)
      .update(canonical(signed))
      .digest();
  }
}

type Verdict = { kind: 'none' } | { kind: 'refused'; why: string } | Vouched;

interface Vouched {
  kind: 'vouched';
  client: string;
  bodyDigest: string;
  /** The digest of the body as it streamed in; null until it is read (a request without a body). */
  body: Digest | null;
}

function sameHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Passes the bytes through and digests them; hex is set once they all passed. */
class Digest extends Transform {
  private readonly hash = createHash('sha256');
  hex: string | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    this.hex = this.hash.digest('hex');
    done();
  }
}
