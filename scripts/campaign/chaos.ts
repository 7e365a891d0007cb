// The active phase's damage, on the plan's timeline: outages switched on at the proxy for their seconds,
// and kill -9 of an instance (started again after its delay: for SQLite on the same DATA_DIR). A kill that
// finds its instance still down waits for it to be up first, so every planned kill kills something.
import type { StorePlan } from './plan.ts';
import type { World } from './world.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ChaosRecord {
  kills: { at: number; instance: string; duringOutage: boolean; restartedAt: number | null }[];
  outages: { at: number; seconds: number }[];
}

export async function runChaos(world: World, plan: StorePlan, startedAt: number): Promise<ChaosRecord> {
  const record: ChaosRecord = { kills: [], outages: [] };
  const restarts: Promise<void>[] = [];
  const steps = [
    ...plan.outages.map((o) => ({ atMs: o.atMs, run: () => outage(o.seconds, o.mode) })),
    ...plan.kills.map((k) => ({ atMs: k.atMs, run: () => kill(k) })),
  ].sort((a, b) => a.atMs - b.atMs);

  const outage = async (seconds: number, mode: 'refuse' | 'hang') => {
    world.proxy.control.outage({ seconds }, mode);
    world.note('outage_on', `${seconds} s, ${mode}`);
    record.outages.push({ at: Date.now(), seconds });
    const ends = setTimeout(() => world.note('outage_off', `after ${seconds} s`), seconds * 1000);
    ends.unref();
  };

  const kill = async (k: StorePlan['kills'][number]) => {
    const instance = world.instances[k.instance];
    if (!instance) return;
    // Down already (an earlier kill's restart still to come): kill it once it runs again (answering or
    // still starting: a kill during a start is a moment like any other).
    const waitUntil = Date.now() + 15_000;
    while (!(instance.child?.isRunning() && !instance.killed) && Date.now() < waitUntil) await sleep(100);
    const duringOutage = world.proxy.control.outageStatus().active;
    await world.kill9(instance);
    const entry = {
      at: Date.now(),
      instance: instance.name,
      duringOutage,
      restartedAt: null as number | null,
    };
    record.kills.push(entry);
    restarts.push(
      (async () => {
        await sleep(k.restartAfterMs);
        await world.start(instance);
        entry.restartedAt = Date.now();
      })(),
    );
  };

  for (const step of steps) {
    const wait = startedAt + step.atMs - Date.now();
    if (wait > 0) await sleep(wait);
    await step.run();
  }
  await Promise.all(restarts);
  return record;
}
