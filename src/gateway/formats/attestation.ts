// The mint attestation set as Gateway hands it for a Solana destination: the "reduced" encoding (u64
// value and max block height, no source fields) that Circle's GatewayMinter reads, and the attester's
// signature over it as the minter checks it: secp256k1 over the EIP-191 hash of keccak256(attestation),
// r ‖ s ‖ v with v ∈ {27, 28} and a low s; the signer is an EVM address, held by the minter as a bytes32
// with 12 leading zero bytes.
//
// Layout: Circle Gateway "Technical guide for Gateway on Solana", ReducedMintAttestation
//   https://developers.circle.com/gateway/references/solana
// circlefin/solana-gateway-contracts programs/gateway-minter/src/attestation.rs (the layout table and the
// decoder's rules), tests/attestation.ts (offsets); the signature: programs/gateway-minter/src/
// instructions/gateway_mint.rs and shared/src/lib.rs (ethereum_signed_message_hash, recover_evm_signer).

import { concatBytes, FieldReader, FieldWriter } from './codec.ts';
import { formatFail } from './errors.ts';
import { EVM_SIGNATURE_LENGTH, eip191Digest, recoverEvmSigner, signEvm } from './evm-signature.ts';

/** bytes4(keccak256("circle.gateway.ReducedAttestationSet")). */
export const ATTESTATION_SET_MAGIC = 0x10cbb1ec;

export const ATTESTATION_SET_OFFSETS = {
  magic: 0,
  version: 4,
  destinationDomain: 8,
  destinationContract: 12,
  destinationCaller: 44,
  maxBlockHeight: 76,
  numAttestations: 84,
  attestations: 88,
} as const;

/** Offsets inside one element, from the element's start. */
export const ATTESTATION_ELEMENT_OFFSETS = {
  destinationToken: 0,
  destinationRecipient: 32,
  value: 64,
  transferSpecHash: 72,
  hookDataLength: 104,
  hookData: 108,
} as const;

export const ATTESTATION_SIGNATURE_LENGTH = EVM_SIGNATURE_LENGTH;

export interface MintAttestationElement {
  destinationToken: Uint8Array;
  /** The recipient token account (not its owner). */
  destinationRecipient: Uint8Array;
  /** Raw units, u64. */
  value: bigint;
  transferSpecHash: Uint8Array;
  hookData: Uint8Array;
}

export interface MintAttestationSet {
  version: number;
  destinationDomain: number;
  destinationContract: Uint8Array;
  /** All zeros: anyone may submit the mint; else only this key, as the mint's signer. */
  destinationCaller: Uint8Array;
  /** The last slot at which the mint may land; u64. */
  maxBlockHeight: bigint;
  attestations: MintAttestationElement[];
}

export function encodeMintAttestationSet(set: MintAttestationSet): Uint8Array {
  const o = ATTESTATION_SET_OFFSETS;
  const e = ATTESTATION_ELEMENT_OFFSETS;
  if (set.attestations.length === 0)
    formatFail('empty_set', 'an attestation set holds at least one attestation');
  const header = new FieldWriter(o.attestations);
  header.u32(o.magic, ATTESTATION_SET_MAGIC, 'magic');
  header.u32(o.version, set.version, 'version');
  header.u32(o.destinationDomain, set.destinationDomain, 'destinationDomain');
  header.bytes32(o.destinationContract, set.destinationContract, 'destinationContract');
  header.bytes32(o.destinationCaller, set.destinationCaller, 'destinationCaller');
  header.u64(o.maxBlockHeight, set.maxBlockHeight, 'maxBlockHeight');
  header.u32(o.numAttestations, set.attestations.length, 'numAttestations');
  const elements = set.attestations.map((a) => {
    const w = new FieldWriter(e.hookData + a.hookData.length);
    w.bytes32(e.destinationToken, a.destinationToken, 'destinationToken');
    w.bytes32(e.destinationRecipient, a.destinationRecipient, 'destinationRecipient');
    w.u64(e.value, a.value, 'value');
    w.bytes32(e.transferSpecHash, a.transferSpecHash, 'transferSpecHash');
    w.u32(e.hookDataLength, a.hookData.length, 'hookDataLength');
    w.raw(e.hookData, a.hookData);
    return w.bytes;
  });
  return concatBytes([header.bytes, ...elements]);
}

/**
 * The set in `bytes`, by the minter's rules: at least one whole element's worth of bytes, the magic, a
 * non-zero count, every element's hook data inside the buffer, and no byte after the last element.
 */
export function decodeMintAttestationSet(bytes: Uint8Array): MintAttestationSet {
  const o = ATTESTATION_SET_OFFSETS;
  const e = ATTESTATION_ELEMENT_OFFSETS;
  if (bytes.length < o.attestations + e.hookData) {
    formatFail('wrong_length', `an attestation set is at least ${o.attestations + e.hookData} bytes`);
  }
  const r = new FieldReader(bytes);
  const magic = r.u32(o.magic);
  if (magic !== ATTESTATION_SET_MAGIC) {
    formatFail('wrong_magic', `attestation set magic 0x${magic.toString(16).padStart(8, '0')}`);
  }
  const count = r.u32(o.numAttestations);
  if (count === 0) formatFail('empty_set', 'the attestation set holds no attestation');
  const attestations: MintAttestationElement[] = [];
  let at: number = o.attestations;
  for (let i = 0; i < count; i++) {
    if (bytes.length - at < e.hookData) formatFail('wrong_length', `the set ends inside attestation ${i}`);
    const hookLength = r.u32(at + e.hookDataLength);
    if (bytes.length - at - e.hookData < hookLength) {
      formatFail('hook_length', `attestation ${i}'s hook data (${hookLength} bytes) runs past the set`);
    }
    attestations.push({
      destinationToken: r.bytes32(at + e.destinationToken),
      destinationRecipient: r.bytes32(at + e.destinationRecipient),
      value: r.u64(at + e.value),
      transferSpecHash: r.bytes32(at + e.transferSpecHash),
      hookData: r.slice(at + e.hookData, hookLength),
    });
    at += e.hookData + hookLength;
  }
  if (at !== bytes.length)
    formatFail('wrong_length', `${bytes.length - at} bytes follow the last attestation`);
  return {
    version: r.u32(o.version),
    destinationDomain: r.u32(o.destinationDomain),
    destinationContract: r.bytes32(o.destinationContract),
    destinationCaller: r.bytes32(o.destinationCaller),
    maxBlockHeight: r.u64(o.maxBlockHeight),
    attestations,
  };
}

/** The 32 bytes the attester signs: keccak256("\x19Ethereum Signed Message:\n32" ‖ keccak256(attestation)). */
export const attestationDigest = (attestation: Uint8Array): Uint8Array => eip191Digest(attestation);

/** The attester (bytes32, as the minter compares it) whose signature `signature` is over `attestation`;
 * a GatewayFormatError for what the minter refuses outright (length, v, high s). */
export const recoverAttester = (attestation: Uint8Array, signature: Uint8Array): Promise<Uint8Array> =>
  recoverEvmSigner(attestation, signature);

/** The attester's signature of `attestation` (65 bytes, v = 27/28, low s): what the dev attester hands out. */
export const signAttestation = (attestation: Uint8Array, privateKey: `0x${string}`): Promise<Uint8Array> =>
  signEvm(attestation, privateKey);
