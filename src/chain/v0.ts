// Maker transactions composed of instructions someone else proposed (an aggregator's swap): compiled into a
// v0 message against the address lookup tables read from the chain, fee payer and only signer the maker,
// signed via node:crypto like every maker transaction. Deciding whether the instructions are safe to sign
// is the caller's job (src/aggregator/checks.ts); this only refuses what could not be the maker's alone.

import {
  type AddressLookupTableAccount,
  type MessageV0,
  type PublicKey,
  TransactionMessage,
} from '@solana/web3.js';
import { encodeBase58 } from '../vocabulary/base58.ts';
import { ChainError } from './errors.ts';
import { keyBase58 } from './keys.ts';
import type { MakerInstructions, SignedMakerTransaction } from './port.ts';
import type { FastSigner } from './signer.ts';
import type { Lifetime } from './transactions.ts';

/** The packet size a transaction must fit (solana_sdk::packet::PACKET_DATA_SIZE). */
const MAX_TRANSACTION_SIZE = 1232;

export interface V0Signing {
  maker: FastSigner;
  lifetime: () => Promise<Lifetime>;
  /** The tables at these addresses as the chain holds them; throws ChainError when one is missing. */
  lookupTables: (addresses: readonly PublicKey[]) => Promise<AddressLookupTableAccount[]>;
}

export async function signMakerInstructions(
  d: V0Signing,
  a: MakerInstructions,
): Promise<SignedMakerTransaction> {
  const maker = keyBase58(d.maker.publicKey);
  for (const [i, ix] of a.instructions.entries()) {
    const other = ix.keys.find((k) => k.isSigner && keyBase58(k.pubkey) !== maker);
    if (other) {
      throw new ChainError(
        'invalid_transaction',
        `instruction ${i} needs the signature of ${keyBase58(other.pubkey)}; the maker signs alone`,
      );
    }
  }
  const tables = a.lookupTables.length > 0 ? await d.lookupTables(a.lookupTables) : [];
  const lifetime = await d.lifetime();
  let message: MessageV0;
  let unsigned: Uint8Array;
  try {
    message = new TransactionMessage({
      payerKey: d.maker.publicKey,
      recentBlockhash: lifetime.blockhash,
      instructions: [...a.instructions],
    }).compileToV0Message(tables);
    unsigned = message.serialize();
  } catch (e) {
    // web3.js refuses what no message can hold (too many keys, an oversized instruction).
    throw new ChainError('invalid_transaction', `cannot compile the v0 message: ${(e as Error).message}`, {
      cause: e,
    });
  }
  if (message.header.numRequiredSignatures !== 1) {
    throw new ChainError('invalid_transaction', 'the maker must be the only signer');
  }
  const signature = d.maker.signMessage(unsigned);
  // Wire form: one signature (compact-u16 count 1), then the message.
  const bytes = Buffer.concat([Buffer.from([1]), Buffer.from(signature), Buffer.from(unsigned)]);
  if (bytes.length > MAX_TRANSACTION_SIZE) {
    throw new ChainError(
      'invalid_transaction',
      `the transaction is ${bytes.length} bytes, above the ${MAX_TRANSACTION_SIZE}-byte packet`,
    );
  }
  return {
    signature: encodeBase58(signature),
    transactionBase64: bytes.toString('base64'),
    lastValidBlockHeight: lifetime.lastValidBlockHeight,
  };
}
