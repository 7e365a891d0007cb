// The client's checks of an attestation Gateway answers, as pure functions of the answer and the intents the
// depositor signed: one element per intent, in order, each minting exactly the intent's value of its
// destination token to its recipient under its transfer spec hash, with its hook data; the set for the
// intents' destination domain, contract and caller; and, when the caller names the attesters it trusts,
// signed by one of them. Anything else is an attestation_mismatch naming the rule: never a mint.

import { GatewayError } from './errors.ts';
import {
  type BurnIntent,
  bytesEqual,
  decodeMintAttestationSet,
  GatewayFormatError,
  type MintAttestationSet,
  recoverAttester,
  transferSpecHash,
} from './formats/index.ts';

const mismatch = (reason: string, message: string): never => {
  throw new GatewayError('attestation_mismatch', message, { reason });
};

/** The attestation's bytes decoded; malformed bytes are an invalid_answer. */
export function decodeAnswered(attestation: Uint8Array): MintAttestationSet {
  try {
    return decodeMintAttestationSet(attestation);
  } catch (e) {
    if (e instanceof GatewayFormatError) {
      throw new GatewayError('invalid_answer', `the attestation is malformed: ${e.message}`, { cause: e });
    }
    throw e;
  }
}

export function checkAttestationSet(set: MintAttestationSet, intents: readonly BurnIntent[]): void {
  const [first] = intents;
  if (!first)
    throw new GatewayError('attestation_mismatch', 'no intent to check the attestation against', {
      reason: 'no_intent',
    });
  const spec = first.spec;
  if (set.destinationDomain !== spec.destinationDomain) {
    mismatch(
      'wrong_destination',
      `the attestation is for domain ${set.destinationDomain}, not ${spec.destinationDomain}`,
    );
  }
  if (!bytesEqual(set.destinationContract, spec.destinationContract)) {
    mismatch('wrong_destination', 'the attestation is for another destination contract');
  }
  if (!bytesEqual(set.destinationCaller, spec.destinationCaller)) {
    mismatch('foreign_caller', 'the attestation names another destination caller than the intent');
  }
  if (set.attestations.length !== intents.length) {
    mismatch('wrong_count', `${set.attestations.length} elements for ${intents.length} intents`);
  }
  set.attestations.forEach((e, i) => {
    const s = (intents[i] as BurnIntent).spec;
    if (
      s.destinationDomain !== set.destinationDomain ||
      !bytesEqual(s.destinationContract, set.destinationContract)
    ) {
      mismatch('wrong_destination', `intent ${i} is for another destination than the set`);
    }
    if (!bytesEqual(e.destinationToken, s.destinationToken))
      mismatch('wrong_mint', `element ${i} mints another token`);
    if (!bytesEqual(e.destinationRecipient, s.destinationRecipient)) {
      mismatch('wrong_recipient', `element ${i} pays another recipient`);
    }
    if (e.value !== s.value) mismatch('wrong_value', `element ${i} mints ${e.value}, the intent ${s.value}`);
    if (!bytesEqual(e.transferSpecHash, transferSpecHash(s))) {
      mismatch('wrong_transfer_spec', `element ${i} is for another transfer spec`);
    }
    if (!bytesEqual(e.hookData, s.hookData))
      mismatch('wrong_hook_data', `element ${i} carries other hook data`);
  });
}

/** The attester's signature recovers one of `trusted` (bytes32, as the minter holds them). */
export async function checkAttester(
  attestation: Uint8Array,
  signature: Uint8Array,
  trusted: readonly Uint8Array[],
): Promise<void> {
  let attester: Uint8Array;
  try {
    attester = await recoverAttester(attestation, signature);
  } catch (e) {
    if (e instanceof GatewayFormatError) return mismatch('untrusted_attester', e.message);
    throw e;
  }
  if (!trusted.some((t) => bytesEqual(t, attester))) {
    mismatch('untrusted_attester', 'the attestation is signed by no attester the maker trusts');
  }
}
