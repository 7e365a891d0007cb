// Factories for the chain contract suite: one harness per implementation (embedded in process; rpc
// against the loopback server on a random port), wallets that sign like browser wallets, and secrets.

import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ComputeBudgetProgram, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { type ChainTiming, createEmbeddedChain, type EmbeddedChain } from '../../src/chain/embedded/index.ts';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import type { ChainPort, DevChain, UnsignedTransaction } from '../../src/chain/port.ts';
import type { PythPublisherOptions } from '../../src/chain/pyth/publisher.ts';
import { createRpcChain, type RpcChainOptions } from '../../src/chain/rpc/index.ts';
import { NATIVE_MINT } from '../../src/chain/token.ts';
import {
  type ChainServer,
  loopbackDevChain,
  makerFunding,
  startChainServer,
} from '../../src/dev-chain/index.ts';
import { type RpcProxy, startRpcProxy } from './rpc-proxy.ts';

export const USDC = new PublicKey('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
export const SOL = NATIVE_MINT;
export const MINTS = [
  { address: USDC, decimals: 6, symbol: 'USDC' },
  { address: SOL, decimals: 9, symbol: 'SOL' },
];
export const INVENTORY = [
  { mint: USDC, amount: 1_000_000n * 10n ** 6n },
  { mint: SOL, amount: 5_000n * 10n ** 9n },
];

export interface Harness {
  name: 'embedded' | 'rpc';
  chain: ChainPort;
  dev: DevChain;
  maker: Keypair;
  /** The loopback server behind the rpc chain (its call counters); absent for the embedded chain. */
  server?: ChainServer;
  close(): Promise<void>;
}

export const tempDir = (label: string) => mkdtempSync(join(tmpdir(), `chain-${label}-`));

/** What a test may add to the standard chain: a clock it moves, Pyth feeds to publish, real time kept. */
export interface ChainOptions {
  clock?: () => number;
  pyth?: PythPublisherOptions;
  timing?: ChainTiming | null;
}

/** The embedded chain every chain test starts from: the test mints, the maker funded. */
export function testEmbeddedChain(
  dataDir: string,
  maker = Keypair.generate(),
  options: ChainOptions = {},
): EmbeddedChain {
  return createEmbeddedChain({
    dataDir,
    makerKeypair: maker,
    mints: MINTS,
    makerInventory: INVENTORY,
    ...options,
  });
}

/** The loopback chain server with the same genesis, and the maker's keypair file for an rpc client. */
export async function testChainServer(
  dataDir: string,
  maker: Keypair,
  options: ChainOptions = {},
): Promise<{ server: ChainServer; keypairPath: string }> {
  const keypairPath = join(dataDir, 'maker.json');
  writeFileSync(keypairPath, JSON.stringify(Array.from(maker.secretKey)));
  const server = await startChainServer({
    dataDir: join(dataDir, 'chain'),
    port: 0,
    mints: MINTS,
    funding: [makerFunding(maker, INVENTORY)],
    ...options,
  });
  return { server, keypairPath };
}

export async function embeddedHarness(
  dataDir = tempDir('embedded'),
  maker = Keypair.generate(),
): Promise<Harness> {
  const chain = testEmbeddedChain(dataDir, maker);
  return {
    name: 'embedded',
    chain,
    dev: chain,
    maker,
    close: async () => {
      await chain.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function rpcHarness(): Promise<Harness & { server: ChainServer }> {
  const dataDir = tempDir('rpc');
  const maker = Keypair.generate();
  const { server, keypairPath } = await testChainServer(dataDir, maker);
  const chain = createRpcChain({
    url: server.url,
    wsUrl: server.wsUrl,
    programId: DEFAULT_HTLC_PROGRAM_ID,
    makerKeypairPath: keypairPath,
    priorityFeeMicroLamports: 1_000,
    pollIntervalMs: 10,
    rebroadcastIntervalMs: 50,
  });
  return {
    name: 'rpc',
    chain,
    dev: loopbackDevChain(server.url),
    maker,
    server,
    close: async () => {
      await chain.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The rpc chain over several endpoints: `count` proxies (rpc-proxy.ts) in front of one loopback server, the
 * first proxy the primary. Pushes come from the server's own websocket.
 */
export async function rpcEndpointsHarness(
  count = 2,
  options: Partial<RpcChainOptions> = {},
): Promise<Harness & { server: ChainServer; proxies: RpcProxy[]; options: RpcChainOptions }> {
  const dataDir = tempDir('rpc-endpoints');
  const maker = Keypair.generate();
  const { server, keypairPath } = await testChainServer(dataDir, maker);
  const proxies = await Promise.all(Array.from({ length: count }, () => startRpcProxy(server.url)));
  const chainOptions: RpcChainOptions = {
    urls: proxies.map((p) => p.url),
    wsUrl: server.wsUrl,
    programId: DEFAULT_HTLC_PROGRAM_ID,
    makerKeypairPath: keypairPath,
    priorityFeeMicroLamports: 1_000,
    pollIntervalMs: 10,
    rebroadcastIntervalMs: 50,
    requestTimeoutMs: 2_000,
    ...options,
  };
  const chain = createRpcChain(chainOptions);
  return {
    name: 'rpc',
    chain,
    dev: loopbackDevChain(server.url),
    maker,
    server,
    proxies,
    options: chainOptions,
    close: async () => {
      await chain.close();
      await Promise.all(proxies.map((p) => p.close()));
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function secret() {
  const preimage = randomBytes(32);
  return { preimage, hashlock: createHash('sha256').update(preimage).digest() };
}

/** What a browser wallet does with the unsigned lock: sign the bytes exactly as given. */
export function walletSign(unsigned: UnsignedTransaction, wallet: Keypair): string {
  const tx = Transaction.from(Buffer.from(unsigned.transactionBase64, 'base64'));
  tx.partialSign(wallet);
  return tx.serialize().toString('base64');
}

/** A wallet that prepends its own priority fee: a new message on the SAME blockhash, re-signed. */
export function walletSignWithPriorityFee(unsigned: UnsignedTransaction, wallet: Keypair): string {
  const original = Transaction.from(Buffer.from(unsigned.transactionBase64, 'base64'));
  const tx = new Transaction({
    feePayer: wallet.publicKey,
    blockhash: unsigned.recentBlockhash,
    lastValidBlockHeight: unsigned.lastValidBlockHeight,
  }).add(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 5_000 }), ...original.instructions);
  tx.sign(wallet);
  return tx.serialize().toString('base64');
}
