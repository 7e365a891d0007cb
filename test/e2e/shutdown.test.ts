// npm start as a process: SIGTERM shuts it down gracefully, recording the run's stop time.
import { afterEach, expect, test } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { startServiceProcess } from '../support/process.ts';
import { tempDir } from '../support/service.ts';

const dirs: { remove: () => void }[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

test('SIGTERM stops the service cleanly and records the end of its run', async () => {
  const dir = tempDir('rfq-shutdown-');
  dirs.push(dir);
  const proc = await startServiceProcess(dir.path);
  const health = (await (await fetch(`${proc.url}/v1/health`)).json()) as { run_id: string };
  const exitCode = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
  await proc.stop();
  expect(await exitCode).toBe(0);
  const store = await openStore({ dataDir: dir.path });
  try {
    const [run] = await store.listRuns();
    expect(run?.runId).toBe(health.run_id);
    expect(run?.stoppedAt).toEqual(expect.any(String));
  } finally {
    await store.close();
  }
});

test('npm start brings the embedded Gateway up with the shipped config, and SIGTERM stops its anvil with it', async () => {
  const dir = tempDir('rfq-gateway-start-');
  dirs.push(dir);
  const proc = await startServiceProcess(dir.path, { LOG_LEVEL: 'info' });
  const inventory = (await (await fetch(`${proc.url}/v1/inventory`)).json()) as {
    gateway: { mode: string; domains: { domain: number; available_raw: string }[] } | null;
  };
  // The shipped starting deposit (config/default.json gateway.embedded.evm_deposit_usdc), read at start.
  expect(inventory.gateway?.mode).toBe('embedded');
  expect(inventory.gateway?.domains).toEqual([
    expect.objectContaining({ domain: 6, available_raw: (100_000n * 1_000_000n).toString() }),
  ]);
  const anvil = /"anvil":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(proc.output())?.[1];
  expect(anvil, proc.output()).toBeDefined();
  const chainId = () =>
    fetch(anvil as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
  expect((await chainId()).ok).toBe(true);
  const exitCode = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
  await proc.stop();
  expect(await exitCode).toBe(0);
  await expect(chainId()).rejects.toThrow();
});
