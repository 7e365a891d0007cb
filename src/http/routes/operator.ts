// The operator token of SPEC §8: runtime, ledger, event and trade-list routes and the dev airdrop accept it
// as a bearer header or an access_token query parameter; it is required when listening beyond loopback.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import type { HttpDeps } from './index.ts';

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

export function requireOperator(deps: HttpDeps) {
  return async (request: FastifyRequest): Promise<void> => {
    const expected = deps.config.http.operatorToken;
    const presented = presentedToken(request);
    if (expected === null) return;
    if (presented === null) {
      if (deps.operatorTokenRequired) throw new ApiError('unauthorized');
      return;
    }
    if (!sameToken(presented, expected)) throw new ApiError('unauthorized', 'The operator token is wrong.');
  };
}
