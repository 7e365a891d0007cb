// The operations of the OpenAPI document as clients depend on them: generated clients name their methods
// after the operationIds, and send the operator token where the document's security says so.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { OPERATOR_SECURITY } from '../../src/http/routes/operator.ts';
import { startService, type TestService, WALLET } from '../support/service.ts';

const TOKEN = 'operator-token-operator-token';

/**
 * Renaming or dropping one of these breaks every generated client: add new operations freely, but change
 * this table only when a breaking change of the API is meant.
 */
const OPERATION_IDS: Record<string, string> = {
  'GET /v1/health': 'getHealth',
  'GET /v1/health/ready': 'getReadiness',
  'GET /v1/assets': 'listAssets',
  'GET /v1/assets/{asset}': 'getAsset',
  'GET /v1/pairs': 'listPairs',
  'GET /v1/prices': 'listPrices',
  'POST /v1/rfq': 'createRfq',
  'GET /v1/quotes/{quote_id}': 'getQuote',
  'POST /v1/quotes/{quote_id}/wallet-settlement': 'startWalletSettlement',
  'GET /v1/trades/{trade_id}': 'getTrade',
  'GET /v1/trades': 'listTrades',
  'GET /v1/trades/{trade_id}/events': 'listTradeEvents',
  'GET /v1/trades/{trade_id}/stream': 'streamTrade',
  'POST /v1/trades/{trade_id}/lock': 'submitLock',
  'POST /v1/trades/{trade_id}/abandon': 'abandonTrade',
  'POST /v1/trades/{trade_id}/redeem': 'redeemTrade',
  'POST /v1/trades/{trade_id}/refund': 'refundTrade',
  'POST /v1/trades/{trade_id}/resume': 'resumeTrade',
  'POST /v1/dev/airdrop': 'airdrop',
  'POST /v1/dev/rpc': 'devRpc',
  'GET /v1/runtime': 'getRuntime',
  'GET /v1/runtime/readiness': 'getRuntimeReadiness',
  'GET /v1/runtime/runs': 'listRuns',
  'GET /v1/runtime/trades': 'listRunTrades',
  'GET /v1/runtime/ledger': 'getLedger',
  'GET /v1/runtime/events': 'listRuntimeEvents',
  'GET /v1/runtime/events/stream': 'streamRuntimeEvents',
  'GET /v1/runtime/machines/trade': 'getTradeMachine',
  'GET /v1/viz': 'getVisualiser',
  'GET /metrics': 'getMetrics',
};

interface Operation {
  route: string;
  method: string;
  path: string;
  operationId?: string;
  security?: unknown;
}

let service: TestService;
let operations: Operation[];

beforeAll(async () => {
  // A configured token is required on every listener.
  service = await startService((doc) => {
    doc.http.operator_token = TOKEN;
  });
  const res = await service.app.inject('/v1/openapi.json');
  expect(res.statusCode).toBe(200);
  const paths = res.json().paths as Record<
    string,
    Record<string, Omit<Operation, 'route' | 'method' | 'path'>>
  >;
  operations = Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      route: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      operationId: op.operationId,
      security: op.security,
    })),
  );
});
afterAll(async () => service.dispose());

/** A request the route validates, so that what answers is its guard and not its schema. */
function probe(op: Operation, headers: Record<string, string> = {}, query = '') {
  const path = op.path
    .replace('{asset}', 'SOL')
    .replace('{pair}', 'SOL-USDC')
    .replace(/\{\w+\}/g, '0190c2a4-7b6e-7000-8000-000000000000');
  const url = query ? `${path}?${query}` : path;
  const payload =
    op.route === 'POST /v1/dev/airdrop'
      ? { wallet: WALLET, asset: 'SOL', amount: '1' }
      : op.method === 'PATCH'
        ? op.path.includes('/hedging/')
          ? { band: '1' }
          : { paused: false }
        : {};
  return service.app.inject({
    method: op.method as 'GET' | 'POST' | 'PATCH',
    url,
    headers,
    ...(op.method === 'POST' || op.method === 'PATCH' ? { payload } : {}),
  });
}

describe('the document’s operations', () => {
  test('keep the operationIds clients are generated with', () => {
    const documented = Object.fromEntries(operations.map((op) => [op.route, op.operationId]));
    for (const [route, operationId] of Object.entries(OPERATION_IDS)) {
      expect(documented[route], route).toBe(operationId);
    }
  });

  test('each has its own operationId', () => {
    const ids = operations.map((op) => op.operationId);
    expect(
      ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id)),
      ids.join(' '),
    ).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('declare the operator token exactly where the service demands it', async () => {
    for (const op of operations) {
      const res = await probe(op);
      if (res.statusCode === 401) {
        expect(op.security, `${op.route} answers 401 without the token`).toEqual(OPERATOR_SECURITY);
      } else {
        expect(op.security, `${op.route} answers ${res.statusCode} without the token`).toEqual([]);
      }
    }
  });

  test('either declared scheme lets an operator request through', async () => {
    const guarded = operations.filter((op) => Array.isArray(op.security) && op.security.length > 0);
    expect(guarded.length).toBeGreaterThan(0);
    // A live stream would never end under inject: its guard is covered above.
    for (const op of guarded.filter((o) => !o.path.endsWith('/stream'))) {
      const bearer = await probe(op, { authorization: `Bearer ${TOKEN}` });
      expect(bearer.statusCode, `${op.route} with the bearer token`).not.toBe(401);
      const query = await probe(op, {}, `access_token=${TOKEN}`);
      expect(query.statusCode, `${op.route} with ?access_token=`).not.toBe(401);
    }
  });
});
