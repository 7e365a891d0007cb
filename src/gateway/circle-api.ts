// The Gateway port over Circle's Gateway API (testnet https://gateway-api-testnet.circle.com, mainnet
// https://gateway-api.circle.com), and over the dev Gateway, which serves the same routes and shapes. Every
// answer is validated against its schema (wire.ts) and its bytes decoded by the formats' strict decoders; a
// transfer's attestation is checked against the intents the depositor signed (checks.ts) before it is
// returned. What cannot be read is invalid_answer; what reads but mints something else, attestation_mismatch.

import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { type Hex, toBytes, toHex } from 'viem';
import { checkAttestationSet, checkAttester, decodeAnswered } from './checks.ts';
import { GatewayError } from './errors.ts';
import type { BurnIntent } from './formats/index.ts';
import type {
  FeeEstimate,
  GatewayAttestation,
  GatewayBalance,
  GatewayPort,
  GatewayTransferState,
  SignedBurnIntent,
} from './port.ts';
import {
  BalancesResponseJson,
  ErrorJson,
  EstimateResponseJson,
  intentToWire,
  rawUsdc,
  specToWire,
  TransferResponseJson,
  TransferStateJson,
} from './wire.ts';

export const CIRCLE_GATEWAY_URLS = {
  testnet: 'https://gateway-api-testnet.circle.com',
  mainnet: 'https://gateway-api.circle.com',
} as const;

export interface CircleGatewayOptions {
  baseUrl: string;
  timeoutMs: number;
  /** The attesters (bytes32) whose signature the destination minter accepts: read from its state or config. */
  attesters: readonly Uint8Array[];
  /** The most a transfer may cost in fees, raw units, whatever the intents' maxFee allow. */
  maxFeeRaw: bigint;
  /** Replaces fetch (tests of a Gateway that misbehaves). */
  fetchApi?: typeof fetch;
}

export class CircleGatewayApi implements GatewayPort {
  readonly baseUrl: string;
  private readonly fetchApi: typeof fetch;

  constructor(private readonly options: CircleGatewayOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchApi = options.fetchApi ?? fetch;
  }

  async balances(depositor: string, domains: readonly number[]): Promise<GatewayBalance[]> {
    const body = { token: 'USDC', sources: domains.map((domain) => ({ domain, depositor })) };
    const answer = this.valid(
      BalancesResponseJson,
      await this.call('POST', '/v1/balances', body),
      'balances',
    );
    return domains.map((domain) => {
      const found = answer.balances.filter(
        (b) => b.domain === domain && b.depositor.toLowerCase() === depositor.toLowerCase(),
      );
      if (found.length !== 1) {
        throw new GatewayError('invalid_answer', `balances: ${found.length} entries for domain ${domain}`);
      }
      return { domain, depositor, balance: rawUsdc((found[0] as { balance: string }).balance) };
    });
  }

  async estimate(intents: readonly BurnIntent[]): Promise<FeeEstimate> {
    const body = intents.map((i) => ({ spec: specToWire(i.spec) }));
    const answer = this.valid(
      EstimateResponseJson,
      await this.call('POST', '/v1/estimate', body),
      'estimate',
    );
    if (answer.fees.perIntent.length !== intents.length) {
      throw new GatewayError(
        'invalid_answer',
        `estimate: ${answer.fees.perIntent.length} fees for ${intents.length} intents`,
      );
    }
    const perIntent = answer.fees.perIntent.map((f) => BigInt(f.fee));
    const total = BigInt(answer.fees.total);
    if (perIntent.reduce((a, b) => a + b, 0n) !== total) {
      throw new GatewayError('invalid_answer', 'estimate: the fees do not add up to their total');
    }
    if (total > this.options.maxFeeRaw) {
      throw new GatewayError(
        'fee_above_cap',
        `estimate: fee ${total} above the cap ${this.options.maxFeeRaw}`,
      );
    }
    return { perIntent, total };
  }

  async transfer(signed: readonly SignedBurnIntent[]): Promise<GatewayAttestation> {
    const intents = signed.map((s) => s.intent);
    const body = signed.map((s) => ({ burnIntent: intentToWire(s.intent), signature: toHex(s.signature) }));
    const answer = this.valid(
      TransferResponseJson,
      await this.call('POST', '/v1/transfer', body),
      'transfer',
    );
    const attestation = toBytes(answer.attestation as Hex);
    const signature = toBytes(answer.signature as Hex);
    const set = decodeAnswered(attestation);
    checkAttestationSet(set, intents);
    if (BigInt(answer.expirationBlock) !== set.maxBlockHeight) {
      throw new GatewayError(
        'attestation_mismatch',
        `expirationBlock ${answer.expirationBlock}, the attestation's ${set.maxBlockHeight}`,
        { reason: 'wrong_expiry' },
      );
    }
    await checkAttester(attestation, signature, this.options.attesters);
    const fee = BigInt(answer.fees.total);
    const maxFee = intents.reduce((a, i) => a + i.maxFee, 0n);
    if (fee > maxFee || fee > this.options.maxFeeRaw) {
      throw new GatewayError(
        'fee_above_cap',
        `fee ${fee} above the intents' maxFee ${maxFee} or the cap ${this.options.maxFeeRaw}`,
      );
    }
    return {
      transferId: answer.transferId,
      attestation,
      signature,
      set,
      fee,
      expirationBlock: set.maxBlockHeight,
    };
  }

  async transferStatus(transferId: string): Promise<GatewayTransferState> {
    const answer = this.valid(
      TransferStateJson,
      await this.call('GET', `/v1/transfer/${encodeURIComponent(transferId)}`),
      'transfer status',
    );
    if (answer.id !== transferId)
      throw new GatewayError('invalid_answer', `asked ${transferId}, answered ${answer.id}`);
    if ((answer.status === 'burned') !== (answer.burnTxHash !== null)) {
      throw new GatewayError(
        'invalid_answer',
        `status ${answer.status} with burnTxHash ${answer.burnTxHash}`,
      );
    }
    return { transferId, status: answer.status, burnTxHash: answer.burnTxHash };
  }

  private valid<T extends TSchema>(schema: T, answer: unknown, what: string) {
    if (!Value.Check(schema, answer)) {
      const [first] = Value.Errors(schema, answer);
      throw new GatewayError(
        'invalid_answer',
        `${what}: ${first ? `${first.instancePath} ${first.message}` : 'unreadable'}`,
      );
    }
    return answer;
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await this.fetchApi(`${this.baseUrl}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (e) {
      throw new GatewayError('unavailable', `${method} ${path}: ${(e as Error).message}`, { cause: e });
    }
    let json: unknown;
    try {
      json = await response.json();
    } catch (e) {
      if (response.status >= 500)
        throw new GatewayError('unavailable', `${method} ${path}: HTTP ${response.status}`, {
          status: response.status,
        });
      throw new GatewayError('invalid_answer', `${method} ${path}: not JSON (HTTP ${response.status})`, {
        cause: e,
        status: response.status,
      });
    }
    if (response.ok) return json;
    const message = Value.Check(ErrorJson, json) ? json.message : `HTTP ${response.status}`;
    if (response.status >= 500 || response.status === 429) {
      throw new GatewayError('unavailable', `${method} ${path}: ${message}`, { status: response.status });
    }
    if (response.status === 404)
      throw new GatewayError('not_found', `${method} ${path}: ${message}`, { status: 404 });
    throw new GatewayError('refused', `${method} ${path}: ${message}`, { status: response.status });
  }
}
