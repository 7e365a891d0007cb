// Whether the chain answers, from the service's own calls: a failed call makes it suspect, a failed probe
// makes it an outage (counted from the first failure), any answer ends it and tells the listeners once.
import { afterEach, describe, expect, test } from 'vitest';
import { ChainReachability } from '../../src/runtime/index.ts';
import { until } from './fake-chain.ts';

/** A chain whose clock answers or not, called only by the probe; the probe reports like the observed port. */
function harness(options: { maxProbeMs?: number } = {}) {
  const chain = { up: true, probes: 0 };
  const reachability: ChainReachability = new ChainReachability({
    firstProbeMs: 5,
    maxProbeMs: options.maxProbeMs ?? 40,
    probe: async () => {
      chain.probes++;
      const failure = chain.up ? null : 'unavailable';
      reachability.chainCall('now', 0, failure);
      if (failure) throw new Error('unreachable');
    },
  });
  const recoveries: number[] = [];
  reachability.onRecovered(() => recoveries.push(Date.now()));
  return { chain, reachability, recoveries };
}

let stop: (() => void) | undefined;
afterEach(() => stop?.());

describe('ChainReachability', () => {
  test('one method failing while the chain answers is no outage: the probe answers, nothing recovers', async () => {
    const { chain, reachability, recoveries } = harness();
    stop = () => reachability.stop();
    reachability.chainCall('tokenBalance', 0, 'unavailable');
    await until(() => chain.probes === 1, 'the probe');
    await new Promise((r) => setTimeout(r, 30));
    expect(reachability.current).toBeNull();
    expect(reachability.unreachableSeconds).toBe(0);
    expect(recoveries).toEqual([]);
    expect(reachability.lastAnsweredAtMs).not.toBeNull();
  });

  test('a failed probe confirms an outage from the first failure; the first answer ends it, once', async () => {
    const { chain, reachability, recoveries } = harness();
    stop = () => reachability.stop();
    chain.up = false;
    const firstFailure = Date.now();
    reachability.chainCall('readEscrowsAndClock', 0, 'unavailable');
    await until(() => reachability.current !== null, 'the outage');
    expect(reachability.current?.sinceMs).toBeGreaterThanOrEqual(firstFailure);
    expect(reachability.current?.sinceMs).toBeLessThanOrEqual(firstFailure + 5);
    // More failures change nothing; the probes go on while it lasts.
    reachability.chainCall('send', 0, 'unavailable');
    const probes = chain.probes;
    await until(() => chain.probes >= probes + 2, 'more probes');
    expect(recoveries).toEqual([]);
    chain.up = true;
    await until(() => recoveries.length === 1, 'the recovery');
    expect(reachability.current).toBeNull();
    reachability.chainCall('now', 0, null);
    expect(recoveries).toHaveLength(1);
  });

  test('any answer ends the outage, not only the probe’s; a refusal is an answer', async () => {
    const { chain, reachability, recoveries } = harness({ maxProbeMs: 60_000 });
    stop = () => reachability.stop();
    chain.up = false;
    reachability.chainCall('now', 0, 'unavailable');
    await until(() => reachability.current !== null, 'the outage');
    reachability.chainCall('send', 0, 'rejected');
    expect(recoveries).toEqual([1].map(() => expect.any(Number)));
    expect(reachability.current).toBeNull();
  });

  test('the probe backs off to its cap while the outage lasts', async () => {
    const { chain, reachability } = harness({ maxProbeMs: 20 });
    stop = () => reachability.stop();
    chain.up = false;
    reachability.chainCall('now', 0, 'unavailable');
    await until(() => chain.probes >= 6, 'six probes');
    // 5, 5 (confirming), 10, 20, 20, 20 ms: capped, never faster than the first.
    expect(reachability.current).not.toBeNull();
  });
});
