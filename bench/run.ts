// `npm run bench`: hot-path throughput as ratios against baselines measured in the same run, on this
// machine, so the numbers mean something on any box. Targets are ratios; absolute figures are shown only
// for orientation. The load generator shares the process (and the cores) with the server it measures, and
// does so identically for the baseline and the measured route.
import { Agent, request } from 'node:http';
import { Keypair } from '@solana/web3.js';
import Fastify from 'fastify';
import Type from 'typebox';
import { startService } from '../test/support/service.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;

interface Result {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/** Closed-loop load: CONNECTIONS keep-alive clients, each sending the next request when the last answered. */
async function load(url: string, body: () => string, seconds = SECONDS): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const target = new URL(url);
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const payload = body();
      const started = performance.now();
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200) reject(new Error(`${url}: status ${res.statusCode}`));
            latencies.push(performance.now() - started);
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) await one();
    }),
  );
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests: latencies.length, perSecond: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

/** The baseline: a bare Fastify POST validating a body of the RFQ's shape and serializing a ~1 KB answer. */
async function baselineServer() {
  const app = Fastify();
  const answer = { status: 'accepted', padding: 'x'.repeat(900) };
  app.post(
    '/baseline',
    {
      schema: {
        body: Type.Object({
          input_asset: Type.String(),
          output_asset: Type.String(),
          amount: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }),
          taker_wallet: Type.String({ pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' }),
        }),
      },
    },
    async () => answer,
  );
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: `${url}/baseline`, close: () => app.close() };
}

const rows: { name: string; result: Result; ratio: number; target: number }[] = [];
const report = (name: string, result: Result, baseline: Result, target: number) => {
  rows.push({ name, result, ratio: result.perSecond / baseline.perSecond, target });
};

const baseline = await baselineServer();
const service = await startService((doc) => {
  // Enough room that neither the rate limit nor the wallet limit is what gets measured.
  doc.http.rate_limit_per_minute = 10_000_000;
  doc.risk.max_open_per_wallet = 10_000_000;
  doc.quotes.default_expiry_seconds = 1;
});
const serviceUrl = await service.app.listen({ host: '127.0.0.1', port: 0 });
const wallets = Array.from({ length: 64 }, () => Keypair.generate().publicKey.toBase58());
let n = 0;
const rfqBody = () =>
  JSON.stringify({
    input_asset: 'SOL',
    output_asset: 'USDC',
    amount: '1.5',
    taker_wallet: wallets[n++ % wallets.length],
  });

try {
  await load(baseline.url, rfqBody, 1); // warm-up
  await load(`${serviceUrl}/v1/rfq`, rfqBody, 1);
  const base = await load(baseline.url, rfqBody);
  const rfq = await load(`${serviceUrl}/v1/rfq`, rfqBody);
  rows.push({ name: 'baseline: bare validated POST', result: base, ratio: 1, target: 0 });
  // An RFQ prices in exact rationals, runs six risk checks, writes the quote durably (fsync) and reserves
  // it; it should stay within 1/4 of a bare POST.
  report('POST /v1/rfq (durable quote)', rfq, base, 0.25);
} finally {
  await service.dispose();
  await baseline.close();
}

const fmt = (x: number, digits = 0) => x.toFixed(digits).padStart(8);
process.stdout.write(`\n${CONNECTIONS} connections, ${SECONDS} s each, one process\n\n`);
process.stdout.write('route                              req/s     p50 ms   p99 ms   ratio   target\n');
let failed = false;
for (const { name, result, ratio, target } of rows) {
  const ok = ratio >= target;
  failed ||= !ok;
  process.stdout.write(
    `${name.padEnd(32)} ${fmt(result.perSecond)} ${fmt(result.p50, 2)} ${fmt(result.p99, 2)} ${fmt(ratio, 2)} ${target ? `≥ ${target}` : ''} ${target ? (ok ? 'ok' : 'BELOW TARGET') : ''}\n`,
  );
}
process.exit(failed ? 1 : 0);
