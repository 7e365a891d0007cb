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
