// The dev Gateway end to end, on a real anvil (our GatewayWallet) and the embedded chain (our GatewayMinter, set
// up by MinterGenesis with the dev Gateway's attester), driven through circle-api.ts, Circle's API client: a
// deposit on the EVM domain, an intent signed by the depositor (EIP-712) for the maker's Solana USDC account, the
// attestation checked and minted by the maker, then the dev Gateway's burn on anvil — exact bigint amounts. One
// anvil for the file; each test funds a depositor of its own.

import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import {
  ComputeBudgetProgram,
  Keypair,
  type PublicKey,
  Transaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import { type Address, createTestClient, type Hex, hexToBytes, http, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { MintIntent } from '../../machines/index.ts';
import { createEmbeddedChain, type EmbeddedChain } from '../../src/chain/embedded/index.ts';
import { fastSigner, signWith } from '../../src/chain/signer.ts';
import { ata } from '../../src/chain/token.ts';
import { CircleGatewayApi } from '../../src/gateway/circle-api.ts';
import {
  type DevGatewayService,
  DevGatewayStore,
  devFee,
  ledgerView,
  MinterGenesis,
  startDevGateway,
  storedAttester,
} from '../../src/gateway/dev/index.ts';
import {
  type Anvil,
  deployEvmDomain,
  type EvmDomainClient,
  startAnvil,
} from '../../src/gateway/evm/index.ts';
import { signBurnIntent } from '../../src/gateway/formats/eip712.ts';
import {
  type BurnIntent,
  GATEWAY_DOMAINS,
  SOLANA_DOMAIN,
  transferSpecHash,
} from '../../src/gateway/formats/index.ts';
import type { GatewayAttestation } from '../../src/gateway/port.ts';
import {
  checkMintTransaction,
  EMBEDDED_GATEWAY_MINTER_ID,
  gatewayMintInstruction,
} from '../../src/gateway/solana/index.ts';
import { intentToWire } from '../../src/gateway/wire.ts';
import { attestMintIntent, type MintingHooks, signMintIntent } from '../../src/runtime/minting.ts';
import { INVENTORY, MINTS, tempDir, USDC } from '../chain/fixtures.ts';

const DOMAIN = GATEWAY_DOMAINS.base;
const ONE = 1_000_000n; // one USDC, raw units
const MINTER = EMBEDDED_GATEWAY_MINTER_ID;

let anvil: Anvil;
let evm: EvmDomainClient;
let chain: EmbeddedChain;
let store: DevGatewayStore;
let service: DevGatewayService;
let client: CircleGatewayApi;
const dirs: string[] = [];
const maker = Keypair.generate();
const makerUsdc = ata(maker.publicKey, USDC);
const deployerKey = generatePrivateKey();
const feeRecipient = privateKeyToAccount(generatePrivateKey()).address;

const settleErrors: unknown[] = [];

async function startService(attestationTtlSlots?: bigint): Promise<void> {
  service = await startDevGateway({
    onSettleError: (e) => settleErrors.push(e),
    ...(attestationTtlSlots === undefined ? {} : { attestationTtlSlots }),
    store,
    evm,
    solana: ledgerView(chain.ledger),
    minter: MINTER,
    usdc: USDC,
    settleIntervalMs: 25,
  });
  client = new CircleGatewayApi({
    baseUrl: service.baseUrl,
    timeoutMs: 20_000,
    attesters: [storedAttester(store)],
    maxFeeRaw: 5n * ONE,
  });
}

beforeAll(async () => {
  const dir = tempDir('dev-gateway');
  dirs.push(dir);
  store = new DevGatewayStore(`${dir}/gateway`);
  anvil = await startAnvil();
  evm = await deployEvmDomain(anvil.url, {
    chainId: anvil.chainId,
    domain: DOMAIN,
    deployerKey,
    burnSigner: privateKeyToAccount(store.key('operator')).address,
    feeRecipient,
  });
  chain = createEmbeddedChain({
    dataDir: `${dir}/chain`,
    makerKeypair: maker,
    mints: MINTS,
    makerInventory: INVENTORY,
    extensions: [
      new MinterGenesis({ usdc: USDC, attester: storedAttester(store), custodyFloat: 1_000_000n * ONE }),
    ],
  });
  await startService();
}, 60_000);

afterAll(async () => {
  await service?.stop();
  store?.close();
  await chain?.close();
  await anvil?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A depositor with `deposited` in its Gateway balance on the EVM domain. */
async function depositor(deposited: bigint): Promise<{ key: Hex; address: Address }> {
  const key = generatePrivateKey();
  const { address } = privateKeyToAccount(key);
  await evm.fundGas(address);
  await evm.mintUsdc(deployerKey, address, deposited);
  await evm.deposit(key, deposited);
  return { key, address };
}

/** The maker's intent: value from the depositor to the maker's own USDC account, the maker the only caller. */
async function intentFor(from: Address, value: bigint, over: Partial<BurnIntent> = {}): Promise<BurnIntent> {
  return {
    maxBlockHeight: (await evm.blockNumber()) + 1_000n,
    maxFee: devFee(value),
    spec: {
      version: 1,
      ...evm.sourceFields(from),
      destinationDomain: SOLANA_DOMAIN,
      destinationContract: MINTER.toBytes(),
      destinationToken: USDC.toBytes(),
      destinationRecipient: makerUsdc.toBytes(),
      destinationCaller: maker.publicKey.toBytes(),
      value,
      salt: new Uint8Array(randomBytes(32)),
      hookData: new Uint8Array(),
    },
    ...over,
  };
}

const signed = async (intent: BurnIntent, key: Hex) => ({
  intent,
  signature: hexToBytes(await signBurnIntent(intent, key)),
});

const mintIx = (a: Pick<GatewayAttestation, 'attestation' | 'signature'>) =>
  gatewayMintInstruction({
    minter: MINTER,
    payer: maker.publicKey,
    destinationCaller: maker.publicKey,
    attestation: a.attestation,
    signature: a.signature,
  });

/** Signs and lands the maker's transaction on the embedded chain; its record. */
function send(instructions: TransactionInstruction[]) {
  const { blockhash, lastValidBlockHeight } = chain.ledger.latestBlockhash();
  const tx = new Transaction({ feePayer: maker.publicKey, blockhash, lastValidBlockHeight }).add(
    ...instructions,
  );
  return chain.ledger.execute(signWith(tx, fastSigner(maker)).bytes).record;
}

const usdcOf = (account: PublicKey) => tokenBalance(account);
function tokenBalance(account: PublicKey): bigint {
  const data = chain.ledger.getAccount(account)?.data;
  return data ? Buffer.from(data).readBigUInt64LE(64) : 0n;
}

describe('dev Gateway (anvil + embedded chain, through the Circle API client)', () => {
  test('deposit, attest, mint on Solana, burn on the EVM domain: value to the maker, value + fee off the deposit, once', async () => {
    const dep = await depositor(100n * ONE);
    const value = 25n * ONE;
    const fee = devFee(value);
    expect(fee).toBe(10_000n + 1_250n);

    expect(await client.balances(dep.address, [DOMAIN, SOLANA_DOMAIN])).toEqual([
      { domain: DOMAIN, depositor: dep.address, balance: 100n * ONE },
      { domain: SOLANA_DOMAIN, depositor: dep.address, balance: 0n },
    ]);
    const intent = await intentFor(dep.address, value);
    expect(await client.estimate([intent])).toEqual({ perIntent: [fee], total: fee });

    const request = await signed(intent, dep.key);
    const answer = await client.transfer([request]);
    expect(answer.fee).toBe(fee);
    expect(answer.set.attestations).toHaveLength(1);
    // Attested, not burned: the balance Gateway offers already holds value + fee back; the chain has not moved.
    expect((await client.balances(dep.address, [DOMAIN]))[0]?.balance).toBe(100n * ONE - value - fee);
    expect(await evm.availableBalance(dep.address)).toBe(100n * ONE);
    expect((await client.transferStatus(answer.transferId)).status).toBe('attested');

    const before = usdcOf(makerUsdc);
    const ix = mintIx(answer);
    await checkMintTransaction([ix], {
      minter: MINTER,
      usdc: USDC,
      maker: maker.publicKey,
      recipient: makerUsdc,
      value,
      transferSpecHash: transferSpecHash(intent.spec),
      slot: BigInt(chain.ledger.slot()),
      attesters: [storedAttester(store)],
    });
    const minted = send([ix]);
    expect(minted.err, minted.logs.join('\n')).toBeNull();
    expect(usdcOf(makerUsdc)).toBe(before + value);

    // The operator sees the mint and burns value + fee on the EVM domain; the status names that burn.
    await vi.waitFor(
      async () => expect((await client.transferStatus(answer.transferId)).status).toBe('burned'),
      { timeout: 30_000, interval: 50 },
    );
    const status = await client.transferStatus(answer.transferId);
    const burn = await evm.findBurn(toHex(transferSpecHash(intent.spec)));
    expect(status.burnTxHash).toBe(burn?.txHash);
    expect(burn).toMatchObject({ value, fee });
    expect(await evm.availableBalance(dep.address)).toBe(100n * ONE - value - fee);
    expect(await evm.usdcBalance(feeRecipient)).toBeGreaterThanOrEqual(fee);
    expect((await client.balances(dep.address, [DOMAIN]))[0]?.balance).toBe(100n * ONE - value - fee);

    // The same request again is answered the same attestation (idempotent), which the minter refuses on chain;
    // another intent of the same spec is refused by the API.
    expect(await client.transfer([request])).toEqual(answer);
    const rebounded = await signed({ ...intent, maxBlockHeight: intent.maxBlockHeight + 1n }, dep.key);
    await expect(client.transfer([rebounded])).rejects.toMatchObject({ code: 'refused', status: 400 });
    const again = send([ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 }), mintIx(answer)]);
    expect(again.err).not.toBeNull();
    expect(again.logs.join('\n')).toContain('TransferSpecHashAlreadyUsed');
    expect(usdcOf(makerUsdc)).toBe(before + value);
  }, 60_000);

  test('the runtime’s stored intent posted again after its answer was lost gets the same attestation; of the mints signed from the two answers one lands', async () => {
    const dep = await depositor(10n * ONE);
    const value = 3n * ONE;
    const hooks: MintingHooks = {
      port: client,
      usdcMint: USDC.toBase58(),
      minter: MINTER,
      attesters: [storedAttester(store)],
      source: evm.sourceFields(dep.address),
      signIntent: (i) => signBurnIntent(i, dep.key),
      sourceBlock: () => evm.blockNumber(),
      burnWindowBlocks: 1_000n,
      maxFeeRaw: 5n * ONE,
    };
    const signedBytes: Buffer[] = [];
    const makerChain = {
      makerWallet: maker.publicKey,
      commitmentSlots: async () => ({ confirmed: chain.ledger.slot(), finalized: chain.ledger.slot() }),
      signMakerInstructions: async (a: { instructions: readonly TransactionInstruction[] }) => {
        const { blockhash, lastValidBlockHeight } = chain.ledger.latestBlockhash();
        const tx = new Transaction({ feePayer: maker.publicKey, blockhash, lastValidBlockHeight }).add(
          ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 + signedBytes.length }),
          ...a.instructions,
        );
        const out = signWith(tx, fastSigner(maker));
        signedBytes.push(out.bytes);
        return {
          signature: out.signature,
          lastValidBlockHeight,
          transactionBase64: out.bytes.toString('base64'),
        };
      },
    };
    const signedIntent = await signMintIntent(makerChain, hooks, value.toString());
    if (!signedIntent.ok) throw new Error(signedIntent.reason);
    const stored: MintIntent = { ...signedIntent.intent, attestation: null, transaction: null };
    const first = await attestMintIntent(makerChain, hooks, stored);
    if (!first.ok) throw new Error(first.reason);
    // kill -9 before the answer was stored: the next process holds the intent alone and posts it again.
    const second = await attestMintIntent(makerChain, hooks, stored);
    if (!second.ok) throw new Error(second.reason);
    expect(second.attestation).toEqual(first.attestation);
    // Reserved once.
    expect((await client.balances(dep.address, [DOMAIN]))[0]?.balance).toBe(
      10n * ONE - value - devFee(value),
    );
    // Two transactions signed, one spec: the minter mints it once.
    const before = usdcOf(makerUsdc);
    const landed = signedBytes.map((bytes) => chain.ledger.execute(bytes).record);
    expect(landed[0]?.err, landed[0]?.logs.join('\n')).toBeNull();
    expect(landed[1]?.logs.join('\n')).toContain('TransferSpecHashAlreadyUsed');
    expect(usdcOf(makerUsdc)).toBe(before + value);
  }, 60_000);

  test('an intent above what the deposits cover, less what is attested and unburned, is refused', async () => {
    const dep = await depositor(10n * ONE);
    const above = await signed(await intentFor(dep.address, 10n * ONE), dep.key); // + fee > 10
    await expect(client.transfer([above])).rejects.toMatchObject({ code: 'refused', status: 400 });

    const first = await client.transfer([await signed(await intentFor(dep.address, 6n * ONE), dep.key)]);
    expect(first.fee).toBe(devFee(6n * ONE));
    // 6 + fee is held: 4 more (with its fee) no longer fits, though the chain still holds all 10.
    await expect(
      client.transfer([await signed(await intentFor(dep.address, 4n * ONE), dep.key)]),
    ).rejects.toMatchObject({ code: 'refused' });
    expect(await evm.availableBalance(dep.address)).toBe(10n * ONE);
    const left = 10n * ONE - 6n * ONE - devFee(6n * ONE);
    expect((await client.balances(dep.address, [DOMAIN]))[0]?.balance).toBe(left);
    const fits = left - devFee(left - 10_000n) - 10_000n;
    await expect(
      client.transfer([await signed(await intentFor(dep.address, fits), dep.key)]),
    ).resolves.toMatchObject({ fee: devFee(fits) });
  }, 60_000);

  test('refuses a maxBlockHeight already past, a fee above maxFee, and a signature not the depositor’s', async () => {
    const dep = await depositor(10n * ONE);
    const tip = await evm.blockNumber();
    const past = await intentFor(dep.address, ONE, { maxBlockHeight: tip });
    await expect(client.transfer([await signed(past, dep.key)])).rejects.toThrow(/maxBlockHeight/);
    const cheap = await intentFor(dep.address, ONE, { maxFee: devFee(ONE) - 1n });
    await expect(client.transfer([await signed(cheap, dep.key)])).rejects.toThrow(/exceeds maxFee/);
    const forged = await signed(await intentFor(dep.address, ONE), generatePrivateKey());
    await expect(client.transfer([forged])).rejects.toThrow(/not signed by its source signer/);
    expect((await client.balances(dep.address, [DOMAIN]))[0]?.balance).toBe(10n * ONE);
    await expect(client.transferStatus('no-such-transfer')).rejects.toMatchObject({ code: 'not_found' });
  }, 60_000);

  test('a restart keeps what was attested: the reservation holds, the same request gets the same answer, and another intent of its spec is refused', async () => {
    const dep = await depositor(5n * ONE);
    const intent = await intentFor(dep.address, 2n * ONE);
    const request = await signed(intent, dep.key);
    const first = await client.transfer([request]);
    await service.stop();
    const dir = dirs[0] as string;
    store.close();
    store = new DevGatewayStore(`${dir}/gateway`);
    await startService();
    // The client that lost the answer (a crash before it stored it) asks again: the very same attestation.
    const again = await client.transfer([request]);
    expect(again).toEqual(first);
    // The same spec under other bounds, signed afresh by the depositor, is a second intent: refused.
    const otherBounds = { ...intent, maxFee: intent.maxFee + 1n };
    await expect(client.transfer([await signed(otherBounds, dep.key)])).rejects.toThrow(/attested already/);
    // The request within a larger one is not the same request either.
    const more = await signed(await intentFor(dep.address, ONE / 2n), dep.key);
    await expect(client.transfer([request, more])).rejects.toThrow(/attested already/);
    // Reserved once, whatever was asked.
    expect((await client.balances(dep.address, [DOMAIN]))[0]?.balance).toBe(
      5n * ONE - 2n * ONE - devFee(2n * ONE),
    );
  }, 60_000);

  test('an attestation left unminted past its expiry is refused by the maker and the minter, and frees what it held', async () => {
    await service.stop();
    await startService(5n);
    const dep = await depositor(5n * ONE);
    const value = 2n * ONE;
    const intent = await intentFor(dep.address, value);
    const answer = await client.transfer([await signed(intent, dep.key)]);
    expect((await client.balances(dep.address, [DOMAIN]))[0]?.balance).toBe(5n * ONE - value - devFee(value));
    chain.ledger.advanceClock(10); // 25 slots of 400 ms: past the 5 the attestation allows
    const ix = mintIx(answer);
    await expect(
      checkMintTransaction([ix], {
        minter: MINTER,
        usdc: USDC,
        maker: maker.publicKey,
        recipient: makerUsdc,
        value,
        transferSpecHash: transferSpecHash(intent.spec),
        slot: BigInt(chain.ledger.slot()),
        attesters: [storedAttester(store)],
      }),
    ).rejects.toMatchObject({ code: 'expired' });
    const late = send([ix]);
    expect(late.logs.join('\n')).toContain('AttestationExpired');
    await vi.waitFor(
      async () => expect((await client.transferStatus(answer.transferId)).status).toBe('expired'),
      { timeout: 30_000, interval: 50 },
    );
    expect((await client.balances(dep.address, [DOMAIN]))[0]?.balance).toBe(5n * ONE);
    expect(await evm.availableBalance(dep.address)).toBe(5n * ONE);
  }, 60_000);

  test('a burn mined before the operator recorded it (a crash between) is found again, not sent twice', async () => {
    const dep = await depositor(5n * ONE);
    const value = ONE;
    const request = await signed(await intentFor(dep.address, value), dep.key);
    const answer = await client.transfer([request]);
    await service.stop();
    expect(send([mintIx(answer)]).err).toBeNull();
    // What the operator sent before it died: the burn is on chain, its record is not.
    const burned = await evm.gatewayBurn(store.key('operator'), [
      { intent: request.intent, signature: toHex(request.signature), fee: devFee(value) },
    ]);
    await startService();
    await vi.waitFor(
      async () =>
        expect(await client.transferStatus(answer.transferId)).toMatchObject({
          status: 'burned',
          burnTxHash: burned,
        }),
      { timeout: 30_000, interval: 50 },
    );
    expect(await evm.availableBalance(dep.address)).toBe(5n * ONE - value - devFee(value));
  }, 60_000);

  test('bad requests are 400s with Circle’s { message } and change nothing; an unknown transfer is a 404', async () => {
    const dep = await depositor(3n * ONE);
    const post = (path: string, body: string) =>
      fetch(`${service.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    const wire = intentToWire(await intentFor(dep.address, ONE));
    const bad = [
      ['/v1/transfer', '[]'],
      ['/v1/transfer', '{"burnIntent":{}}'],
      ['/v1/transfer', JSON.stringify([{ burnIntent: { ...wire, maxFee: '-1' }, signature: '0x00' }])],
      [
        '/v1/transfer',
        JSON.stringify([
          { burnIntent: { ...wire, spec: { ...wire.spec, value: '1.5' } }, signature: '0x00' },
        ]),
      ],
      ['/v1/transfer', JSON.stringify([{ burnIntent: wire, signature: '0x1234' }])],
      ['/v1/transfer', '{not json'],
      ['/v1/balances', JSON.stringify({ token: 'USDC', sources: [{ domain: DOMAIN, depositor: 'nobody' }] })],
      [
        '/v1/balances',
        JSON.stringify({ token: 'EURC', sources: [{ domain: DOMAIN, depositor: dep.address }] }),
      ],
      ['/v1/estimate', JSON.stringify([{ spec: { ...wire.spec, salt: '0x12' } }])],
    ] as const;
    for (const [path, body] of bad) {
      const response = await post(path, body);
      expect(response.status, `${path} ${body}`).toBe(400);
      expect(typeof ((await response.json()) as { message?: unknown }).message).toBe('string');
    }
    expect((await fetch(`${service.baseUrl}/v1/transfer/nope`)).status).toBe(404);
    expect((await client.balances(dep.address, [DOMAIN]))[0]?.balance).toBe(3n * ONE);
  }, 60_000);

  test('a burn the source chain refuses (the intent expired before the mint was seen) does not hold up the others', async () => {
    const dep = await depositor(5n * ONE);
    const short = await signed(
      await intentFor(dep.address, ONE, { maxBlockHeight: (await evm.blockNumber()) + 2n }),
      dep.key,
    );
    const stuck = await client.transfer([short]);
    const later = await client.transfer([await signed(await intentFor(dep.address, ONE), dep.key)]);
    await createTestClient({ mode: 'anvil', transport: http(anvil.url) }).mine({ blocks: 5 });
    settleErrors.length = 0;
    expect(send([mintIx(stuck)]).err).toBeNull();
    expect(send([mintIx(later)]).err).toBeNull();
    await vi.waitFor(
      async () => expect((await client.transferStatus(later.transferId)).status).toBe('burned'),
      { timeout: 30_000, interval: 50 },
    );
    // The first stays owed (minted, its burn refused by the wallet), told to the operator's error hook.
    expect((await client.transferStatus(stuck.transferId)).status).toBe('minted');
    expect(String((settleErrors[0] as AggregateError | undefined)?.errors[0])).toMatch(
      /burn_intent_expired|BurnIntentExpired/,
    );
    expect(await evm.availableBalance(dep.address)).toBe(5n * ONE - ONE - devFee(ONE));
  }, 60_000);
});
