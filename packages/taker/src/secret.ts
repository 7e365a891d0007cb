// The swap's secret: 32 random bytes from WebCrypto. The service sees only its SHA-256 (the commitment) until
// the taker reveals it — and the client reveals it only after the maker's lock passed every check on chain.
import { sha256, toHex } from './bytes.ts';

export interface Secret {
  /** 64 hex characters: kept in the taker's store until the trade is over. */
  preimage: string;
  /** sha256(preimage), 64 hex characters: the commitment sent at settlement start. */
  secretHash: string;
}

export async function newSecret(): Promise<Secret> {
  const preimage = crypto.getRandomValues(new Uint8Array(32));
  return { preimage: toHex(preimage), secretHash: toHex(await sha256(preimage)) };
}
