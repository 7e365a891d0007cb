// A proxy in front of the loopback chain's JSON-RPC (and the dev chain's Jupiter-shaped API behind it) that
// a crash test switches to hide the maker's aggregator swaps: v0 transactions, where its escrow transactions
// are legacy. drop: answered as sent, never forwarded; blind: forwarded, but their status reads as unknown,
// so a swap is on chain while the service has not seen it. And the small HTTP helpers those tests share.

import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { clusterConfigDocument } from '../../scripts/cluster/config.ts';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { type ChainServer, configGenesis, startChainServer } from '../../src/dev-chain/index.ts';
import { embeddedVenueOptions } from '../../src/venue/config.ts';
import type { ConfigDocument } from './service.ts';

type Json = ReturnType<typeof JSON.parse>;

/**
 * pass: everything through. drop: the maker's swaps are answered as sent and never reach the chain.
 * blind: they reach the chain, but their status reads as unknown (the service cannot see them land).
 */
export type Mode = 'pass' | 'drop' | 'blind';

export interface SwapProxy {
  url: string;
  mode: Mode;
  /** Signatures of the swaps it saw sent, in order (a rebroadcast repeats one). */
  sent: string[];
  close(): Promise<void>;
}

/** A swap's first signature when the bytes are a v0 transaction, else null. */
function v0Signature(base64: string): string | null {
  const bytes = Buffer.from(base64, 'base64');
  // Signature count as compact-u16 (one byte below 128: the maker's swaps carry one).
  const count = bytes[0] ?? 0;
  const message = 1 + 64 * count;
  if (((bytes[message] ?? 0) & 0x80) === 0) return null;
  return bs58.encode(bytes.subarray(1, 65));
}

const body = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

export async function startSwapProxy(target: string): Promise<SwapProxy> {
  const proxy: SwapProxy = { url: '', mode: 'pass', sent: [], close: async () => {} };
  const swaps = new Set<string>();
  const forward = async (req: IncomingMessage, payload: Buffer) => {
    const res = await fetch(`${target}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
      ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body: payload }),
    });
    return {
      status: res.status,
      text: await res.text(),
      type: res.headers.get('content-type') ?? 'application/json',
    };
  };
  /** One JSON-RPC call: its answer, or undefined to forward it as it is. */
  const intercept = (call: Json): Json | undefined => {
    if (call.method !== 'sendTransaction') return undefined;
    const signature = v0Signature(call.params?.[0] ?? '');
    if (signature === null) return undefined;
    swaps.add(signature);
    proxy.sent.push(signature);
    if (proxy.mode === 'drop') return { jsonrpc: '2.0', id: call.id, result: signature };
    return undefined;
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const payload = await body(req);
      let calls: Json = null;
      if (req.method === 'POST' && (req.url === '/' || req.url === '')) {
        try {
          calls = JSON.parse(payload.toString('utf8'));
        } catch {
          calls = null;
        }
      }
      if (calls !== null && !Array.isArray(calls)) {
        const answer = intercept(calls);
        if (answer !== undefined) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
          return;
        }
      }
      const answer = await forward(req, payload);
      let text = answer.text;
      // Blind: the swaps' statuses read as unknown.
      if (
        proxy.mode === 'blind' &&
        calls !== null &&
        !Array.isArray(calls) &&
        calls.method === 'getSignatureStatuses'
      ) {
        const parsed = JSON.parse(text);
        const asked: string[] = calls.params?.[0] ?? [];
        if (Array.isArray(parsed.result?.value)) {
          parsed.result.value = parsed.result.value.map((v: Json, i: number) =>
            swaps.has(asked[i] ?? '') ? null : v,
          );
        }
        text = JSON.stringify(parsed);
      }
      res.writeHead(answer.status, { 'content-type': answer.type }).end(text);
    })().catch((error: unknown) => {
      res.writeHead(502).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

export async function call(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  payload?: unknown,
): Promise<Json> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: payload === undefined ? {} : { 'content-type': 'application/json' },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });
  return { status: res.status, json: await res.json() };
}

export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 45_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}

/** What a crash test's world opened so far, for its cleanup: filled in as each part starts. */
export interface SwapWorldParts {
  chain?: ChainServer;
  proxy?: SwapProxy;
}

/**
 * The loopback chain with the embedded venue, the swap proxy in front of it (RPC and the Jupiter-shaped
 * API), and a service config on `chain.kind = "rpc"` pointed at the proxy, written under `dir`: what each
 * crash test with an aggregator swap in flight starts from. `doc` is the test's config document.
 */
export async function startSwapWorld(dir: string, doc: ConfigDocument, parts: SwapWorldParts) {
  const config = resolveConfig(doc);
  const maker = Keypair.generate();
  const makerKeypairPath = join(dir, 'maker-keypair.json');
  writeFileSync(makerKeypairPath, JSON.stringify(Array.from(maker.secretKey)), { mode: 0o600 });
  const venue = embeddedVenueOptions(config);
  if (!venue) throw new Error('no venue');
  const chain = await startChainServer({
    dataDir: join(dir, 'chain'),
    port: 0,
    programId: DEFAULT_HTLC_PROGRAM_ID,
    ...configGenesis(config, maker),
    venue,
  });
  parts.chain = chain;
  const proxy = await startSwapProxy(chain.url);
  parts.proxy = proxy;
  const serviceDoc = clusterConfigDocument(doc, {
    url: proxy.url,
    wsUrl: chain.wsUrl,
    programId: DEFAULT_HTLC_PROGRAM_ID.toBase58(),
    makerKeypairPath,
  });
  serviceDoc.aggregator = { kind: 'jupiter', base_url: `${proxy.url}/jupiter/swap/v1` };
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(serviceDoc, null, 2));
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  return { chain, proxy, maker, configPath, dataDir };
}
