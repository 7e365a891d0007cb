// Circle Gateway's byte formats: TransferSpec, BurnIntent (and its Solana signing payload), the reduced
// mint attestation set a Solana minter reads and its attester signature, domain numbers, and the Solana
// programs' ids, seeds and discriminators. Pure: no I/O, bigint for every amount and height.

export {
  ATTESTATION_ELEMENT_OFFSETS,
  ATTESTATION_SET_MAGIC,
  ATTESTATION_SET_OFFSETS,
  ATTESTATION_SIGNATURE_LENGTH,
  attestationDigest,
  decodeMintAttestationSet,
  encodeMintAttestationSet,
  type MintAttestationElement,
  type MintAttestationSet,
  recoverAttester,
  signAttestation,
} from './attestation.ts';
export {
  BURN_DATA_OFFSETS,
  decodeSolanaBurnData,
  encodeSolanaBurnData,
  type SolanaBurnData,
} from './burn-data.ts';
export {
  BURN_INTENT_MAGIC,
  BURN_INTENT_OFFSETS,
  BURN_INTENT_SET_MAGIC,
  BURN_INTENT_SET_OFFSETS,
  type BurnIntent,
  decodeBurnIntent,
  decodeBurnIntentSet,
  encodeBurnIntent,
  encodeBurnIntentSet,
  SOLANA_BURN_INTENT_PREFIX,
  solanaBurnIntentPayload,
  verifySolanaBurnIntent,
} from './burn-intent.ts';
export { bytesEqual, isZero, zeroBytes32 } from './codec.ts';
export {
  chainOfDomain,
  GATEWAY_DOMAINS,
  type GatewayChain,
  type GatewayDomain,
  SOLANA_DOMAIN,
} from './domains.ts';
export { GatewayFormatError, type GatewayFormatErrorCode } from './errors.ts';
export {
  EVM_SIGNATURE_LENGTH,
  eip191Digest,
  evmAddressBytes32,
  recoverEvmSigner,
  signEvm,
} from './evm-signature.ts';
export {
  GATEWAY_MINTER_ACCOUNTS,
  GATEWAY_MINTER_INSTRUCTIONS,
  GATEWAY_MINTER_SEEDS,
  GATEWAY_SOLANA_PROGRAMS,
  GATEWAY_WALLET_ACCOUNTS,
  GATEWAY_WALLET_INSTRUCTIONS,
  GATEWAY_WALLET_SEEDS,
  type GatewaySolanaPrograms,
} from './programs.ts';
export {
  decodeTransferSpec,
  encodeTransferSpec,
  TRANSFER_SPEC_FIXED_LENGTH,
  TRANSFER_SPEC_MAGIC,
  TRANSFER_SPEC_OFFSETS,
  type TransferSpec,
  transferSpecHash,
} from './transfer-spec.ts';
