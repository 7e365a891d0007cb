// `npm run desk` driven as an operator drives it, against the built service running as a process: the kill
// switch and a pair's pause, fields set and put back, the settings shown and the log read, refusals and
// usage errors with their exit codes — and a pause that survives a kill -9 and a restart.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ServiceProcess, startServiceProcess } from '../support/process.ts';
import { defaultConfigDocument, tempDir, WALLET } from '../support/service.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'operator-token-0123456789abcdef';
const ALICE = 'alice-token-0123456789abcdef';

type Json = ReturnType<typeof JSON.parse>;

let dir: { path: string; remove: () => void };
let configPath: string;
let service: ServiceProcess;

/** `npm run desk -- <args>`, as a shell would run it; answers its exit code and what it printed. */
function desk(
  args: string[],
  env: Record<string, string> = { OPERATOR_TOKEN: TOKEN },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'desk', '--', ...args, '--url', service.url], {
      cwd: ROOT,
      env: { ...process.env, OPERATOR_TOKEN: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const get = async (path: string, token: string | null = TOKEN): Promise<Json> =>
  (
    await fetch(`${service.url}${path}`, {
      ...(token === null ? {} : { headers: { authorization: `Bearer ${token}` } }),
    })
  ).json();
const rfq = async (input: string, output: string): Promise<Json> =>
  (
    await fetch(`${service.url}/v1/rfq`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input_asset: input, output_asset: output, amount: '1', taker_wallet: WALLET }),
    })
  ).json();
const pair = async (input: string, output: string) =>
  ((await get('/v1/pairs', null)).pairs as Json[]).find(
    (p) => p.input_asset === input && p.output_asset === output,
  );

beforeAll(async () => {
  dir = tempDir('rfq-desk-cli-');
  const doc = defaultConfigDocument();
  doc.http.operator_token = TOKEN;
  doc.http.operator_tokens = [{ name: 'alice', token: ALICE }];
  configPath = join(dir.path, 'config.json');
  writeFileSync(configPath, JSON.stringify(doc));
  service = await startServiceProcess(join(dir.path, 'data'), { CONFIG: configPath });
}, 60_000);
afterAll(async () => {
  await service?.kill9();
  dir?.remove();
});

// One operator's session, in order: each command starts from what the one before left.
describe('npm run desk against a running service', { shuffle: false }, () => {
  test('pause --all is the kill switch: printed, in force at once, RFQs rejected', async () => {
    const paused = await desk(['pause', '--all']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout.trim()).toMatch(/^#\d+ desk paused: false -> true$/);
    expect((await rfq('SOL', 'USDC')).reasons[0].check).toBe('pair_enabled');
    const again = await desk(['pause', '--all']);
    expect(again.stdout.trim()).toBe('nothing to change: it already was so');
  });

  test('pause and resume a pair, set its fields and put one back, lift the kill switch', async () => {
    expect((await desk(['pause', 'SOL/USDC'])).code).toBe(0);
    const set = await desk(['set', 'SOL/USDC', 'base_spread_bps=15', 'max_input=500']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('pair:SOL-USDC base_spread_bps: 8 -> 15');
    expect(set.stdout).toContain('pair:SOL-USDC max_input: 2000.000000000 -> 500.000000000');
    expect((await desk(['resume', '--all'])).code).toBe(0);
    // The pair's own pause outlives the kill switch.
    expect((await pair('SOL', 'USDC')).paused).toBe(true);
    expect((await pair('USDC', 'SOL')).paused).toBe(false);
    expect((await desk(['resume', 'sol-usdc'])).code).toBe(0);
    expect(await pair('SOL', 'USDC')).toMatchObject({ paused: false, base_spread_bps: 15 });
    const reset = await desk(['set', 'SOL/USDC', 'max_input=default']);
    expect(reset.stdout.trim()).toMatch(/max_input: 500\.000000000 -> 2000\.000000000$/);
    expect((await rfq('SOL', 'USDC')).status).toBe('accepted');
  });

  test('set on a hedged asset and on the desk', async () => {
    const off = await desk(['set', 'desk', 'sourcing_enabled=off']);
    expect(off.code, off.stderr).toBe(0);
    expect((await get('/v1/desk')).sourcing_enabled).toBe(false);
    expect((await desk(['set', 'desk', 'sourcing_enabled=default'])).code).toBe(0);
    // The test config has no hedging section: the service says so, naming the field.
    const hedged = await desk(['set', 'hedging.SOL', 'band=60']);
    expect(hedged.code).toBe(1);
    expect(hedged.stderr).toContain('asset_not_found');
  });

  test('a change the config would refuse: exit 1, the code and the field printed, nothing changed', async () => {
    const before = await get('/v1/desk');
    const refused = await desk(['set', 'SOL/USDC', 'max_input=0.001']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused \(400 validation_failed\)/);
    expect(refused.stderr).toMatch(/body\.max_input: must not be below min_input/);
    expect(await get('/v1/desk')).toEqual(before);
    const unknown = await desk(['pause', 'SOL/DOGE']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('pair_not_found');
  });

  test('usage errors exit 2 and print the usage; a wrong or missing token exits 1 (401)', async () => {
    for (const args of [
      ['set', 'SOL/USDC', 'colour=red'],
      ['frobnicate'],
      ['pause'],
      ['set', 'SOL/USDC', 'paused=maybe'],
    ]) {
      const res = await desk(args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toContain('usage: npm run desk');
    }
    const wrong = await desk(['show'], { OPERATOR_TOKEN: 'not-the-token-0123456789' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('401 unauthorized');
    expect((await desk(['show'], {})).code).toBe(1);
  });

  test('--token names who made a change; log lists every change newest first', async () => {
    const paused = await desk(['pause', 'USDC/SOL', '--token', ALICE], {});
    expect(paused.code, paused.stderr).toBe(0);
    const log = await desk(['log']);
    expect(log.code).toBe(0);
    const lines = log.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^#\d+ \S+ alice: pair:USDC-SOL paused false -> true$/);
    expect(lines.at(-1)).toMatch(/ operator: desk paused false -> true$/);
    const seqs = lines.map((line) => Number(/^#(\d+)/.exec(line)?.[1]));
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(seqs).toHaveLength(((await get('/v1/desk/changes?limit=500')).changes as Json[]).length);
    expect((await desk(['log', '--limit', '2'])).stdout.trim().split('\n')).toEqual(lines.slice(0, 2));
  });

  test('a pause survives a kill -9 and a restart; show says so, and who set it', async () => {
    expect((await desk(['pause', '--all'])).code).toBe(0);
    await service.kill9();
    service = await startServiceProcess(join(dir.path, 'data'), { CONFIG: configPath });
    const show = await desk(['show']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('desk: PAUSED (kill switch)*');
    expect(show.stdout).toMatch(/USDC\/SOL\s+paused\*/);
    expect(show.stdout).toMatch(/desk paused = true {2}\(#\d+, operator, /);
    expect(show.stdout).toMatch(/pair:USDC-SOL paused = true {2}\(#\d+, alice, /);
    expect((await rfq('USDT', 'USDC')).status).toBe('rejected');
    expect((await desk(['resume', '--all'])).code).toBe(0);
    expect((await rfq('USDT', 'USDC')).status).toBe('accepted');
  });
});
