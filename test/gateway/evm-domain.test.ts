// The dev Gateway's EVM source domain on a real anvil: our GatewayWallet and USDC deployed from the committed
// artifacts, driven through the viem client. One node for the file; every test funds depositors of its own,
// so none depends on another's balances or spent transfer specs.

import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import {
  type Address,
  bytesToHex,
  createTestClient,
  type Hex,
  hashTypedData,
  hexToBytes,
  http,
  recoverTypedDataAddress,
  zeroAddress,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type Anvil,
  deployEvmDomain,
  devUsdcAbi,
  type EvmDomainClient,
  EvmDomainError,
  startAnvil,
} from '../../src/gateway/evm/index.ts';
import {
  burnIntentDigest,
  burnIntentTypedData,
  recoverBurnIntentSigner,
  signBurnIntent,
} from '../../src/gateway/formats/eip712.ts';
import {
  type BurnIntent,
  evmAddressBytes32,
  GATEWAY_DOMAINS,
  GATEWAY_SOLANA_PROGRAMS,
  transferSpecHash,
} from '../../src/gateway/formats/index.ts';

const DOMAIN = GATEWAY_DOMAINS.ethereum;
const USDC = 1_000_000n; // one USDC in raw units (6 decimals)

let anvil: Anvil;
let evm: EvmDomainClient;
const deployerKey = generatePrivateKey();
const operatorKey = generatePrivateKey();
const feeRecipient = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  anvil = await startAnvil();
  evm = await deployEvmDomain(anvil.url, {
    chainId: anvil.chainId,
    domain: DOMAIN,
    deployerKey,
    burnSigner: privateKeyToAccount(operatorKey).address,
    feeRecipient,
  });
});

afterAll(async () => {
  await anvil?.stop();
});

/** A depositor with gas and `usdc` of USDC in its own account; nothing deposited yet. */
async function depositorWith(usdc: bigint): Promise<{ key: Hex; address: Address }> {
  const key = generatePrivateKey();
  const { address } = privateKeyToAccount(key);
  await evm.fundGas(address);
  await evm.mintUsdc(deployerKey, address, usdc);
  return { key, address };
}

const random32 = () => new Uint8Array(randomBytes(32));

/** An intent from depositor on this domain to a Solana recipient, valid for a long while. */
function intentFor(depositor: Address, value: bigint, overrides: Partial<BurnIntent> = {}): BurnIntent {
  return {
    maxBlockHeight: 1_000_000n,
    maxFee: USDC / 2n,
    spec: {
      version: 1,
      ...evm.sourceFields(depositor),
      destinationDomain: GATEWAY_DOMAINS.solana,
      destinationContract: random32(),
      destinationToken: random32(),
      destinationRecipient: random32(),
      destinationCaller: new Uint8Array(32),
      value,
      salt: random32(),
      hookData: new Uint8Array(),
    },
    ...overrides,
  };
}

const specHashHex = (intent: BurnIntent) =>
  `0x${Buffer.from(transferSpecHash(intent.spec)).toString('hex')}` as Hex;

/** What a refused call must not have moved. */
async function snapshot(depositor: Address) {
  return {
    available: await evm.availableBalance(depositor),
    walletUsdc: await evm.usdcBalance(evm.deployment.gatewayWallet),
    fees: await evm.usdcBalance(feeRecipient),
  };
}

const totalSupply = () =>
  evm.publicClient.readContract({
    address: evm.deployment.usdc,
    abi: devUsdcAbi,
    functionName: 'totalSupply',
  });

async function refusal(promise: Promise<unknown>): Promise<EvmDomainError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EvmDomainError);
  return error as EvmDomainError;
}

describe('deposits', () => {
  test('a deposit moves USDC from the depositor into its Gateway balance, to the unit', async () => {
    const depositor = await depositorWith(10n * USDC);
    const walletBefore = await evm.usdcBalance(evm.deployment.gatewayWallet);

    await evm.deposit(depositor.key, 7n * USDC + 3n);

    expect(await evm.usdcBalance(depositor.address)).toBe(3n * USDC - 3n);
    expect(await evm.availableBalance(depositor.address)).toBe(7n * USDC + 3n);
    expect(await evm.usdcBalance(evm.deployment.gatewayWallet)).toBe(walletBefore + 7n * USDC + 3n);
  });

  test('depositFor credits the named depositor, paid from the sender', async () => {
    const sender = await depositorWith(5n * USDC);
    const beneficiary = privateKeyToAccount(generatePrivateKey()).address;

    await evm.depositFor(sender.key, beneficiary, 2n * USDC);

    expect(await evm.usdcBalance(sender.address)).toBe(3n * USDC);
    expect(await evm.availableBalance(beneficiary)).toBe(2n * USDC);
    expect(await evm.availableBalance(sender.address)).toBe(0n);
  });

  test('a deposit of more than the depositor holds is refused by the token, and credits nothing', async () => {
    const depositor = await depositorWith(USDC);
    const error = await refusal(evm.deposit(depositor.key, USDC + 1n));
    expect(error.code).toBe('insufficient_balance');
    expect(await evm.availableBalance(depositor.address)).toBe(0n);
    expect(await evm.usdcBalance(depositor.address)).toBe(USDC);
  });
});

describe('gatewayBurn', () => {
  test('burns value + fee from the depositor balance exactly: the value destroyed, the fee paid', async () => {
    const depositor = await depositorWith(20n * USDC);
    await evm.deposit(depositor.key, 20n * USDC);
    const intent = intentFor(depositor.address, 12n * USDC + 345_678n);
    const fee = 123_457n;
    const before = await snapshot(depositor.address);
    const supplyBefore = await totalSupply();

    const signature = await signBurnIntent(intent, depositor.key);
    const txHash = await evm.gatewayBurn(operatorKey, [{ intent, signature, fee }]);

    const after = await snapshot(depositor.address);
    expect(after.available).toBe(before.available - intent.spec.value - fee);
    expect(after.walletUsdc).toBe(before.walletUsdc - intent.spec.value - fee);
    expect(after.fees).toBe(before.fees + fee);
    expect(await totalSupply()).toBe(supplyBefore - intent.spec.value);

    // The burn is found again by its transfer spec hash, the one the formats compute: its transaction is the
    // trade's gateway_burn.
    const hash = specHashHex(intent);
    expect(await evm.transferSpecHashUsed(hash)).toBe(true);
    const seen = await evm.findBurn(hash);
    expect(seen).toMatchObject({
      txHash,
      transferSpecHash: hash,
      depositor: depositor.address,
      destinationDomain: GATEWAY_DOMAINS.solana,
      value: intent.spec.value,
      fee,
    });
  });

  test('several intents in one call burn each, and one bad intent refuses them all', async () => {
    const alice = await depositorWith(10n * USDC);
    const bob = await depositorWith(10n * USDC);
    await evm.deposit(alice.key, 10n * USDC);
    await evm.deposit(bob.key, 10n * USDC);
    const forAlice = intentFor(alice.address, 4n * USDC);
    const forBob = intentFor(bob.address, 11n * USDC); // more than bob's balance
    const burns = [
      { intent: forAlice, signature: await signBurnIntent(forAlice, alice.key), fee: 1n },
      { intent: forBob, signature: await signBurnIntent(forBob, bob.key), fee: 1n },
    ];

    expect((await refusal(evm.gatewayBurn(operatorKey, burns))).code).toBe('insufficient_balance');
    expect(await evm.availableBalance(alice.address)).toBe(10n * USDC);
    expect(await evm.transferSpecHashUsed(specHashHex(forAlice))).toBe(false);

    const forBobWithin = intentFor(bob.address, 3n * USDC);
    const within = { intent: forBobWithin, signature: await signBurnIntent(forBobWithin, bob.key), fee: 2n };
    const txHash = await evm.gatewayBurn(operatorKey, [burns[0] as (typeof burns)[number], within]);
    expect(await evm.availableBalance(alice.address)).toBe(6n * USDC - 1n);
    expect(await evm.availableBalance(bob.address)).toBe(7n * USDC - 2n);
    expect((await evm.findBurn(specHashHex(forAlice)))?.txHash).toBe(txHash);
    expect((await evm.findBurn(specHashHex(forBobWithin)))?.txHash).toBe(txHash);
  });

  test('a transfer spec burns once: a replay is refused, even re-signed under another maxBlockHeight', async () => {
    const depositor = await depositorWith(10n * USDC);
    await evm.deposit(depositor.key, 10n * USDC);
    const intent = intentFor(depositor.address, 2n * USDC);
    const signature = await signBurnIntent(intent, depositor.key);
    await evm.gatewayBurn(operatorKey, [{ intent, signature, fee: 0n }]);
    const before = await snapshot(depositor.address);

    const replay = await refusal(evm.gatewayBurn(operatorKey, [{ intent, signature, fee: 0n }]));
    expect(replay.code).toBe('transfer_spec_hash_used');
    const resigned = { ...intent, maxBlockHeight: intent.maxBlockHeight + 1n };
    const again = await refusal(
      evm.gatewayBurn(operatorKey, [
        { intent: resigned, signature: await signBurnIntent(resigned, depositor.key), fee: 0n },
      ]),
    );
    expect(again.code).toBe('transfer_spec_hash_used');
    expect(await snapshot(depositor.address)).toEqual(before);
  });

  test('a signature by another key is refused, naming the signer expected and the one recovered', async () => {
    const depositor = await depositorWith(5n * USDC);
    await evm.deposit(depositor.key, 5n * USDC);
    const intent = intentFor(depositor.address, USDC);
    const stranger = generatePrivateKey();
    const before = await snapshot(depositor.address);

    const error = await refusal(
      evm.gatewayBurn(operatorKey, [{ intent, signature: await signBurnIntent(intent, stranger), fee: 0n }]),
    );
    expect(error.code).toBe('invalid_signature');
    expect(error.args).toEqual([depositor.address, privateKeyToAccount(stranger).address]);
    expect(await snapshot(depositor.address)).toEqual(before);
    expect(await evm.transferSpecHashUsed(specHashHex(intent))).toBe(false);
  });

  test("a signature of another intent is refused: the operator cannot raise the depositor's value", async () => {
    const depositor = await depositorWith(5n * USDC);
    await evm.deposit(depositor.key, 5n * USDC);
    const signed = intentFor(depositor.address, USDC);
    const signature = await signBurnIntent(signed, depositor.key);
    const raised = { ...signed, spec: { ...signed.spec, value: 2n * USDC } };

    expect((await refusal(evm.gatewayBurn(operatorKey, [{ intent: raised, signature, fee: 0n }]))).code).toBe(
      'invalid_signature',
    );
    expect(await evm.availableBalance(depositor.address)).toBe(5n * USDC);
  });

  test('a burn above the balance is refused, by one raw unit', async () => {
    const depositor = await depositorWith(5n * USDC);
    await evm.deposit(depositor.key, 5n * USDC);
    const intent = intentFor(depositor.address, 5n * USDC - 9n);
    const signature = await signBurnIntent(intent, depositor.key);
    const before = await snapshot(depositor.address);

    const error = await refusal(evm.gatewayBurn(operatorKey, [{ intent, signature, fee: 10n }]));
    expect(error.code).toBe('insufficient_balance');
    expect(error.args).toEqual([depositor.address, 5n * USDC, 5n * USDC + 1n]);
    expect(await snapshot(depositor.address)).toEqual(before);

    await evm.gatewayBurn(operatorKey, [{ intent, signature, fee: 9n }]);
    expect(await evm.availableBalance(depositor.address)).toBe(0n);
  });

  test('a fee above maxFee is refused; maxFee itself is taken', async () => {
    const depositor = await depositorWith(5n * USDC);
    await evm.deposit(depositor.key, 5n * USDC);
    const intent = intentFor(depositor.address, USDC, { maxFee: 2_010_000n });
    const signature = await signBurnIntent(intent, depositor.key);
    const before = await snapshot(depositor.address);

    const error = await refusal(evm.gatewayBurn(operatorKey, [{ intent, signature, fee: 2_010_001n }]));
    expect(error.code).toBe('fee_above_max_fee');
    expect(await snapshot(depositor.address)).toEqual(before);

    await evm.gatewayBurn(operatorKey, [{ intent, signature, fee: 2_010_000n }]);
    expect(await evm.availableBalance(depositor.address)).toBe(5n * USDC - USDC - 2_010_000n);
  });

  test('only the burn signer burns: the depositor submitting its own signed intent is refused', async () => {
    const depositor = await depositorWith(5n * USDC);
    await evm.deposit(depositor.key, 5n * USDC);
    const intent = intentFor(depositor.address, USDC);
    const signature = await signBurnIntent(intent, depositor.key);

    const error = await refusal(evm.gatewayBurn(depositor.key, [{ intent, signature, fee: 0n }]));
    expect(error.code).toBe('not_burn_signer');
    expect(await evm.availableBalance(depositor.address)).toBe(5n * USDC);
  });

  test('an intent past its maxBlockHeight is refused; at it, it burns', async () => {
    const depositor = await depositorWith(5n * USDC);
    await evm.deposit(depositor.key, 5n * USDC);
    // The burn lands in the block after the current one.
    const next = (await evm.blockNumber()) + 1n;
    const expired = intentFor(depositor.address, USDC, { maxBlockHeight: next - 1n });
    const error = await refusal(
      evm.gatewayBurn(operatorKey, [
        { intent: expired, signature: await signBurnIntent(expired, depositor.key), fee: 0n },
      ]),
    );
    expect(error.code).toBe('burn_intent_expired');

    const node = createTestClient({ mode: 'anvil', transport: http(anvil.url) });
    const live = intentFor(depositor.address, USDC, { maxBlockHeight: (await evm.blockNumber()) + 3n });
    const signature = await signBurnIntent(live, depositor.key);
    await node.mine({ blocks: 2 });
    await evm.gatewayBurn(operatorKey, [{ intent: live, signature, fee: 0n }]);
    expect((await evm.findBurn(specHashHex(live)))?.blockNumber).toBe(live.maxBlockHeight);
  });

  test('an intent for another wallet, token or domain is refused: the EIP-712 domain names no contract', async () => {
    const depositor = await depositorWith(5n * USDC);
    await evm.deposit(depositor.key, 5n * USDC);
    const base = intentFor(depositor.address, USDC);
    const variants: [BurnIntent, string][] = [
      [{ ...base, spec: { ...base.spec, sourceContract: random32() } }, 'wrong_source_contract'],
      [{ ...base, spec: { ...base.spec, sourceToken: random32() } }, 'wrong_source_token'],
      [{ ...base, spec: { ...base.spec, sourceDomain: GATEWAY_DOMAINS.base } }, 'wrong_source_domain'],
      [{ ...base, spec: { ...base.spec, version: 2 } }, 'unsupported_version'],
    ];
    for (const [intent, code] of variants) {
      const signature = await signBurnIntent(intent, depositor.key);
      expect((await refusal(evm.gatewayBurn(operatorKey, [{ intent, signature, fee: 0n }]))).code).toBe(code);
    }
    expect(await evm.availableBalance(depositor.address)).toBe(5n * USDC);
  });

  test('a source signer other than the depositor is refused, even with its own valid signature', async () => {
    const depositor = await depositorWith(5n * USDC);
    await evm.deposit(depositor.key, 5n * USDC);
    const thiefKey = generatePrivateKey();
    const thief = privateKeyToAccount(thiefKey).address;
    const base = intentFor(depositor.address, USDC);
    const intent = { ...base, spec: { ...base.spec, sourceSigner: evmAddressBytes32(thief) } };

    const error = await refusal(
      evm.gatewayBurn(operatorKey, [{ intent, signature: await signBurnIntent(intent, thiefKey), fee: 0n }]),
    );
    expect(error.code).toBe('signer_not_depositor');
    expect(await evm.availableBalance(depositor.address)).toBe(5n * USDC);
  });
});

describe('TypeScript and Solidity agree', () => {
  test("the EIP-712 digest of a known intent is viem's hashTypedData of Circle's published types, and the contract's", async () => {
    const depositor = privateKeyToAccount(generatePrivateKey()).address;
    const intent = intentFor(depositor, 5_000_000n, { maxBlockHeight: (1n << 64n) - 1n, maxFee: 2_010_000n });
    intent.spec.destinationContract = bs58.decode(GATEWAY_SOLANA_PROGRAMS.devnet.minter);
    intent.spec.hookData = Uint8Array.from([0xde, 0xad, 0xbe, 0xef, 0x01]);
    const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}` as Hex;
    const s = intent.spec;
    // Written out from circlefin/skills use-gateway/references/evm-to-solana.md, not imported from the code:
    // the types and the message below are a deliberate independent oracle of eip712.ts and wire.ts, which
    // they repeat on purpose (a fold into the code's own would make the test agree with itself).
    const published = hashTypedData({
      domain: { name: 'GatewayWallet', version: '1' },
      types: {
        TransferSpec: [
          { name: 'version', type: 'uint32' },
          { name: 'sourceDomain', type: 'uint32' },
          { name: 'destinationDomain', type: 'uint32' },
          { name: 'sourceContract', type: 'bytes32' },
          { name: 'destinationContract', type: 'bytes32' },
          { name: 'sourceToken', type: 'bytes32' },
          { name: 'destinationToken', type: 'bytes32' },
          { name: 'sourceDepositor', type: 'bytes32' },
          { name: 'destinationRecipient', type: 'bytes32' },
          { name: 'sourceSigner', type: 'bytes32' },
          { name: 'destinationCaller', type: 'bytes32' },
          { name: 'value', type: 'uint256' },
          { name: 'salt', type: 'bytes32' },
          { name: 'hookData', type: 'bytes' },
        ],
        BurnIntent: [
          { name: 'maxBlockHeight', type: 'uint256' },
          { name: 'maxFee', type: 'uint256' },
          { name: 'spec', type: 'TransferSpec' },
        ],
      },
      primaryType: 'BurnIntent',
      message: {
        maxBlockHeight: intent.maxBlockHeight,
        maxFee: intent.maxFee,
        spec: {
          version: s.version,
          sourceDomain: s.sourceDomain,
          destinationDomain: s.destinationDomain,
          sourceContract: hex(s.sourceContract),
          destinationContract: hex(s.destinationContract),
          sourceToken: hex(s.sourceToken),
          destinationToken: hex(s.destinationToken),
          sourceDepositor: hex(s.sourceDepositor),
          destinationRecipient: hex(s.destinationRecipient),
          sourceSigner: hex(s.sourceSigner),
          destinationCaller: hex(s.destinationCaller),
          value: s.value,
          salt: hex(s.salt),
          hookData: hex(s.hookData),
        },
      },
    });

    expect(burnIntentDigest(intent)).toBe(published);
    expect(await evm.burnIntentDigest(intent)).toBe(published);
  });

  test('the contract hashes a transfer spec as keccak256 of its published byte encoding, hook data included', async () => {
    const depositor = privateKeyToAccount(generatePrivateKey()).address;
    for (const hookData of [new Uint8Array(), new Uint8Array(randomBytes(77))]) {
      const intent = intentFor(depositor, (1n << 200n) + 17n);
      intent.spec.hookData = hookData;
      expect(await evm.transferSpecHash(intent.spec)).toBe(specHashHex(intent));
    }
  });

  test('the malleable twin of a valid signature (s above n/2) is refused on chain and off', async () => {
    const depositor = await depositorWith(5n * USDC);
    await evm.deposit(depositor.key, 5n * USDC);
    const intent = intentFor(depositor.address, USDC);
    const signature = hexToBytes(await signBurnIntent(intent, depositor.key));
    // secp256k1's order n: (r, n − s) with the other recovery id is a second signature of the same key.
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt(`0x${Buffer.from(signature.subarray(32, 64)).toString('hex')}`);
    const twin = new Uint8Array(signature);
    twin.set(hexToBytes(`0x${(n - s).toString(16).padStart(64, '0')}`), 32);
    twin[64] = signature[64] === 27 ? 28 : 27;
    expect(
      await recoverTypedDataAddress({ ...burnIntentTypedData(intent), signature: bytesToHex(twin) }),
    ).toBe(depositor.address);

    const onChain = await refusal(
      evm.gatewayBurn(operatorKey, [{ intent, signature: bytesToHex(twin), fee: 0n }]),
    );
    expect(onChain.code).toBe('invalid_signature');
    expect(onChain.args).toEqual([depositor.address, zeroAddress]);
    await expect(recoverBurnIntentSigner(intent, twin)).rejects.toMatchObject({ code: 'bad_signature' });

    await evm.gatewayBurn(operatorKey, [{ intent, signature: bytesToHex(signature), fee: 0n }]);
    expect(await evm.availableBalance(depositor.address)).toBe(4n * USDC);
  });

  test("a burn intent's signer is recovered off chain as on chain", async () => {
    const key = generatePrivateKey();
    const { address } = privateKeyToAccount(key);
    const intent = intentFor(address, USDC);
    const signature = await signBurnIntent(intent, key);
    expect(await recoverBurnIntentSigner(intent, hexToBytes(signature))).toBe(address);
  });
});
