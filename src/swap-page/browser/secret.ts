// The swap's secret: 32 random bytes from WebCrypto; the service only ever sees its SHA-256 until redeem time.

export interface Secret {
  /** 64 hex characters; kept in IndexedDB until the trade is over. */
  preimage: string;
  /** sha256(preimage), 64 hex characters: the commitment sent at settlement start. */
  secretHash: string;
}

export const toHex = (bytes: Uint8Array) =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

export async function newSecret(): Promise<Secret> {
  const preimage = crypto.getRandomValues(new Uint8Array(32));
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', preimage));
  return { preimage: toHex(preimage), secretHash: toHex(hash) };
}
