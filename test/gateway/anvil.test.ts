// anvil as the dev Gateway's EVM node runs it: the registry's binary on a free loopback port, gone on stop()
// and gone with the process that started it, however that process ends (kill -9 included).

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { ANVIL_DEFAULT_CHAIN_ID, anvilBinary } from '../../src/gateway/evm/index.ts';

const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Starts the child script in mode; answers it and a reader of its next JSON line. */
function child(mode: 'kill' | 'stop') {
  const process_ = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./anvil-child.ts', import.meta.url)), mode],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(process_);
  const lines: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let buffer = '';
  process_.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const part of parts) lines.push(JSON.parse(part));
    for (const wake of waiters.splice(0)) wake();
  });
  const next = async (): Promise<Record<string, unknown>> => {
    while (lines.length === 0) await new Promise<void>((resolve) => waiters.push(resolve));
    return lines.shift() as Record<string, unknown>;
  };
  return { process: process_, next };
}

async function chainId(url: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    signal: AbortSignal.timeout(5_000),
  });
  return Number(((await response.json()) as { result: string }).result);
}

const refuses = (url: string) =>
  chainId(url).then(
    () => false,
    () => true,
  );

/** Waits until the node at url no longer answers (a condition, polled; the test's timeout is the ceiling). */
async function gone(url: string): Promise<void> {
  while (!(await refuses(url))) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('anvil', () => {
  test("is the registry's platform binary, run directly", () => {
    expect(anvilBinary('linux', 'x64')).toMatch(/@foundry-rs\/anvil-linux-amd64\/bin\/anvil$/);
    expect(() => anvilBinary('sunos', 'x64')).toThrow(/no npm package for sunos-x64/);
  });

  test('listens on a loopback port of its own, and stop() ends it', async () => {
    const { next } = child('stop');
    const { url } = (await next()) as { url: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The child stops it at once; it may or may not have answered in between, but after `stopped` it is gone.
    expect(await next()).toEqual({ stopped: true });
    expect(await refuses(url)).toBe(true);
  });

  test('dies with the process that started it, even by kill -9', async () => {
    const started = child('kill');
    const { url } = (await started.next()) as { url: string };
    expect(await chainId(url)).toBe(ANVIL_DEFAULT_CHAIN_ID);

    started.process.kill('SIGKILL');
    await gone(url);
    expect(await refuses(url)).toBe(true);
  });
});
