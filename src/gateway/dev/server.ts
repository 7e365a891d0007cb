// The dev Gateway's HTTP API: Circle's routes and JSON shapes (wire.ts), so the client of Circle's API
// (circle-api.ts) is its client too. Bodies are validated against the same schemas the client checks answers
// with; a refusal is a 400 with Circle's { message }, an unknown transfer a 404, never a 500 for bad input.

import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { toBytes, toHex } from 'viem';
import { transferSpecHash } from '../formats/index.ts';
import {
  BalancesRequestJson,
  type BalancesResponseWire,
  displayUsdc,
  EstimateRequestJson,
  type EstimateResponseWire,
  intentFromWire,
  intentToWire,
  specFromWire,
  TransferRequestJson,
  type TransferResponseWire,
  type TransferStateWire,
} from '../wire.ts';
import type { DevGateway } from './gateway.ts';
import { DevGatewayRefusal } from './gateway.ts';
import type { StoredTransfer } from './store.ts';

export interface DevGatewayServer {
  /** http://127.0.0.1:PORT: the base URL circle-api.ts takes. */
  readonly baseUrl: string;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

function parsed<T extends TSchema>(schema: T, body: unknown, reply: FastifyReply) {
  if (Value.Check(schema, body)) return body;
  const [first] = Value.Errors(schema, body);
  void reply
    .code(400)
    .send({ message: `invalid request: ${first ? `${first.instancePath} ${first.message}` : 'unreadable'}` });
  return undefined;
}

const transferState = (t: StoredTransfer): TransferStateWire => ({
  id: t.id,
  status: t.status,
  burnTxHash: t.burnTxHash,
});

/** Turns a refusal into Circle's 400; anything else goes on to Fastify (a 500: a fault of ours, not the client's). */
async function answer<T>(reply: FastifyReply, job: () => Promise<T>): Promise<T | undefined> {
  try {
    return await job();
  } catch (e) {
    if (e instanceof DevGatewayRefusal) {
      void reply.code(400).send({ message: e.message });
      return undefined;
    }
    throw e;
  }
}

export function devGatewayApp(gateway: DevGateway): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 1 << 20 });

  app.post('/v1/balances', async (request, reply) => {
    const body = parsed(BalancesRequestJson, request.body, reply);
    if (!body) return reply;
    return answer(reply, async () => {
      const balances: BalancesResponseWire['balances'] = [];
      for (const { domain, depositor } of body.sources) {
        balances.push({ domain, depositor, balance: displayUsdc(await gateway.balance(domain, depositor)) });
      }
      return { token: 'USDC', balances } satisfies BalancesResponseWire;
    });
  });

  app.post('/v1/estimate', async (request, reply) => {
    const body = parsed(EstimateRequestJson, request.body, reply);
    if (!body) return reply;
    return answer(reply, async () => {
      const specs = body.map((b) => specFromWire(b.spec));
      const { intents, fees } = await gateway.estimate(specs);
      return {
        body: intents.map((i) => ({ burnIntent: intentToWire(i) })),
        fees: {
          total: fees.reduce((a, b) => a + b, 0n).toString(),
          token: 'USDC',
          perIntent: specs.map((spec, i) => ({
            transferSpecHash: toHex(transferSpecHash(spec)),
            fee: (fees[i] as bigint).toString(),
          })),
        },
      } satisfies EstimateResponseWire;
    });
  });

  app.post('/v1/transfer', async (request, reply) => {
    const body = parsed(TransferRequestJson, request.body, reply);
    if (!body) return reply;
    return answer(reply, async () => {
      const transfer = await gateway.transfer(
        body.map((b) => ({
          intent: intentFromWire(b.burnIntent),
          signature: toBytes(b.signature as `0x${string}`),
        })),
      );
      return {
        transferId: transfer.id,
        attestation: toHex(transfer.attestation),
        signature: toHex(transfer.signature),
        fees: { total: transfer.intents.reduce((a, i) => a + i.fee, 0n).toString(), token: 'USDC' },
        expirationBlock: transfer.expirationBlock.toString(),
      } satisfies TransferResponseWire;
    });
  });

  app.get<{ Params: { id: string } }>('/v1/transfer/:id', async (request, reply) => {
    const found = gateway.get(request.params.id);
    if (!found) return reply.code(404).send({ message: `no transfer ${request.params.id}` });
    return transferState(found);
  });

  return app;
}

export async function startDevGatewayServer(
  gateway: DevGateway,
  options: { host?: string; port?: number } = {},
): Promise<DevGatewayServer> {
  const app = devGatewayApp(gateway);
  const address = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  return { baseUrl: address.replace('[::1]', '127.0.0.1'), app, close: () => app.close() };
}
