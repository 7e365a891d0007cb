// BurnData: what Gateway's operator hands the Solana GatewayWallet's gateway_burn — the fee it charges, the
// depositor's Ed25519 signature, and the signed message itself (the 16-byte prefix, then the BurnIntent).
// Gateway's burn signer signs it with an EVM key (evm-signature.ts).
//
// Layout (big-endian): circlefin/solana-gateway-contracts programs/gateway-wallet/src/burn_data.rs (its
// layout table and BurnData::new's rules) and tests/burn_data.ts (encodeBurnSignerMessage).

import {
  type BurnIntent,
  decodeBurnIntent,
  encodeBurnIntent,
  SOLANA_BURN_INTENT_PREFIX,
} from './burn-intent.ts';
import { bytesEqual, concatBytes, FieldReader, FieldWriter } from './codec.ts';
import { formatFail } from './errors.ts';

export const BURN_DATA_OFFSETS = {
  fee: 0,
  userSignature: 8,
  prefix: 72,
  burnIntent: 88,
} as const;

export interface SolanaBurnData {
  /** What Gateway charges, raw units (u64); at most the intent's maxFee. */
  fee: bigint;
  /** The depositor's Ed25519 signature of SOLANA_BURN_INTENT_PREFIX ‖ BurnIntent. */
  userSignature: Uint8Array;
  intent: BurnIntent;
}

export function encodeSolanaBurnData(data: SolanaBurnData): Uint8Array {
  const o = BURN_DATA_OFFSETS;
  if (data.userSignature.length !== 64) formatFail('out_of_range', 'an Ed25519 signature is 64 bytes');
  const head = new FieldWriter(o.burnIntent);
  head.u64(o.fee, data.fee, 'fee');
  head.raw(o.userSignature, data.userSignature);
  head.raw(o.prefix, SOLANA_BURN_INTENT_PREFIX);
  return concatBytes([head.bytes, encodeBurnIntent(data.intent)]);
}

export function decodeSolanaBurnData(bytes: Uint8Array): SolanaBurnData {
  const o = BURN_DATA_OFFSETS;
  if (bytes.length < o.burnIntent) formatFail('wrong_length', `burn data is at least ${o.burnIntent} bytes`);
  if (!bytesEqual(bytes.subarray(o.prefix, o.burnIntent), SOLANA_BURN_INTENT_PREFIX)) {
    formatFail('wrong_magic', 'the burn intent message prefix is not 0xff and 15 zero bytes');
  }
  return {
    fee: new FieldReader(bytes).u64(o.fee),
    userSignature: bytes.slice(o.userSignature, o.prefix),
    intent: decodeBurnIntent(bytes.subarray(o.burnIntent)),
  };
}
