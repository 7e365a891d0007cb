// The EIP-712 typed data an EVM depositor signs to let Gateway burn a transfer from its balance: Circle's
// published domain (name and version only: the chain and contract are inside the spec, as sourceDomain and
// sourceContract) and type strings, field for field in the TransferSpec's order. Our GatewayWallet contract
// computes the same digest (programs/gateway-evm/GatewayWallet.sol, burnIntentDigest).
//
// Source: circlefin/skills plugins/circle/skills/use-gateway/references/evm-to-solana.md (eip712Domain,
// eip712Types, signTypedData with primaryType "BurnIntent") and evm-to-evm.md (the EIP712Domain type: name and
// version), https://developers.circle.com/gateway/howtos/transfer-unified-usdc-balance

import { type Hex, hashTypedData, recoverTypedDataAddress, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { BurnIntent } from './burn-intent.ts';
import { FieldReader } from './codec.ts';
import { formatFail } from './errors.ts';
import { ADDRESS_FIELDS, type TransferSpec } from './transfer-spec.ts';

export const BURN_INTENT_EIP712_DOMAIN = { name: 'GatewayWallet', version: '1' } as const;

export const BURN_INTENT_EIP712_TYPES = {
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
} as const;

/** A TransferSpec as typed data (and as the contract's ABI tuple): byte fields in 0x-hex. */
export interface TransferSpecMessage {
  version: number;
  sourceDomain: number;
  destinationDomain: number;
  sourceContract: Hex;
  destinationContract: Hex;
  sourceToken: Hex;
  destinationToken: Hex;
  sourceDepositor: Hex;
  destinationRecipient: Hex;
  sourceSigner: Hex;
  destinationCaller: Hex;
  value: bigint;
  salt: Hex;
  hookData: Hex;
}

export interface BurnIntentMessage {
  maxBlockHeight: bigint;
  maxFee: bigint;
  spec: TransferSpecMessage;
}

const BYTES32_FIELDS = [...ADDRESS_FIELDS, 'salt'] as const;

export function transferSpecMessage(spec: TransferSpec): TransferSpecMessage {
  for (const field of BYTES32_FIELDS) {
    if (spec[field].length !== 32)
      formatFail('out_of_range', `${field} is ${spec[field].length} bytes, not 32`);
  }
  return {
    version: spec.version,
    sourceDomain: spec.sourceDomain,
    destinationDomain: spec.destinationDomain,
    sourceContract: toHex(spec.sourceContract),
    destinationContract: toHex(spec.destinationContract),
    sourceToken: toHex(spec.sourceToken),
    destinationToken: toHex(spec.destinationToken),
    sourceDepositor: toHex(spec.sourceDepositor),
    destinationRecipient: toHex(spec.destinationRecipient),
    sourceSigner: toHex(spec.sourceSigner),
    destinationCaller: toHex(spec.destinationCaller),
    value: spec.value,
    salt: toHex(spec.salt),
    hookData: toHex(spec.hookData),
  };
}

export const burnIntentMessage = (intent: BurnIntent): BurnIntentMessage => ({
  maxBlockHeight: intent.maxBlockHeight,
  maxFee: intent.maxFee,
  spec: transferSpecMessage(intent.spec),
});

/** What a wallet is asked to sign (eth_signTypedData_v4), and what viem hashes. */
export const burnIntentTypedData = (intent: BurnIntent) =>
  ({
    domain: BURN_INTENT_EIP712_DOMAIN,
    types: BURN_INTENT_EIP712_TYPES,
    primaryType: 'BurnIntent',
    message: burnIntentMessage(intent),
  }) as const;

/** The 32 bytes the depositor's key signs: keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(intent)). */
export const burnIntentDigest = (intent: BurnIntent): Hex => hashTypedData(burnIntentTypedData(intent));

/** The depositor's signature of intent: 65 bytes r ‖ s ‖ v, v = 27/28, low s. */
export const signBurnIntent = (intent: BurnIntent, privateKey: Hex): Promise<Hex> =>
  privateKeyToAccount(privateKey).signTypedData(burnIntentTypedData(intent));

/** secp256k1's group order halved: a signature with s above it is refused (malleability), as on chain. */
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/**
 * The EVM address whose key signed intent, refusing what the GatewayWallet refuses: not 65 bytes, v other than
 * 27/28, a high s. Any other signature recovers some address, so the caller compares the answer with the
 * intent's sourceSigner.
 */
export async function recoverBurnIntentSigner(intent: BurnIntent, signature: Uint8Array): Promise<Hex> {
  if (signature.length !== 65)
    formatFail('bad_signature', `a burn intent signature is 65 bytes, not ${signature.length}`);
  const v = signature[64];
  if (v !== 27 && v !== 28) formatFail('bad_signature', `recovery id ${v}, not 27 or 28`);
  if (new FieldReader(signature).u256(32) > SECP256K1_HALF_N)
    formatFail('bad_signature', 'the signature has a high s');
  try {
    return await recoverTypedDataAddress({ ...burnIntentTypedData(intent), signature: toHex(signature) });
  } catch {
    return formatFail('bad_signature', 'no key recovers from this signature');
  }
}
