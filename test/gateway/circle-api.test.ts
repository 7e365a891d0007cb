// circle-api.ts against a Gateway of the test's own (a Fastify server answering whatever each test sets): an
// honest answer is handed back checked; every hostile or malformed one — an attestation for another recipient,
// another mint, a larger value, a foreign destination caller, another transfer spec, an untrusted attester,
// malformed bytes, a fee above maxFee or the cap, a shape that is not Circle's — is a typed GatewayError, never
// an attestation. No chain is needed: the client checks bytes and signatures only.

import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { CircleGatewayApi } from '../../src/gateway/circle-api.ts';
import type { GatewayErrorCode } from '../../src/gateway/errors.ts';
import {
  type BurnIntent,
  encodeMintAttestationSet,
  evmAddressBytes32,
  type MintAttestationSet,
  SOLANA_DOMAIN,
  signAttestation,
  transferSpecHash,
} from '../../src/gateway/formats/index.ts';
import type { SignedBurnIntent } from '../../src/gateway/port.ts';
import { intentToWire } from '../../src/gateway/wire.ts';

const ATTESTER = generatePrivateKey();
const STRANGER = generatePrivateKey();
const ONE = 1_000_000n;
const random32 = () => new Uint8Array(randomBytes(32));

interface Answer {
  status: number;
  body: unknown;
}
let respond: (path: string, body: unknown) => Answer | Promise<Answer>;
let seen: { method: string; path: string; body: unknown }[] = [];
let app: FastifyInstance;
let client: CircleGatewayApi;

beforeAll(async () => {
  app = Fastify({ logger: false });
  app.all('/*', async (request, reply) => {
    seen.push({ method: request.method, path: request.url, body: request.body });
    const { status, body } = await respond(request.url, request.body);
    return reply
      .code(status)
      .header('content-type', 'application/json')
      .send(typeof body === 'string' ? body : JSON.stringify(body));
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  client = new CircleGatewayApi({
    baseUrl: `${url}/`,
    timeoutMs: 5_000,
    attesters: [evmAddressBytes32(privateKeyToAccount(ATTESTER).address)],
    maxFeeRaw: 2n * ONE,
  });
});

afterAll(async () => {
  await app?.close();
});

beforeEach(() => {
  seen = [];
});

const intent: BurnIntent = {
  maxBlockHeight: 10_000n,
  maxFee: ONE,
  spec: {
    version: 1,
    sourceDomain: 6,
    destinationDomain: SOLANA_DOMAIN,
    sourceContract: evmAddressBytes32(privateKeyToAccount(generatePrivateKey()).address),
    destinationContract: random32(),
    sourceToken: evmAddressBytes32(privateKeyToAccount(generatePrivateKey()).address),
    destinationToken: random32(),
    sourceDepositor: evmAddressBytes32(privateKeyToAccount(generatePrivateKey()).address),
    destinationRecipient: random32(),
    sourceSigner: evmAddressBytes32(privateKeyToAccount(generatePrivateKey()).address),
    destinationCaller: random32(),
    value: 25n * ONE,
    salt: random32(),
    hookData: new Uint8Array(),
  },
};
const request: SignedBurnIntent = { intent, signature: new Uint8Array(65).fill(1) };

/** The honest attestation set for `intent`, with `over` applied. */
const setFor = (
  over: Partial<MintAttestationSet> = {},
  element: Partial<MintAttestationSet['attestations'][number]> = {},
): MintAttestationSet => ({
  version: 1,
  destinationDomain: intent.spec.destinationDomain,
  destinationContract: intent.spec.destinationContract,
  destinationCaller: intent.spec.destinationCaller,
  maxBlockHeight: 5_000n,
  attestations: [
    {
      destinationToken: intent.spec.destinationToken,
      destinationRecipient: intent.spec.destinationRecipient,
      value: intent.spec.value,
      transferSpecHash: transferSpecHash(intent.spec),
      hookData: new Uint8Array(),
      ...element,
    },
  ],
  ...over,
});

async function answerWith(set: MintAttestationSet, over: Record<string, unknown> = {}, key = ATTESTER) {
  const attestation = encodeMintAttestationSet(set);
  const body = {
    transferId: 'b2f4e1f0-0000-4000-8000-000000000001',
    attestation: toHex(attestation),
    signature: toHex(await signAttestation(attestation, key)),
    fees: { total: '11250', token: 'USDC' },
    expirationBlock: set.maxBlockHeight.toString(),
    ...over,
  };
  respond = () => ({ status: 200, body });
}

const refusedWith = (code: GatewayErrorCode, reason?: string) =>
  expect(client.transfer([request])).rejects.toMatchObject({
    name: 'GatewayError',
    code,
    ...(reason ? { reason } : {}),
  });

describe('CircleGatewayApi.transfer', () => {
  test('posts Circle’s body and hands back an honest attestation, decoded and checked', async () => {
    await answerWith(setFor());
    const got = await client.transfer([request]);
    expect(got).toMatchObject({
      transferId: 'b2f4e1f0-0000-4000-8000-000000000001',
      fee: 11_250n,
      expirationBlock: 5_000n,
    });
    expect(got.set.attestations[0]?.value).toBe(25n * ONE);
    expect(seen).toEqual([
      {
        method: 'POST',
        path: '/v1/transfer',
        body: [{ burnIntent: intentToWire(intent), signature: toHex(request.signature) }],
      },
    ]);
  });

  test('an attestation for another recipient is refused', async () => {
    await answerWith(setFor({}, { destinationRecipient: random32() }));
    await refusedWith('attestation_mismatch', 'wrong_recipient');
  });

  test('an attestation of another mint is refused', async () => {
    await answerWith(setFor({}, { destinationToken: random32() }));
    await refusedWith('attestation_mismatch', 'wrong_mint');
  });

  test('an attestation of a larger value than the intent is refused', async () => {
    await answerWith(setFor({}, { value: intent.spec.value + 1n }));
    await refusedWith('attestation_mismatch', 'wrong_value');
  });

  test('an attestation a foreign destination caller (or anyone) may submit is refused', async () => {
    await answerWith(setFor({ destinationCaller: random32() }));
    await refusedWith('attestation_mismatch', 'foreign_caller');
    await answerWith(setFor({ destinationCaller: new Uint8Array(32) }));
    await refusedWith('attestation_mismatch', 'foreign_caller');
  });

  test('another destination domain or contract, another transfer spec, extra elements or hook data are refused', async () => {
    await answerWith(setFor({ destinationDomain: 6 }));
    await refusedWith('attestation_mismatch', 'wrong_destination');
    await answerWith(setFor({ destinationContract: random32() }));
    await refusedWith('attestation_mismatch', 'wrong_destination');
    await answerWith(setFor({}, { transferSpecHash: random32() }));
    await refusedWith('attestation_mismatch', 'wrong_transfer_spec');
    const honest = setFor();
    await answerWith({ ...honest, attestations: [...honest.attestations, ...honest.attestations] });
    await refusedWith('attestation_mismatch', 'wrong_count');
    await answerWith(setFor({}, { hookData: Uint8Array.of(1) }));
    await refusedWith('attestation_mismatch', 'wrong_hook_data');
  });

  test('an attestation signed by a key the maker does not trust, or a signature that recovers no trusted key, is refused', async () => {
    await answerWith(setFor(), {}, STRANGER);
    await refusedWith('attestation_mismatch', 'untrusted_attester');
    await answerWith(setFor(), { signature: toHex(new Uint8Array(65).fill(7)) });
    await refusedWith('attestation_mismatch', 'untrusted_attester');
  });

  test('malformed attestation bytes, or an expirationBlock other than the attestation’s, are refused', async () => {
    const good = encodeMintAttestationSet(setFor());
    await answerWith(setFor(), { attestation: toHex(good.subarray(0, good.length - 1)) });
    await refusedWith('invalid_answer');
    const wrongMagic = Uint8Array.from(good);
    wrongMagic[0] = 0x00;
    await answerWith(setFor(), { attestation: toHex(wrongMagic) });
    await refusedWith('invalid_answer');
    await answerWith(setFor(), { expirationBlock: '999999' });
    await refusedWith('attestation_mismatch', 'wrong_expiry');
  });

  test('a fee above the intents’ maxFee or the configured cap is refused', async () => {
    await answerWith(setFor(), { fees: { total: (ONE + 1n).toString(), token: 'USDC' } });
    await refusedWith('fee_above_cap');
  });

  test('a shape that is not Circle’s is an invalid answer', async () => {
    await answerWith(setFor(), { fees: { total: 11250, token: 'USDC' } });
    await refusedWith('invalid_answer');
    await answerWith(setFor(), { attestation: 'not hex' });
    await refusedWith('invalid_answer');
    respond = () => ({ status: 200, body: 'not json' });
    await refusedWith('invalid_answer');
  });

  test('HTTP refusals, server errors and an unreachable API are typed', async () => {
    respond = () => ({ status: 400, body: { message: 'insufficient balance' } });
    await expect(client.transfer([request])).rejects.toMatchObject({
      code: 'refused',
      status: 400,
      message: /insufficient balance/,
    });
    respond = () => ({ status: 503, body: { message: 'down' } });
    await refusedWith('unavailable');
    const offline = new CircleGatewayApi({
      baseUrl: 'http://127.0.0.1:9',
      timeoutMs: 1_000,
      attesters: [],
      maxFeeRaw: ONE,
    });
    await expect(offline.transfer([request])).rejects.toMatchObject({ code: 'unavailable' });
  });
});

describe('CircleGatewayApi balances, estimate, status', () => {
  test('balances in Circle’s display units become exact raw units; a missing domain is an invalid answer', async () => {
    const depositor = privateKeyToAccount(generatePrivateKey()).address;
    respond = () => ({
      status: 200,
      body: {
        token: 'USDC',
        balances: [
          { domain: 6, depositor, balance: '12.000001' },
          { domain: 5, depositor, balance: '0' },
        ],
      },
    });
    expect(await client.balances(depositor, [6, 5])).toEqual([
      { domain: 6, depositor, balance: 12_000_001n },
      { domain: 5, depositor, balance: 0n },
    ]);
    expect(seen[0]?.body).toEqual({
      token: 'USDC',
      sources: [
        { domain: 6, depositor },
        { domain: 5, depositor },
      ],
    });
    await expect(client.balances(depositor, [6, 0])).rejects.toMatchObject({ code: 'invalid_answer' });
    respond = () => ({
      status: 200,
      body: { token: 'USDC', balances: [{ domain: 6, depositor, balance: '1.5e3' }] },
    });
    await expect(client.balances(depositor, [6])).rejects.toMatchObject({ code: 'invalid_answer' });
  });

  test('an estimate whose fees do not add up, or above the cap, is refused', async () => {
    const perIntent = [{ transferSpecHash: toHex(transferSpecHash(intent.spec)), fee: '11250' }];
    const body = (total: string, fee = '11250') => ({
      body: [{ burnIntent: intentToWire(intent) }],
      fees: { total, token: 'USDC', perIntent: [{ ...perIntent[0], fee }] },
    });
    respond = () => ({ status: 200, body: body('11250') });
    expect(await client.estimate([intent])).toEqual({ perIntent: [11_250n], total: 11_250n });
    respond = () => ({ status: 200, body: body('11249') });
    await expect(client.estimate([intent])).rejects.toMatchObject({ code: 'invalid_answer' });
    respond = () => ({ status: 200, body: body((3n * ONE).toString(), (3n * ONE).toString()) });
    await expect(client.estimate([intent])).rejects.toMatchObject({ code: 'fee_above_cap' });
  });

  test('a status for another transfer, or burned without a burn, is an invalid answer; 404 is not_found', async () => {
    const hash = toHex(random32());
    respond = (path) => ({
      status: 200,
      body: { id: path.split('/').pop(), status: 'burned', burnTxHash: hash },
    });
    expect(await client.transferStatus('t-1')).toEqual({
      transferId: 't-1',
      status: 'burned',
      burnTxHash: hash,
    });
    respond = () => ({ status: 200, body: { id: 't-2', status: 'burned', burnTxHash: hash } });
    await expect(client.transferStatus('t-1')).rejects.toMatchObject({ code: 'invalid_answer' });
    respond = () => ({ status: 200, body: { id: 't-1', status: 'burned', burnTxHash: null } });
    await expect(client.transferStatus('t-1')).rejects.toMatchObject({ code: 'invalid_answer' });
    respond = () => ({ status: 404, body: { message: 'no such transfer' } });
    await expect(client.transferStatus('t-1')).rejects.toMatchObject({ code: 'not_found' });
  });
});
