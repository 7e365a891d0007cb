// An EVM key kept in a file beside the maker's Solana keypair: made once (0x-hex, mode 0600), the same after
// every restart, as loadOrCreateKeypairFile keeps the maker's.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Hex } from 'viem';
import { generatePrivateKey } from 'viem/accounts';

export function loadOrCreateEvmKeyFile(path: string): Hex {
  if (existsSync(path)) {
    const key = readFileSync(path, 'utf8').trim();
    if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new Error(`${path} does not hold a 32-byte 0x-hex key`);
    return key as Hex;
  }
  const key = generatePrivateKey();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
