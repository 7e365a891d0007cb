// A front end outside the repository: the package packed (`npm pack`), installed from that tarball into a
// temp folder with its own package.json, and two plain Node scripts there swap against the service as
// `npm start` runs it (the built bundle, its own process). The first quotes, starts and locks, then exits;
// the second, a new process, resumes the swap from the file store, verifies the maker's lock through the
// service's dev RPC and redeems on chain. A TypeScript consumer type-checks against the shipped declarations.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ServiceProcess, startServiceProcess } from '../../../test/support/process.ts';
import { tempDir } from '../../../test/support/service.ts';

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

const work = tempDir('rfq-taker-install-');
let service: ServiceProcess;

beforeAll(async () => {
  service = await startServiceProcess(join(work.path, 'service-data'));
}, 60_000);
afterAll(async () => {
  await service?.stop();
  work.remove();
});

const START = `
import { writeFileSync } from 'node:fs';
import { TakerClient, generateWalletKeys, cryptoKeyWallet } from '@rfq-maker/taker';
import { FileSwapStore } from '@rfq-maker/taker/node';

const url = process.env.SERVICE_URL;
const keys = await generateWalletKeys(true);
const wallet = await cryptoKeyWallet(keys);
writeFileSync('wallet.pkcs8', Buffer.from(await crypto.subtle.exportKey('pkcs8', keys.privateKey)));
writeFileSync('wallet.raw', Buffer.from(await crypto.subtle.exportKey('raw', keys.publicKey)));
const client = new TakerClient({ serviceUrl: url, rpcUrl: url + '/v1/dev/rpc', store: new FileSwapStore('swaps') });
await client.service.airdrop({ wallet: wallet.address, asset: 'USDC', amount: '30' });
const quote = await client.quote({ input_asset: 'USDC', output_asset: 'USDT', amount: '12.5', taker_wallet: wallet.address });
if (quote.status !== 'accepted') throw new Error('rejected');
const record = await client.start(quote, { address: wallet.address, name: 'script' });
await client.lock(record, wallet);
console.log(JSON.stringify({ secretHash: record.secretHash, tradeId: record.tradeId, output: quote.output.amount_raw }));
`;

const FINISH = `
import { readFileSync } from 'node:fs';
import { TakerClient, cryptoKeyWallet } from '@rfq-maker/taker';
import { FileSwapStore } from '@rfq-maker/taker/node';

const url = process.env.SERVICE_URL;
const privateKey = await crypto.subtle.importKey('pkcs8', readFileSync('wallet.pkcs8'), { name: 'Ed25519' }, false, ['sign']);
const publicKey = await crypto.subtle.importKey('raw', readFileSync('wallet.raw'), { name: 'Ed25519' }, true, ['verify']);
const wallet = await cryptoKeyWallet({ privateKey, publicKey });
const client = new TakerClient({ serviceUrl: url, rpcUrl: url + '/v1/dev/rpc', store: new FileSwapStore('swaps') });
const [record] = await client.swaps();
const resumed = await client.resume(record.secretHash);
for (let i = 0; i < 200 && (await client.refresh(resumed)).next_action?.type !== 'redeem'; i++)
  await new Promise((r) => setTimeout(r, 100));
const outcome = await client.redeem(resumed, { via: 'chain', wallet });
let trade = outcome.trade;
for (let i = 0; i < 200 && trade?.settlement_status !== 'redeemed'; i++) {
  await new Promise((r) => setTimeout(r, 100));
  trade = await client.refresh(resumed);
}
console.log(JSON.stringify({
  signature: outcome.signature,
  checks: outcome.verification.checks.map((c) => c.name + ':' + c.ok),
  status: trade.settlement_status,
  kinds: trade.tx_signature_kinds,
}));
`;

const CONSUMER = `
import {
  TakerClient, isMakerError, LockRefusedError, type ErrorCode, type LockReview, type TakerWallet, type Verification,
} from '@rfq-maker/taker';
import { FileSwapStore } from '@rfq-maker/taker/node';
const client: TakerClient = new TakerClient({ serviceUrl: 'http://x', rpcUrl: 'http://y', store: new FileSwapStore('s') });
export const code: ErrorCode = 'lock_not_found';
export async function redeem(secretHash: string, wallet: TakerWallet): Promise<Verification | string> {
  try {
    return (await client.redeem(await client.resume(secretHash), { via: 'service', fallback: wallet })).verification;
  } catch (error) {
    if (isMakerError(error, 'not_redeemable')) return error.code;
    throw error;
  }
}
export async function review(secretHash: string): Promise<LockReview | string[]> {
  try {
    return await client.reviewLock(await client.resume(secretHash));
  } catch (error) {
    if (error instanceof LockRefusedError) return error.checks.map((c) => c.name);
    throw error;
  }
}
`;

describe('the package, installed from a local path into a front end outside the repository', () => {
  test('swaps against the built service from two processes, and type-checks as a dependency', async () => {
    const tarballs = join(work.path, 'tarballs');
    mkdirSync(tarballs);
    await run('npm', ['pack', '--pack-destination', tarballs], { cwd: PACKAGE });
    const [tarball] = readdirSync(tarballs);
    expect(tarball).toMatch(/^rfq-maker-taker-.*\.tgz$/);

    const app = join(work.path, 'front-end');
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'front-end', private: true, type: 'module' }),
    );
    await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', join(tarballs, tarball as string)],
      {
        cwd: app,
      },
    );
    writeFileSync(join(app, 'start.mjs'), START);
    writeFileSync(join(app, 'finish.mjs'), FINISH);
    const env = { ...process.env, SERVICE_URL: service.url };

    const started = JSON.parse((await run(process.execPath, ['start.mjs'], { cwd: app, env })).stdout);
    expect(started.secretHash).toMatch(/^[0-9a-f]{64}$/);
    const finished = JSON.parse((await run(process.execPath, ['finish.mjs'], { cwd: app, env })).stdout);
    expect(finished.checks.every((c: string) => c.endsWith(':true'))).toBe(true);
    expect(finished.status).toBe('redeemed');
    expect(finished.kinds).toContainEqual({ kind: 'taker_redeem', signature: finished.signature });

    writeFileSync(join(app, 'consumer.ts'), CONSUMER);
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const typecheck = await run(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--lib',
        'es2023,dom',
        '--types',
        'node',
        '--typeRoots',
        join(ROOT, 'node_modules', '@types'),
        'consumer.ts',
      ],
      { cwd: app },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }));
    expect(typecheck.stdout).toBe('');
    // A ceiling, not a measure: a pack, an install and a typecheck took over 240 s on oversubscribed cores.
  }, 600_000);
});
