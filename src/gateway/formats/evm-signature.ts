// The EVM signatures Gateway's Solana programs check (recover_evm_signer in circlefin/solana-gateway-
// contracts shared/src/lib.rs): secp256k1 over the EIP-191 hash of keccak256(message), r ‖ s ‖ v with
// v ∈ {27, 28} and a low s; the signer an EVM address, held as a bytes32 with 12 leading zero bytes. The
// attester signs mint attestations so; Gateway's burn signer signs Solana burn data so.

import { hashMessage, keccak256, recoverAddress, toHex } from 'viem';
import { sign } from 'viem/accounts';
import { FieldReader } from './codec.ts';
import { formatFail } from './errors.ts';

export const EVM_SIGNATURE_LENGTH = 65;

/** secp256k1's group order halved: a signature with s above it is refused (malleability). */
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** keccak256("\x19Ethereum Signed Message:\n32" ‖ keccak256(message)): what is signed. */
export function eip191Digest(message: Uint8Array): Uint8Array {
  return hashMessage({ raw: keccak256(message, 'bytes') }, 'bytes');
}

/** An EVM address (20 bytes) as the programs hold a signer: a bytes32 with 12 leading zero bytes. */
export function evmAddressBytes32(address: string): Uint8Array {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) formatFail('out_of_range', `${address} is not an EVM address`);
  const out = new Uint8Array(32);
  out.set(Buffer.from(address.slice(2), 'hex'), 12);
  return out;
}

/**
 * The signer (bytes32) of `message`, refusing what the programs refuse: not 65 bytes, v other than 27/28, a
 * high s. Any other signature recovers some key: the caller compares the answer with the signers it trusts.
 */
export async function recoverEvmSigner(message: Uint8Array, signature: Uint8Array): Promise<Uint8Array> {
  if (signature.length !== EVM_SIGNATURE_LENGTH) {
    formatFail('bad_signature', `an EVM signature is 65 bytes, not ${signature.length}`);
  }
  const v = signature[64];
  if (v !== 27 && v !== 28) formatFail('bad_signature', `recovery id ${v}, not 27 or 28`);
  const s = new FieldReader(signature).u256(32);
  if (s > SECP256K1_HALF_N) formatFail('bad_signature', 'the signature has a high s');
  let address: string;
  try {
    address = await recoverAddress({ hash: toHex(eip191Digest(message)), signature: toHex(signature) });
  } catch {
    return formatFail('bad_signature', 'no key recovers from this signature');
  }
  return evmAddressBytes32(address);
}

/** The signature of `message` by `privateKey` (65 bytes, v = 27/28, low s). */
export async function signEvm(message: Uint8Array, privateKey: `0x${string}`): Promise<Uint8Array> {
  return sign({ hash: toHex(eip191Digest(message)), privateKey, to: 'bytes' });
}
