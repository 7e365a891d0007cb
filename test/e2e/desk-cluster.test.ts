// The control plane across instances: three built instances over one PostgreSQL (test/support/cluster.ts).
// A change made on one is in force on the others within a second — each instance is watched until it is,
// and the delays measured are printed, not held to a tuned bound (the ceiling is generous); an invalid change
// on any instance changes nothing anywhere; the kill switch set on one stops quotes on every one; a killed
// instance started again comes back with every override; and every instance shows the same log.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Instance, type Json, startCluster, type TestCluster, until } from '../support/cluster.ts';
import { POSTGRES_TESTS } from '../support/postgres.ts';
import { WALLET } from '../support/service.ts';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef01';
/** How long another instance may take before the test gives up: far above the second it is meant to take. */
const CEILING_MS = 15_000;

let cluster: TestCluster;
const delays: number[] = [];

async function call(
  instance: Instance,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${instance.url}${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, json: await res.json() };
}

const desk = async (instance: Instance) => (await call(instance, 'GET', '/v1/desk', ALICE)).json;

/**
 * Makes a change on `on` and waits until every other instance has applied it (its newest change at least
 * the one made): answers the change's answer, and records each instance's delay from the answer.
 */
async function changeEverywhere(
  on: Instance,
  method: 'POST' | 'PATCH',
  path: string,
  token: string,
  body?: unknown,
): Promise<Json> {
  const answer = await call(on, method, path, token, body);
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  const answeredAt = performance.now();
  const seq = Math.max(...answer.json.changes.map((c: Json) => c.seq));
  await Promise.all(
    cluster.instances
      .filter((i) => i !== on)
      .map(async (other) => {
        await until(
          `${other.name} applies change ${seq}`,
          async () => (await desk(other)).applied_seq >= seq,
          CEILING_MS,
          5,
        );
        delays.push(performance.now() - answeredAt);
      }),
  );
  return answer.json;
}

describe.skipIf(!POSTGRES_TESTS)('the desk’s settings across instances', { shuffle: false }, () => {
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 3,
      // Long: three instances starting at once on a loaded machine must not lose a lease (not what this tests).
      leaseTtlSeconds: 10,
      configure: (doc) => {
        doc.http.operator_token = ALICE;
        doc.http.operator_tokens = [{ name: 'bob', token: BOB }];
      },
    });
  }, 180_000);
  afterAll(async () => {
    if (delays.length > 0) {
      const sorted = [...delays].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
      console.log(
        `desk changes applied by the other instances: ${sorted.length} measured, median ${at(0.5).toFixed(1)} ms, ` +
          `p90 ${at(0.9).toFixed(1)} ms, max ${(sorted.at(-1) as number).toFixed(1)} ms`,
      );
    }
    for (const instance of cluster?.instances ?? []) {
      if (instance.child && !instance.child.isRunning())
        console.log(instance.name, instance.child.output().slice(-4000));
    }
    await cluster?.close();
  });

  test('a pair paused on one instance is paused on every one: GET /v1/pairs and RFQs', async () => {
    const [first, second, third] = cluster.instances as [Instance, Instance, Instance];
    await changeEverywhere(first, 'POST', '/v1/desk/pairs/SOL-USDC/pause', ALICE);
    for (const instance of [second, third]) {
      const pairs = (await call(instance, 'GET', '/v1/pairs', null)).json.pairs as Json[];
      expect(pairs.find((p) => p.input_asset === 'SOL' && p.output_asset === 'USDC').paused).toBe(true);
      const quote = await call(instance, 'POST', '/v1/rfq', null, {
        input_asset: 'SOL',
        output_asset: 'USDC',
        amount: '0.1',
        taker_wallet: WALLET,
      });
      expect(quote.json.status).toBe('rejected');
      expect(quote.json.reasons[0].check).toBe('pair_enabled');
    }
    await changeEverywhere(second, 'POST', '/v1/desk/pairs/SOL-USDC/resume', BOB);
  });

  test('terms changed on each instance in turn reach the others within a second', async () => {
    const instances = cluster.instances;
    for (let round = 0; round < 6; round++) {
      const on = instances[round % instances.length] as Instance;
      const spread = 10 + round;
      await changeEverywhere(on, 'PATCH', '/v1/desk/pairs/USDC-SOL', round % 2 ? BOB : ALICE, {
        base_spread_bps: spread,
      });
      for (const other of instances) {
        const pairs = (await call(other, 'GET', '/v1/pairs', null)).json.pairs as Json[];
        expect(pairs.find((p) => p.input_asset === 'USDC' && p.output_asset === 'SOL').base_spread_bps).toBe(
          spread,
        );
      }
    }
    // Not a tuned bound: the measured figures are printed; a second is what the design promises.
    expect(delays.length).toBeGreaterThan(0);
  });

  test('an invalid change is refused on any instance, and nothing changes anywhere', async () => {
    const [first, second] = cluster.instances as [Instance, Instance, Instance];
    const before = await Promise.all(cluster.instances.map(desk));
    const refused = await call(second, 'PATCH', '/v1/desk/pairs/SOL-USDC', BOB, { min_input: '5000' });
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe('validation_failed');
    // Named as the config's validation names it: min_input above the file's max_input.
    expect(refused.json.error.details).toEqual([
      expect.stringMatching(/max_input: must not be below min_input/),
    ]);
    // Another instance's later change is the next in the log: nothing was logged in between.
    await changeEverywhere(first, 'PATCH', '/v1/desk/pairs/USDC-SOL', ALICE, { base_spread_bps: 9 });
    const after = await Promise.all(cluster.instances.map(desk));
    for (const [i, view] of after.entries()) {
      expect(view.applied_seq).toBe((before[i] as Json).applied_seq + 1);
      expect(view.pairs.find((p: Json) => p.pair === 'SOL-USDC').min_input).toBe('0.010000000');
    }
  });

  test('the kill switch on one instance stops quotes on all; a killed instance comes back paused, with every override', async () => {
    const [first, second, third] = cluster.instances as [Instance, Instance, Instance];
    await changeEverywhere(third, 'POST', '/v1/desk/pause', BOB);
    for (const instance of cluster.instances) {
      const quote = await call(instance, 'POST', '/v1/rfq', null, {
        input_asset: 'USDT',
        output_asset: 'USDC',
        amount: '10',
        taker_wallet: WALLET,
      });
      expect(quote.json.status).toBe('rejected');
    }
    const view = await desk(first);
    await cluster.kill9(second);
    await cluster.start(second);
    const restarted = await desk(second);
    expect(restarted.paused).toBe(true);
    expect(restarted.overrides).toEqual(view.overrides);
    expect(restarted.applied_seq).toBe(view.applied_seq);
    await changeEverywhere(second, 'POST', '/v1/desk/resume', ALICE);
    expect((await desk(first)).paused).toBe(false);
  });

  test('every instance shows the same log: every change, with who made it and where', async () => {
    const logs = await Promise.all(
      cluster.instances.map(async (i) => (await call(i, 'GET', '/v1/desk/changes?limit=500', BOB)).json),
    );
    const [log] = logs as [Json, ...Json[]];
    for (const other of logs) expect(other).toEqual(log);
    // pause, resume, six spreads, one more spread, the kill switch and its lifting: 11 changes, none lost.
    expect(log.changes).toHaveLength(11);
    expect(log.changes.map((c: Json) => c.seq)).toEqual(Array.from({ length: 11 }, (_, i) => 11 - i));
    expect(new Set(log.changes.map((c: Json) => c.actor))).toEqual(new Set(['operator', 'bob']));
    const runs = new Set(log.changes.map((c: Json) => c.run_id));
    expect(runs.size).toBeGreaterThanOrEqual(3);
  });
});
