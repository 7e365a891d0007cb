// The AMM program's fixed address and its committed binary (programs/amm/amm.so).

import { readFileSync } from 'node:fs';
import { PublicKey } from '@solana/web3.js';
import { rootPath } from '../paths.ts';

/** Where the embedded and loopback chains deploy the AMM (generated once; only the public key is kept). */
export const DEFAULT_AMM_PROGRAM_ID = new PublicKey('EBJ1xbLGuBBN1327KM7MYz5Wv2mHXiZ4E9KbV2ks5KNH');

export const AMM_PROGRAM_PATH = rootPath('programs', 'amm', 'amm.so');

export function loadAmmProgram(): Uint8Array {
  return new Uint8Array(readFileSync(AMM_PROGRAM_PATH));
}
