// kill -9 while group commits are in flight: whatever the service acknowledged — quotes, settlement starts,
// abandons (a transition) — is on disk when the next process starts; what it never answered may or may not
// be. The killed process is busy with many concurrent requests, so the kill lands between and inside
// commits; several kills at different moments make it likely one lands mid-commit.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PublicKey } from '@solana/web3.js';
import { afterEach, expect, test } from 'vitest';
import { type ServiceProcess, startServiceProcess } from '../support/process.ts';
import { defaultConfigDocument, tempDir } from '../support/service.ts';

type Json = ReturnType<typeof JSON.parse>;

let proc: ServiceProcess | undefined;
const dirs: { remove: () => void }[] = [];
afterEach(async () => {
  await proc?.kill9().catch(() => undefined);
  proc = undefined;
  for (const dir of dirs.splice(0)) dir.remove();
});

async function post(base: string, path: string, body: unknown): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const wallet = () => new PublicKey(randomBytes(32)).toBase58();
const rfq = (taker: string) => ({
  input_asset: 'SOL',
  output_asset: 'USDC',
  amount: '0.05',
  taker_wallet: taker,
});

interface Acknowledged {
  quotes: string[];
  trades: string[];
  abandoned: string[];
}

test('a kill -9 during group commits never loses an acknowledged write', async () => {
  const dir = tempDir('rfq-kill-commit-');
  dirs.push(dir);
  const doc = defaultConfigDocument();
  doc.http.rate_limit_per_minute = 10_000_000;
  doc.risk.max_open_per_wallet = 10_000_000;
  const configPath = join(dir.path, 'config.json');
  writeFileSync(configPath, JSON.stringify(doc));
  const dataDir = join(dir.path, 'data');
  const acknowledged: Acknowledged = { quotes: [], trades: [], abandoned: [] };
  let inFlightAtKill = 0;

  const acks = () => acknowledged.quotes.length + acknowledged.trades.length + acknowledged.abandoned.length;
  // Each kill falls once the storm has had that many writes acknowledged, at a different depth each time: by
  // the work done, not by a pause (150, 400 and 700 ms were ~40 acknowledgements on a quiet machine and 8 on
  // a loaded one, too few for the checks below).
  for (const killAfterAcks of [10, 25, 40]) {
    proc = await startServiceProcess(dataDir, { CONFIG: configPath });
    const base = proc.url;
    // Pending trades to abandon during the storm.
    const pending: { tradeId: string; secretHash: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const taker = wallet();
      const quote = await post(base, '/v1/rfq', rfq(taker));
      const secretHash = randomBytes(32).toString('hex');
      const started = await post(base, `/v1/quotes/${quote.json.quote_id}/wallet-settlement`, {
        taker_wallet: taker,
        secret_hash: secretHash,
      });
      expect(started.status).toBe(201);
      pending.push({ tradeId: started.json.trade_id, secretHash });
    }

    let killed = false;
    let inFlight = 0;
    const worker = async (n: number) => {
      for (let i = 0; !killed; i++) {
        inFlight++;
        try {
          if (n < 4 && pending.length > 0) {
            const next = pending.pop() as { tradeId: string; secretHash: string };
            const res = await post(base, `/v1/trades/${next.tradeId}/abandon`, {
              secret_hash: next.secretHash,
            });
            if (res.status === 202) acknowledged.abandoned.push(next.tradeId);
            continue;
          }
          const taker = wallet();
          const quote = await post(base, '/v1/rfq', rfq(taker));
          if (quote.status !== 200) continue;
          acknowledged.quotes.push(quote.json.quote_id);
          if (i % 2 === 0) {
            const started = await post(base, `/v1/quotes/${quote.json.quote_id}/wallet-settlement`, {
              taker_wallet: taker,
              secret_hash: randomBytes(32).toString('hex'),
            });
            if (started.status === 201) acknowledged.trades.push(started.json.trade_id);
          }
        } catch {
          // the connection died with the process: not acknowledged
        } finally {
          inFlight--;
        }
      }
    };
    const before = acks();
    const workers = Array.from({ length: 16 }, (_, n) => worker(n));
    const until = Date.now() + 60_000;
    while (acks() < before + killAfterAcks && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
    inFlightAtKill += inFlight;
    await proc.kill9();
    killed = true;
    await Promise.all(workers);
  }

  // A new process on the same DATA_DIR: everything acknowledged is there.
  proc = await startServiceProcess(dataDir, { CONFIG: configPath });
  const base = proc.url;
  const get = async (path: string) => {
    const res = await fetch(`${base}${path}`);
    return { status: res.status, json: (await res.json()) as Json };
  };
  expect(inFlightAtKill, 'the kills landed while requests were in flight').toBeGreaterThan(0);
  expect(acknowledged.quotes.length).toBeGreaterThan(20);
  expect(acknowledged.trades.length).toBeGreaterThan(5);
  expect(acknowledged.abandoned.length).toBeGreaterThan(0);
  for (const quoteId of acknowledged.quotes) {
    expect((await get(`/v1/quotes/${quoteId}`)).status, `quote ${quoteId}`).toBe(200);
  }
  for (const tradeId of acknowledged.trades) {
    expect((await get(`/v1/trades/${tradeId}`)).status, `trade ${tradeId}`).toBe(200);
  }
  for (const tradeId of acknowledged.abandoned) {
    const trade = await get(`/v1/trades/${tradeId}`);
    expect(trade.json.settlement_status, `abandoned trade ${tradeId}`).toBe('failed');
    expect(trade.json.failure_reason).toBe('abandoned');
  }
  // Four service starts (up to 45 s each on a loaded machine) and the storms between them.
}, 300_000);
