// The operator token (docs/interface.md#guards): runtime, ledger, event and trade-list routes, /metrics and
// the dev airdrop accept it as a bearer header or an access_token query parameter; it is required when
// listening beyond loopback. An operator group calls requireOperator once: one hook guards all its routes.
import { timingSafeEqual } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { TypeBoxApp } from '../app.ts';
import { ApiError } from '../errors.ts';

/** What the guard needs to know, passed to each operator group as a plugin option. */
export interface OperatorAccess {
  /** http.operator_token; null: none configured, and the routes are open (only possible on loopback). */
  token: string | null;
  /** Listening beyond loopback: a request without the token is refused. */
  required: boolean;
}

function presentedToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.startsWith('Bearer ')) return header.slice(7).trim();
  const query = request.query as Record<string, unknown> | undefined;
  const token = query?.access_token;
  return typeof token === 'string' ? token : null;
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
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
  });
  app.addHook('preHandler', async (request) => {
    const expected = access.token;
    const presented = presentedToken(request);
    if (expected === null) return;
    if (presented === null) {
      if (access.required) throw new ApiError('unauthorized');
      return;
    }
    if (!sameToken(presented, expected)) throw new ApiError('unauthorized', 'The operator token is wrong.');
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
  'Required when the service listens beyond loopback (HOST is not a loopback address: it refuses to start ' +
  'there without http.operator_token). On a loopback listener the token may be left out, and with no token ' +
  'configured the routes are open; a token that is sent must still be the right one (401 otherwise).';

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
