// The maker's checks on a gatewayMint before signing it, as pure functions of the transaction and what
// the maker asked for (the burn intent it signed): the minter and USDC the config names, one instruction
// and the maker its only signer, an attestation for Solana and this minter, one element paying exactly the
// intent's value of USDC to the maker's own token account under the intent's transfer spec hash, a
// destination caller that is the maker or anyone, not yet expired, and signed by an attester the maker
// trusts. Every account of the instruction is the one these facts derive. Anything else is refused.

import { TOKEN_PROGRAM_ID } from '@solana/spl-token';
import {
  type PublicKey,
  SystemProgram,
  type Transaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import {
  bytesEqual,
  decodeMintAttestationSet,
  GATEWAY_MINTER_INSTRUCTIONS,
  GatewayFormatError,
  isZero,
  type MintAttestationSet,
  recoverAttester,
  SOLANA_DOMAIN,
} from '../formats/index.ts';
import {
  eventAuthorityAddress,
  minterCustodyAddress,
  minterStateAddress,
  usedTransferSpecHashAddress,
} from './addresses.ts';

export type GatewayMintCheckCode =
  | 'extra_instruction'
  | 'wrong_program'
  | 'malformed_mint'
  | 'extra_signer'
  | 'wrong_accounts'
  | 'wrong_destination'
  | 'foreign_caller'
  | 'expired'
  | 'wrong_mint'
  | 'wrong_recipient'
  | 'wrong_value'
  | 'wrong_transfer_spec'
  | 'untrusted_attester';

export class GatewayMintCheckError extends Error {
  override readonly name = 'GatewayMintCheckError';
  constructor(
    readonly code: GatewayMintCheckCode,
    message: string,
  ) {
    super(message);
  }
}

const fail = (code: GatewayMintCheckCode, message: string): never => {
  throw new GatewayMintCheckError(code, message);
};

export interface MintExpectation {
  /** The GatewayMinter the config names (Circle's on devnet/mainnet, ours on the embedded chain). */
  minter: PublicKey;
  /** The configured USDC mint. */
  usdc: PublicKey;
  /** Pays, signs as destination caller, and owns the recipient account. */
  maker: PublicKey;
  /** The maker's own USDC token account: the intent's destinationRecipient. */
  recipient: PublicKey;
  /** The intent's value, raw units. */
  value: bigint;
  /** keccak256 of the intent's TransferSpec. */
  transferSpecHash: Uint8Array;
  /** The chain's slot now: an attestation whose maxBlockHeight is below it cannot land. */
  slot: bigint;
  /** The attesters the maker trusts, as bytes32 (the minter's own list, read from chain or config). */
  attesters: readonly Uint8Array[];
}

export interface CheckedMint {
  attestation: MintAttestationSet;
  attester: Uint8Array;
}

/** The gatewayMint's Borsh params, all of the data: [12, 0], Vec<u8> attestation, Vec<u8> signature. */
function mintParams(data: Uint8Array): { attestation: Uint8Array; signature: Uint8Array } {
  const [d0, d1] = GATEWAY_MINTER_INSTRUCTIONS.gatewayMint;
  if (data.length < 6 || data[0] !== d0 || data[1] !== d1) fail('malformed_mint', 'not a gatewayMint');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const attestationLength = view.getUint32(2, true);
  if (6 + attestationLength + 4 > data.length) fail('malformed_mint', 'the attestation runs past the data');
  const signatureLength = view.getUint32(6 + attestationLength, true);
  if (10 + attestationLength + signatureLength !== data.length) {
    fail('malformed_mint', 'the signature does not end the data');
  }
  return {
    attestation: data.slice(6, 6 + attestationLength),
    signature: data.slice(10 + attestationLength),
  };
}

/** The accounts of a one-element gatewayMint, as the expectation derives them. */
function checkAccounts(ix: TransactionInstruction, expect: MintExpectation): void {
  const want: [PublicKey, boolean, boolean][] = [
    [expect.maker, true, true],
    [expect.maker, true, false],
    [minterStateAddress(expect.minter), false, false],
    [SystemProgram.programId, false, false],
    [TOKEN_PROGRAM_ID, false, false],
    [eventAuthorityAddress(expect.minter), false, false],
    [expect.minter, false, false],
    [minterCustodyAddress(expect.minter, expect.usdc), false, true],
    [expect.recipient, false, true],
    [usedTransferSpecHashAddress(expect.minter, expect.transferSpecHash), false, true],
  ];
  if (ix.keys.length !== want.length) {
    fail('wrong_accounts', `gatewayMint names ${ix.keys.length} accounts, not ${want.length}`);
  }
  ix.keys.forEach((meta, i) => {
    const [key, isSigner, isWritable] = want[i] as [PublicKey, boolean, boolean];
    if (meta.isSigner && !isSigner)
      fail('extra_signer', `account ${i} (${meta.pubkey.toBase58()}) would sign`);
    if (!meta.pubkey.equals(key) || meta.isSigner !== isSigner || meta.isWritable !== isWritable) {
      fail('wrong_accounts', `account ${i} is ${meta.pubkey.toBase58()}, not ${key.toBase58()} as expected`);
    }
  });
}

function checkAttestation(set: MintAttestationSet, expect: MintExpectation): void {
  if (set.destinationDomain !== SOLANA_DOMAIN) {
    fail('wrong_destination', `the attestation is for domain ${set.destinationDomain}, not Solana`);
  }
  if (!bytesEqual(set.destinationContract, expect.minter.toBytes())) {
    fail('wrong_destination', 'the attestation is for another minter');
  }
  if (!isZero(set.destinationCaller) && !bytesEqual(set.destinationCaller, expect.maker.toBytes())) {
    fail('foreign_caller', 'only another key may submit this attestation');
  }
  if (set.maxBlockHeight < expect.slot) {
    fail('expired', `the attestation expired at slot ${set.maxBlockHeight} (now ${expect.slot})`);
  }
  if (set.attestations.length !== 1)
    fail('extra_instruction', `${set.attestations.length} mints in one attestation`);
  const [e] = set.attestations as [MintAttestationSet['attestations'][number]];
  if (!bytesEqual(e.destinationToken, expect.usdc.toBytes()))
    fail('wrong_mint', 'the attestation mints another token');
  if (!bytesEqual(e.destinationRecipient, expect.recipient.toBytes())) {
    fail('wrong_recipient', 'the attestation pays another token account');
  }
  if (e.value !== expect.value)
    fail('wrong_value', `the attestation mints ${e.value}, the intent ${expect.value}`);
  if (!bytesEqual(e.transferSpecHash, expect.transferSpecHash)) {
    fail('wrong_transfer_spec', "the attestation is for another transfer spec than the maker's intent");
  }
  if (e.hookData.length !== 0) fail('malformed_mint', 'the attestation carries hook data the intent did not');
}

/**
 * Checks the gatewayMint transaction (or its instruction list) before the maker signs it; answers the
 * attestation and its attester, or throws GatewayMintCheckError.
 */
export async function checkMintTransaction(
  tx: Transaction | readonly TransactionInstruction[],
  expect: MintExpectation,
): Promise<CheckedMint> {
  const instructions = Array.isArray(tx) ? tx : (tx as Transaction).instructions;
  if (!Array.isArray(tx)) {
    const t = tx as Transaction;
    if (t.feePayer && !t.feePayer.equals(expect.maker)) fail('extra_signer', 'another key pays the fee');
    if (t.signatures.some((s) => !s.publicKey.equals(expect.maker))) {
      fail('extra_signer', 'the transaction names another signer');
    }
  }
  if (instructions.length !== 1)
    fail('extra_instruction', `${instructions.length} instructions, not one gatewayMint`);
  const ix = instructions[0] as TransactionInstruction;
  if (!ix.programId.equals(expect.minter))
    fail('wrong_program', `${ix.programId.toBase58()} is not the minter`);
  const { attestation, signature } = mintParams(ix.data);
  let set: MintAttestationSet;
  try {
    set = decodeMintAttestationSet(attestation);
  } catch (e) {
    if (e instanceof GatewayFormatError) return fail('malformed_mint', e.message);
    throw e;
  }
  checkAttestation(set, expect);
  checkAccounts(ix, expect);
  let attester: Uint8Array;
  try {
    attester = await recoverAttester(attestation, signature);
  } catch (e) {
    if (e instanceof GatewayFormatError) return fail('untrusted_attester', e.message);
    throw e;
  }
  if (!expect.attesters.some((a) => bytesEqual(a, attester))) {
    fail('untrusted_attester', 'the attestation is signed by no attester the maker trusts');
  }
  return { attestation: set, attester };
}
