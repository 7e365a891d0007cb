// The maker's keypair file (solana CLI format): made when absent, read and checked when present.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterEach, describe, expect, test } from 'vitest';
import { loadKeypairFile, loadOrCreateKeypairFile } from '../../src/chain/index.ts';
import { tempDir } from '../support/service.ts';

const dirs: { remove(): void }[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

function keypairPath(): string {
  const dir = tempDir('rfq-keypair-');
  dirs.push(dir);
  return join(dir.path, 'maker-keypair.json');
}

describe('keypair files', () => {
  test('a new file holds a keypair whose public half is its seed’s, as web3.js derives it', () => {
    const path = keypairPath();
    const made = loadOrCreateKeypairFile(path);
    const secret = Uint8Array.from(JSON.parse(readFileSync(path, 'utf8')) as number[]);
    // Without skipValidation, web3.js derives the public key from the seed itself and refuses a mismatch.
    expect(Keypair.fromSecretKey(secret).publicKey.toBase58()).toBe(made.publicKey.toBase58());
    expect(loadOrCreateKeypairFile(path).publicKey.toBase58()).toBe(made.publicKey.toBase58());
  });

  test('reads a solana CLI keypair file', () => {
    const path = keypairPath();
    const keypair = Keypair.generate();
    writeFileSync(path, JSON.stringify(Array.from(keypair.secretKey)));
    expect(loadKeypairFile(path).secretKey).toEqual(keypair.secretKey);
  });

  test('refuses a file whose public half is not its secret key’s', () => {
    const path = keypairPath();
    const secret = Keypair.generate().secretKey;
    secret.set(Keypair.generate().publicKey.toBytes(), 32);
    writeFileSync(path, JSON.stringify(Array.from(secret)));
    expect(() => loadKeypairFile(path)).toThrow(/not its secret key/);
  });
});
