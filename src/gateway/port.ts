// The Gateway port: what the sourcing step and the rebalancer ask of Circle Gateway (or the dev Gateway that
// stands in for it). Unified balances per domain; a fee estimate for burn intents; a transfer: signed burn
// intents in, an attestation the maker can mint with out — checked against the intents before it is handed
// back; and a transfer's status, whose source burn is the trade's `gateway_burn`. Money is bigint raw units;
// every failure a GatewayError (errors.ts).

import type { BurnIntent, MintAttestationSet } from './formats/index.ts';

/** A burn intent and its depositor's signature: EIP-712 (65 bytes) from an EVM source, Ed25519 (64) from Solana. */
export interface SignedBurnIntent {
  intent: BurnIntent;
  signature: Uint8Array;
}

export interface GatewayBalance {
  domain: number;
  /** The depositor as the API names it: 0x-hex on an EVM domain, base58 on Solana. */
  depositor: string;
  /** What Gateway would attest now: deposits less burns and less what is attested but not burned yet. */
  balance: bigint;
}

export interface FeeEstimate {
  /** One per intent, in the order given: what Gateway charges for it (raw units of the source token). */
  perIntent: bigint[];
  total: bigint;
}

/** An attestation the port has checked against the intents it was asked for: safe to build a mint from. */
export interface GatewayAttestation {
  transferId: string;
  /** The encoded attestation, as the destination minter reads it. */
  attestation: Uint8Array;
  /** The attester's signature of it (65 bytes). */
  signature: Uint8Array;
  /** The attestation decoded. */
  set: MintAttestationSet;
  /** The fees Gateway charges, raw units, burned on the source domains beside the values. */
  fee: bigint;
  /** The last destination block (slot on Solana) at which the mint may land. */
  expirationBlock: bigint;
}

export type GatewayTransferStatus = 'attested' | 'minted' | 'burned' | 'expired';

export interface GatewayTransferState {
  transferId: string;
  status: GatewayTransferStatus;
  /** The source domain's burn transaction, once burned (the trade's `gateway_burn`). */
  burnTxHash: string | null;
}

export interface GatewayPort {
  /** The API base URL in use. */
  readonly baseUrl: string;
  /** The depositor's balance on each of the domains. Throws GatewayError. */
  balances(depositor: string, domains: readonly number[]): Promise<GatewayBalance[]>;
  /** What Gateway would charge for these intents (their maxFee not yet chosen). Throws GatewayError. */
  estimate(intents: readonly BurnIntent[]): Promise<FeeEstimate>;
  /**
   * An attestation for the signed intents, checked: one element per intent, each minting exactly its value of
   * its destination token to its recipient under its transfer spec hash, for its destination domain, minter
   * and caller, signed by a trusted attester, the fee within the intents' maxFee and the cap. Throws
   * GatewayError (attestation_mismatch, fee_above_cap for a hostile or greedy answer).
   */
  transfer(intents: readonly SignedBurnIntent[]): Promise<GatewayAttestation>;
  /** Where the transfer is; throws GatewayError (not_found for an id Gateway does not know). */
  transferStatus(transferId: string): Promise<GatewayTransferState>;
}
