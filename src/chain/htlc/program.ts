// The committed program binary, found relative to this module so it works from any working directory.

import { readFileSync } from 'node:fs';

export const HTLC_PROGRAM_PATH = new URL('../../../programs/htlc/htlc.so', import.meta.url);

export function loadHtlcProgram(): Uint8Array {
  return new Uint8Array(readFileSync(HTLC_PROGRAM_PATH));
}
