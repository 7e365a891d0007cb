// The committed program binary, found relative to this module so it works from any working directory.

import { readFileSync } from 'node:fs';
import { rootPath } from '../../paths.ts';

export const HTLC_PROGRAM_PATH = rootPath('programs', 'htlc', 'htlc.so');

export function loadHtlcProgram(): Uint8Array {
  return new Uint8Array(readFileSync(HTLC_PROGRAM_PATH));
}
