// `npm run chain` publishes the sponsored Pyth feeds, and its --pyth-* flags freeze, stale or jump them
// from the start, for demos and tests that run the chain as a process of its own.

import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loopbackDevChain } from '../../src/dev-chain/index.ts';
import { tempDir } from './fixtures.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const children: { child: ChildProcess; dataDir: string }[] = [];
afterEach(() => {
  for (const { child, dataDir } of children.splice(0)) {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** Runs the chain's main with the flags; answers its url once it listens, or its exit code and output. */
function runChain(flags: string[]): Promise<{ url: string } | { code: number | null; output: string }> {
  const dataDir = tempDir('pyth-main');
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/dev-chain/main.ts', ...flags], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, CHAIN_PORT: '0', CONFIG: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push({ child, dataDir });
  let output = '';
  return new Promise((resolve) => {
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.includes('"loopback chain listening"'));
      if (line) resolve({ url: JSON.parse(line).url });
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', seen);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('npm run chain with Pyth flags', () => {
  it('publishes the sponsored feeds, stale, frozen and jumped as the flags say', async () => {
    const started = await runChain([
      '--pyth-stale',
      'BONK',
      '--pyth-freeze',
      'usdc',
      '--pyth-jump',
      'SOL:+500',
      '--pyth-interval-ms',
      '0',
    ]);
    if (!('url' in started)) throw new Error(`chain did not start: ${started.output}`);
    const feeds = await loopbackDevChain(started.url).pyth('status');
    expect(feeds.map((f) => [f.symbol, f.mode])).toEqual([
      ['SOL', 'live'],
      ['USDC', 'frozen'],
      ['USDT', 'live'],
      ['BONK', 'stale'],
      ['JUP', 'live'],
    ]);
    // No interval: no walk, so the jump is exactly 5% on the default 150 USD.
    expect(feeds[0]).toMatchObject({ price: '15750000000', exponent: -8 });
  });

  it('refuses a malformed jump and an unknown feed, naming them', async () => {
    const malformed = await runChain(['--pyth-jump', 'SOL']);
    expect(malformed).toMatchObject({ code: 1, output: expect.stringContaining('--pyth-jump SOL') });
    const unknown = await runChain(['--pyth-stale', 'DOGE']);
    expect(unknown).toMatchObject({ code: 1, output: expect.stringContaining('DOGE') });
  });
});
