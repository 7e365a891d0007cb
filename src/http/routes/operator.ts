// The operator token (docs/interface.md#guards): runtime, ledger, event and trade-list routes, /metrics and
// the dev airdrop accept it as a bearer header or an access_token query parameter. When one is configured it
// is required on every listener; when none is, the routes answer only a loopback client that names a
// loopback host (a page on another site that rebinds its name to 127.0.0.1, or a reverse proxy on the same
// host, is not let in). No operator route answers a browser across origins: each is marked so the CORS
// plugin adds nothing to it, and preflights for them are refused (app.ts asks operatorPreflight).
// An operator group calls requireOperator once: one hook guards all its routes.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import { ApiError } from '../errors.ts';
import type { TypeBoxApp } from '../typebox-app.ts';

/** What the guard needs to know, passed to each operator group as a plugin option. */
export interface OperatorAccess {
  /** http.operator_token; null: none configured, and the routes answer loopback only. */
  token: string | null;
  /** http.operator_tokens: named tokens, each accepted like `token` (which is named "operator"). */
  tokens?: readonly { name: string; token: string }[];
  /** Where every operator route is recorded as it is added (the CORS preflight asks it). */
  routes: OperatorRoutes;
}

/** Who an operator request came from: its token's name ("operator" for http.operator_token). */
const operators = new WeakMap<FastifyRequest, string>();

/** The name of the token a request passed the guard with; "loopback" where no token is configured. */
export function operatorOf(request: FastifyRequest): string {
  return operators.get(request) ?? 'loopback';
}

/** The operator routes by method and path pattern, to tell a preflight for one before any route runs. */
export class OperatorRoutes {
  private readonly patterns: { method: string; path: RegExp }[] = [];

  add(method: string, url: string): void {
    const pattern = url
      .replace(/\/+$/, '')
      .split('/')
      .map((segment) =>
        segment.startsWith(':')
          ? '[^/]+'
          : segment === '*'
            ? '.*'
            : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    this.patterns.push({ method: method.toUpperCase(), path: new RegExp(`^${pattern}/?$`) });
  }

  /** Whether `method path` is an operator route's; a path that does not decode counts as one (refused). */
  matches(method: string, rawUrl: string): boolean {
    let path: string;
    try {
      path = decodeURIComponent(rawUrl.split('?')[0] ?? '');
    } catch {
      return true;
    }
    const wanted = method.toUpperCase();
    return this.patterns.some((p) => (p.method === wanted || wanted === '') && p.path.test(path));
  }
}

function presentedToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.startsWith('Bearer ')) return header.slice(7).trim();
  const query = request.query as Record<string, unknown> | undefined;
  const token = query?.access_token;
  return typeof token === 'string' ? token : null;
}

const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest();

/** Loopback by address: 127.0.0.0/8, ::1, and IPv4 loopback mapped into IPv6. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(plain) === 4) return plain.startsWith('127.');
  return plain === '::1';
}

/** The Host header names this machine's loopback (a name, not an address, can be rebound by DNS). */
function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:[0-9]*$/, '');
  return name.toLowerCase() === 'localhost' || isLoopbackAddress(name);
}

/**
 * Guards every route of the calling plugin (and of the plugins it registers) with the operator token, as
 * one preHandler hook: it runs after validation, so a malformed request is a 400 whatever its token. Each
 * of those routes must declare `security: OPERATOR_SECURITY`; one that does not is refused when it is
 * added, so the document always says where the token is demanded.
 */
export function requireOperator(app: TypeBoxApp, access: OperatorAccess): void {
  app.addHook('onRoute', (route) => {
    if (!isDeepStrictEqual(route.schema?.security, OPERATOR_SECURITY)) {
      throw new Error(
        `${route.method} ${route.url} is an operator route: declare security: OPERATOR_SECURITY`,
      );
    }
    // No CORS headers on an operator answer: a page on another origin cannot read it.
    route.config = { ...(route.config as object), cors: false } as typeof route.config;
    for (const method of [route.method].flat()) access.routes.add(method, route.url);
  });
  // Compared as digests: equal lengths whatever was sent, so the time taken tells nothing of the token.
  const named = [
    ...(access.token === null ? [] : [{ name: 'operator', token: access.token }]),
    ...(access.tokens ?? []),
  ].map(({ name, token }) => ({ name, digest: digest(token) }));
  app.addHook('preHandler', async (request) => {
    if (named.length === 0) {
      if (!isLoopbackAddress(request.ip) || !isLoopbackHost(request.headers.host)) {
        throw new ApiError(
          'unauthorized',
          'No operator token is configured: operator routes answer only a loopback client that names a ' +
            'loopback host. Configure http.operator_token to reach them from elsewhere.',
        );
      }
      return;
    }
    const presented = presentedToken(request);
    if (presented === null) throw new ApiError('unauthorized');
    // Every token compared, whichever matches: the time taken tells nothing of which, or of any.
    const sent = digest(presented);
    let holder: string | null = null;
    for (const { name, digest: expected } of named) {
      if (timingSafeEqual(sent, expected) && holder === null) holder = name;
    }
    if (holder === null) throw new ApiError('unauthorized', 'The operator token is wrong.');
    operators.set(request, holder);
  });
}

/** Browsers cannot set headers on EventSource or a page load: the token may come as a query parameter. */
export const AccessTokenQuery = {
  access_token: Type.Optional(
    Type.String({ description: 'the operator token, where an Authorization header cannot be set' }),
  ),
};
/** The query of an operator route that takes no other parameter. */
export const OperatorQuery = Type.Object(AccessTokenQuery);

/**
 * The OpenAPI side of requireOperator, beside it so the two cannot drift apart: the two ways to present the
 * token, as security schemes (app.ts registers them under components.securitySchemes).
 */
const WHEN_REQUIRED =
  'Required whenever http.operator_token is configured, on every listener (the service refuses to listen ' +
  'beyond loopback without one). With no token configured the routes answer only a loopback client whose ' +
  'Host header names loopback (localhost, 127.0.0.1, [::1]); anything else is a 401. Operator routes send no ' +
  'CORS headers: a browser page on another origin cannot read them.';

export const OPERATOR_SECURITY_SCHEMES = {
  operatorBearer: {
    type: 'http',
    scheme: 'bearer',
    description: `The operator token (http.operator_token) as \`Authorization: Bearer <token>\`. ${WHEN_REQUIRED}`,
  },
  operatorQueryToken: {
    type: 'apiKey',
    in: 'query',
    name: 'access_token',
    description:
      'The operator token as `?access_token=<token>`, for clients that cannot set a header (EventSource, a ' +
      `page opened in a browser). The Authorization header wins when both are sent. ${WHEN_REQUIRED}`,
  },
} as const;

type SecurityRequirement = Partial<Record<keyof typeof OPERATOR_SECURITY_SCHEMES, readonly string[]>>;

/** An operator route's security requirement: either scheme will do. */
export const OPERATOR_SECURITY: readonly SecurityRequirement[] = [
  { operatorBearer: [] },
  { operatorQueryToken: [] },
];

/** A public route's: none, declared explicitly so that clients and linters need not guess. */
export const PUBLIC_SECURITY: readonly SecurityRequirement[] = [];
