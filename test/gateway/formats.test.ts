// Gateway's byte formats against the published layouts. The expected offsets below are written out from
// the sources named with each table, not imported from the code under test; each field is read back from
// the encoded bytes with plain Buffer reads at those offsets.

import { generateKeyPairSync, sign } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { keccak256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  type BurnIntent,
  chainOfDomain,
  decodeBurnIntent,
  decodeBurnIntentSet,
  decodeMintAttestationSet,
  decodeSolanaBurnData,
  decodeTransferSpec,
  encodeBurnIntent,
  encodeBurnIntentSet,
  encodeMintAttestationSet,
  encodeSolanaBurnData,
  encodeTransferSpec,
  evmAddressBytes32,
  GATEWAY_DOMAINS,
  GatewayFormatError,
  type GatewayFormatErrorCode,
  type MintAttestationSet,
  recoverAttester,
  signAttestation,
  solanaBurnIntentPayload,
  type TransferSpec,
  transferSpecHash,
  verifySolanaBurnIntent,
} from '../../src/gateway/formats/index.ts';

const u32 = fc.integer({ min: 0, max: 0xffff_ffff });
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const u256 = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const hook = fc.uint8Array({ maxLength: 80 });

const specArb: fc.Arbitrary<TransferSpec> = fc.record({
  version: u32,
  sourceDomain: u32,
  destinationDomain: u32,
  sourceContract: bytes32,
  destinationContract: bytes32,
  sourceToken: bytes32,
  destinationToken: bytes32,
  sourceDepositor: bytes32,
  destinationRecipient: bytes32,
  sourceSigner: bytes32,
  destinationCaller: bytes32,
  value: u256,
  salt: bytes32,
  hookData: hook,
});
const intentArb: fc.Arbitrary<BurnIntent> = fc.record({ maxBlockHeight: u256, maxFee: u256, spec: specArb });
const attestationArb: fc.Arbitrary<MintAttestationSet> = fc.record({
  version: u32,
  destinationDomain: u32,
  destinationContract: bytes32,
  destinationCaller: bytes32,
  maxBlockHeight: u64,
  attestations: fc.array(
    fc.record({
      destinationToken: bytes32,
      destinationRecipient: bytes32,
      value: u64,
      transferSpecHash: bytes32,
      hookData: hook,
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

/** A bytes32 whose every byte is `n`: each field is told apart in the encoding by its fill. */
const filled = (n: number) => new Uint8Array(32).fill(n);
const u256At = (b: Buffer, at: number) => BigInt(`0x${b.subarray(at, at + 32).toString('hex')}`);

const sampleSpec = (over: Partial<TransferSpec> = {}): TransferSpec => ({
  version: 1,
  sourceDomain: 0,
  destinationDomain: 5,
  sourceContract: filled(1),
  destinationContract: filled(2),
  sourceToken: filled(3),
  destinationToken: filled(4),
  sourceDepositor: filled(5),
  destinationRecipient: filled(6),
  sourceSigner: filled(7),
  destinationCaller: filled(8),
  value: 1_234_567_890n,
  salt: filled(9),
  hookData: Uint8Array.from([0xaa, 0xbb, 0xcc]),
  ...over,
});

const sampleAttestation = (): MintAttestationSet => ({
  version: 1,
  destinationDomain: 5,
  destinationContract: filled(0x11),
  destinationCaller: filled(0x12),
  maxBlockHeight: 987_654_321n,
  attestations: [
    {
      destinationToken: filled(0x21),
      destinationRecipient: filled(0x22),
      value: 5_000_000n,
      transferSpecHash: filled(0x23),
      hookData: Uint8Array.from([1, 2]),
    },
    {
      destinationToken: filled(0x31),
      destinationRecipient: filled(0x32),
      value: 7n,
      transferSpecHash: filled(0x33),
      hookData: new Uint8Array(),
    },
  ],
});

const refusedWith = (code: GatewayFormatErrorCode, run: () => unknown) => {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(GatewayFormatError);
    expect((e as GatewayFormatError).code).toBe(code);
    return;
  }
  expect.unreachable(`accepted; expected ${code}`);
};

const withU32At = (bytes: Uint8Array, at: number, value: number) => {
  const b = Buffer.from(bytes);
  b.writeUInt32BE(value, at);
  return new Uint8Array(b);
};

describe('TransferSpec', () => {
  test.prop([specArb])('decode inverts encode', (spec) => {
    expect(decodeTransferSpec(encodeTransferSpec(spec))).toEqual(spec);
  });

  it('lays out every field at the published offset, big-endian', () => {
    // circlefin/solana-gateway-contracts tests/burn_intent.ts, TS_*_OFFSET (the technical guide's
    // "Transfer specification" table: magic 4, version 4, domains 4+4, eight bytes32, value u256,
    // salt bytes32, hook length 4, hook data).
    const b = Buffer.from(encodeTransferSpec(sampleSpec()));
    expect(b.length).toBe(340 + 3);
    expect(b.readUInt32BE(0)).toBe(0xca85def7);
    expect(b.readUInt32BE(4)).toBe(1);
    expect(b.readUInt32BE(8)).toBe(0);
    expect(b.readUInt32BE(12)).toBe(5);
    const addresses: [number, number][] = [
      [16, 1], // sourceContract
      [48, 2], // destinationContract
      [80, 3], // sourceToken
      [112, 4], // destinationToken
      [144, 5], // sourceDepositor
      [176, 6], // destinationRecipient
      [208, 7], // sourceSigner
      [240, 8], // destinationCaller
      [304, 9], // salt
    ];
    for (const [at, fill] of addresses) expect(b.subarray(at, at + 32)).toEqual(Buffer.alloc(32, fill));
    expect(u256At(b, 272)).toBe(1_234_567_890n);
    expect(b.readUInt32BE(336)).toBe(3);
    expect([...b.subarray(340)]).toEqual([0xaa, 0xbb, 0xcc]);
  });

  it('its magic is bytes4(keccak256("circle.gateway.TransferSpec"))', () => {
    expect(keccak256(Buffer.from('circle.gateway.TransferSpec')).slice(0, 10)).toBe('0xca85def7');
  });

  test.prop([specArb])('its hash is keccak256 of the encoding, and changes with every field', (spec) => {
    const hash = transferSpecHash(spec);
    expect(Buffer.from(hash).toString('hex')).toBe(keccak256(encodeTransferSpec(spec)).slice(2));
    const otherSalt = Uint8Array.from(spec.salt, (b, i) => (i === 0 ? b ^ 1 : b));
    expect(transferSpecHash({ ...spec, salt: otherSalt })).not.toEqual(hash);
    expect(transferSpecHash({ ...spec, value: spec.value ^ 1n })).not.toEqual(hash);
  });

  it('refuses a wrong magic, a short buffer, and a hook length that does not match what follows', () => {
    const good = encodeTransferSpec(sampleSpec());
    refusedWith('wrong_magic', () => decodeTransferSpec(withU32At(good, 0, 0x070afbc2)));
    refusedWith('wrong_length', () => decodeTransferSpec(good.subarray(0, 339)));
    refusedWith('hook_length', () => decodeTransferSpec(withU32At(good, 336, 4)));
    refusedWith('hook_length', () => decodeTransferSpec(withU32At(good, 336, 2)));
    refusedWith('hook_length', () => decodeTransferSpec(Uint8Array.from([...good, 0])));
  });

  it('refuses to encode a field its width cannot hold', () => {
    refusedWith('out_of_range', () => encodeTransferSpec(sampleSpec({ value: 1n << 256n })));
    refusedWith('out_of_range', () => encodeTransferSpec(sampleSpec({ value: -1n })));
    refusedWith('out_of_range', () => encodeTransferSpec(sampleSpec({ sourceDomain: 2 ** 32 })));
    refusedWith('out_of_range', () => encodeTransferSpec(sampleSpec({ salt: new Uint8Array(31) })));
  });
});

describe('BurnIntent', () => {
  test.prop([intentArb])('decode inverts encode', (intent) => {
    expect(decodeBurnIntent(encodeBurnIntent(intent))).toEqual(intent);
  });

  test.prop([fc.array(intentArb, { minLength: 1, maxLength: 3 })])(
    'a set decodes to its intents',
    (intents) => {
      expect(decodeBurnIntentSet(encodeBurnIntentSet(intents))).toEqual(intents);
    },
  );

  it('lays out the intent and the set at the published offsets', () => {
    // circlefin/solana-gateway-contracts tests/burn_intent.ts, BI_*_OFFSET: magic 0, maxBlockHeight 4,
    // maxFee 36, transferSpecLength 68, transferSpec 72; a set: magic 0, count 4, intents 8.
    const intent: BurnIntent = { maxBlockHeight: (1n << 64n) - 1n, maxFee: 2_010_000n, spec: sampleSpec() };
    const b = Buffer.from(encodeBurnIntent(intent));
    expect(b.readUInt32BE(0)).toBe(0x070afbc2);
    expect(u256At(b, 4)).toBe((1n << 64n) - 1n);
    expect(u256At(b, 36)).toBe(2_010_000n);
    expect(b.readUInt32BE(68)).toBe(343);
    expect(b.subarray(72)).toEqual(Buffer.from(encodeTransferSpec(intent.spec)));
    const set = Buffer.from(encodeBurnIntentSet([intent, intent]));
    expect(set.readUInt32BE(0)).toBe(0xe999239b);
    expect(set.readUInt32BE(4)).toBe(2);
    expect(set.subarray(8, 8 + b.length)).toEqual(b);
    expect(set.length).toBe(8 + 2 * b.length);
  });

  it('refuses malformed intents and sets', () => {
    const intent: BurnIntent = { maxBlockHeight: 10n, maxFee: 1n, spec: sampleSpec() };
    const good = encodeBurnIntent(intent);
    refusedWith('wrong_magic', () => decodeBurnIntent(withU32At(good, 0, 0xca85def7)));
    refusedWith('wrong_length', () => decodeBurnIntent(good.subarray(0, 411)));
    refusedWith('wrong_length', () => decodeBurnIntent(withU32At(good, 68, 344)));
    refusedWith('wrong_length', () => decodeBurnIntent(Uint8Array.from([...good, 0])));
    refusedWith('wrong_magic', () => decodeBurnIntent(withU32At(good, 72, 0x10cbb1ec)));
    const set = encodeBurnIntentSet([intent]);
    refusedWith('wrong_magic', () => decodeBurnIntentSet(withU32At(set, 0, 0x070afbc2)));
    refusedWith('empty_set', () => decodeBurnIntentSet(withU32At(set, 4, 0)));
    refusedWith('wrong_length', () => decodeBurnIntentSet(withU32At(set, 4, 2)));
    refusedWith('wrong_length', () => decodeBurnIntentSet(Uint8Array.from([...set, 0])));
    refusedWith('empty_set', () => encodeBurnIntentSet([]));
  });

  it('a Solana signer signs 0xff, 15 zero bytes, then the encoded intent, with Ed25519', () => {
    // circlefin/skills use-gateway/references/solana-to-solana.md, signSolanaBurnIntent; tests/burn_data.ts
    // BURN_INTENT_MESSAGE_PREFIX.
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
    const intent: BurnIntent = { maxBlockHeight: 99n, maxFee: 3n, spec: sampleSpec({ sourceSigner: raw }) };
    const payload = solanaBurnIntentPayload(intent);
    expect([...payload.subarray(0, 16)]).toEqual([0xff, ...new Array(15).fill(0)]);
    expect(payload.subarray(16)).toEqual(encodeBurnIntent(intent));
    const signature = sign(null, payload, privateKey);
    expect(verifySolanaBurnIntent(intent, signature)).toBe(true);
    expect(verifySolanaBurnIntent({ ...intent, maxFee: 4n }, signature)).toBe(false);
    expect(verifySolanaBurnIntent(intent, sign(null, encodeBurnIntent(intent), privateKey))).toBe(false);
    expect(
      verifySolanaBurnIntent({ ...intent, spec: { ...intent.spec, sourceSigner: filled(7) } }, signature),
    ).toBe(false);
  });
});

describe('Solana burn data (what gateway_burn takes)', () => {
  test.prop([intentArb, u64, fc.uint8Array({ minLength: 64, maxLength: 64 })])(
    'decode inverts encode',
    (intent, fee, userSignature) => {
      expect(decodeSolanaBurnData(encodeSolanaBurnData({ fee, userSignature, intent }))).toEqual({
        fee,
        userSignature,
        intent,
      });
    },
  );

  it('lays out fee, user signature, prefix and intent at the published offsets', () => {
    // circlefin/solana-gateway-contracts programs/gateway-wallet/src/burn_data.rs: fee (u64) 0, user
    // signature 8, prefix 72, BurnIntent 88; the TransferSpec's source signer at 368, hook data at 500.
    const intent: BurnIntent = { maxBlockHeight: 77n, maxFee: 9n, spec: sampleSpec() };
    const b = Buffer.from(
      encodeSolanaBurnData({ fee: 5n, userSignature: new Uint8Array(64).fill(0xee), intent }),
    );
    expect(b.readBigUInt64BE(0)).toBe(5n);
    expect(b.subarray(8, 72)).toEqual(Buffer.alloc(64, 0xee));
    expect([...b.subarray(72, 88)]).toEqual([0xff, ...new Array(15).fill(0)]);
    expect(b.readUInt32BE(88)).toBe(0x070afbc2);
    expect(b.subarray(368, 400)).toEqual(Buffer.alloc(32, 7));
    expect([...b.subarray(500)]).toEqual([0xaa, 0xbb, 0xcc]);
    refusedWith('wrong_magic', () =>
      decodeSolanaBurnData(Uint8Array.from(b.map((x, i) => (i === 72 ? 0xfe : x)))),
    );
  });
});

describe('mint attestation set (Solana, reduced)', () => {
  test.prop([attestationArb])('decode inverts encode', (set) => {
    expect(decodeMintAttestationSet(encodeMintAttestationSet(set))).toEqual(set);
  });

  it('lays out the header and each element at the published offsets', () => {
    // circlefin/solana-gateway-contracts programs/gateway-minter/src/attestation.rs (its layout table) and
    // tests/attestation.ts: header magic 0, version 4, destination domain 8, destination contract 12,
    // destination caller 44, max block height (u64) 76, count 84, elements 88; element token 0,
    // recipient 32, value (u64) 64, transfer spec hash 72, hook length 104, hook data 108.
    const b = Buffer.from(encodeMintAttestationSet(sampleAttestation()));
    expect(b.readUInt32BE(0)).toBe(0x10cbb1ec);
    expect(b.readUInt32BE(4)).toBe(1);
    expect(b.readUInt32BE(8)).toBe(5);
    expect(b.subarray(12, 44)).toEqual(Buffer.alloc(32, 0x11));
    expect(b.subarray(44, 76)).toEqual(Buffer.alloc(32, 0x12));
    expect(b.readBigUInt64BE(76)).toBe(987_654_321n);
    expect(b.readUInt32BE(84)).toBe(2);
    const first = 88;
    expect(b.subarray(first, first + 32)).toEqual(Buffer.alloc(32, 0x21));
    expect(b.subarray(first + 32, first + 64)).toEqual(Buffer.alloc(32, 0x22));
    expect(b.readBigUInt64BE(first + 64)).toBe(5_000_000n);
    expect(b.subarray(first + 72, first + 104)).toEqual(Buffer.alloc(32, 0x23));
    expect(b.readUInt32BE(first + 104)).toBe(2);
    expect([...b.subarray(first + 108, first + 110)]).toEqual([1, 2]);
    const second = first + 110;
    expect(b.subarray(second, second + 32)).toEqual(Buffer.alloc(32, 0x31));
    expect(b.readBigUInt64BE(second + 64)).toBe(7n);
    expect(b.readUInt32BE(second + 104)).toBe(0);
    expect(b.length).toBe(second + 108);
  });

  it('refuses what the minter refuses: short, wrong magic, empty, hook past the end, trailing bytes', () => {
    const good = encodeMintAttestationSet(sampleAttestation());
    refusedWith('wrong_length', () => decodeMintAttestationSet(good.subarray(0, 88 + 107)));
    refusedWith('wrong_magic', () => decodeMintAttestationSet(withU32At(good, 0, 0xca85def7)));
    refusedWith('empty_set', () => decodeMintAttestationSet(withU32At(good, 84, 0)));
    refusedWith('wrong_length', () => decodeMintAttestationSet(withU32At(good, 84, 1)));
    refusedWith('wrong_length', () => decodeMintAttestationSet(withU32At(good, 84, 3)));
    refusedWith('hook_length', () => decodeMintAttestationSet(withU32At(good, 88 + 110 + 104, 1)));
    refusedWith('wrong_length', () => decodeMintAttestationSet(Uint8Array.from([...good, 0])));
    refusedWith('out_of_range', () =>
      encodeMintAttestationSet({ ...sampleAttestation(), maxBlockHeight: 1n << 64n }),
    );
    refusedWith('empty_set', () => encodeMintAttestationSet({ ...sampleAttestation(), attestations: [] }));
  });

  it('the attester signs the EIP-191 hash of keccak256(attestation); the signer recovers as a bytes32', async () => {
    const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
    const attester = evmAddressBytes32(privateKeyToAccount(key).address);
    expect([...attester.subarray(0, 12)]).toEqual(new Array(12).fill(0));
    const attestation = encodeMintAttestationSet(sampleAttestation());
    const signature = await signAttestation(attestation, key);
    expect(signature.length).toBe(65);
    expect([27, 28]).toContain(signature[64]);
    // The same digest viem's account signs as a personal message of the 32-byte hash.
    const viaAccount = await privateKeyToAccount(key).signMessage({
      message: { raw: keccak256(attestation) },
    });
    expect(Buffer.from(signature).toString('hex')).toBe(viaAccount.slice(2));
    expect(await recoverAttester(attestation, signature)).toEqual(attester);
    const other = withU32At(attestation, 8, 6);
    expect(await recoverAttester(other, signature)).not.toEqual(attester);
  });

  it('refuses a signature of the wrong length, a recovery id other than 27/28, or a high s', async () => {
    const key = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';
    const attestation = encodeMintAttestationSet(sampleAttestation());
    const signature = await signAttestation(attestation, key);
    await expect(recoverAttester(attestation, signature.subarray(0, 64))).rejects.toMatchObject({
      code: 'bad_signature',
    });
    const v0 = Uint8Array.from(signature);
    v0[64] = (signature[64] as number) - 27;
    await expect(recoverAttester(attestation, v0)).rejects.toMatchObject({ code: 'bad_signature' });
    // The same signature with s replaced by n − s (and v flipped) recovers the same key on secp256k1, which
    // is why the minter refuses high s.
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt(`0x${Buffer.from(signature.subarray(32, 64)).toString('hex')}`);
    const high = Uint8Array.from(signature);
    high.set(Buffer.from((n - s).toString(16).padStart(64, '0'), 'hex'), 32);
    high[64] = signature[64] === 27 ? 28 : 27;
    await expect(recoverAttester(attestation, high)).rejects.toMatchObject({ code: 'bad_signature' });
  });
});

describe('domains', () => {
  it('numbers the chains as Circle documents them', () => {
    // circlefin/skills use-gateway/SKILL.md, "Domain IDs", written out again on purpose: an independent
    // oracle of formats/domains.ts, not a copy to fold into it.
    expect(GATEWAY_DOMAINS).toMatchObject({
      ethereum: 0,
      avalanche: 1,
      optimism: 2,
      arbitrum: 3,
      solana: 5,
      base: 6,
    });
    expect(GATEWAY_DOMAINS).toMatchObject({ polygon: 7, unichain: 10, sonic: 13, worldchain: 14, sei: 16 });
    expect(GATEWAY_DOMAINS).toMatchObject({ hyperevm: 19, arc: 26 });
    expect(chainOfDomain(5)).toBe('solana');
    expect(chainOfDomain(4)).toBeUndefined();
  });
});
