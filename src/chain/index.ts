// Front door of the chain: createChain picks the embedded litesvm chain (default) or a JSON-RPC
// cluster; the port's types and the HTLC client are re-exported from here.

import { type Keypair, PublicKey } from '@solana/web3.js';
import {
  type ChainTiming,
  createEmbeddedChain,
  type EmbeddedChain,
  type GenesisExtension,
} from './embedded/index.ts';
import type { ChainPort } from './port.ts';
import type { PythPublisherOptions } from './pyth/publisher.ts';
import { createRpcChain } from './rpc/index.ts';

export { decodeBase58, encodeBase58 } from '../vocabulary/base58.ts';
export { blockhashRange, messageDifferences, messageShape, wireParts } from './built-message.ts';
export {
  type ChainTiming,
  createEmbeddedChain,
  DEFAULT_TIMING,
  type EmbeddedChain,
  type EmbeddedChainOptions,
  EmbeddedLedger,
  type GenesisContext,
  type GenesisExtension,
  type GenesisProgram,
} from './embedded/index.ts';
export {
  CHAIN_ERROR_CODES,
  ChainError,
  type ChainErrorCode,
  isChainError,
  type TransactionErrorJson,
} from './errors.ts';
export * from './htlc/index.ts';
export { inspectTransaction, type LockInspection, type LockInstructionView } from './inspect.ts';
export { keyBase58, publicKey } from './keys.ts';
export { unsignedWire } from './message.ts';
export {
  type ChainCallRecorder,
  type ChainFailure,
  type ChainMethod,
  METERED_CHAIN_METHODS,
  meterChain,
} from './observed.ts';
export type * from './port.ts';
export * from './pyth/index.ts';
export { createRpcChain, type RpcChainOptions } from './rpc/index.ts';
export { loadKeypairFile, loadOrCreateKeypairFile } from './signer.ts';
export {
  ata,
  classifyMint,
  isNativeMint,
  type MintInfo,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM_ID,
} from './token.ts';
export { takerLockTransaction } from './transactions.ts';
export {
  decodeBase64Transaction,
  isZeroSignature,
  parseWireTransaction,
  summarizeTransaction,
  type TransactionSummary,
  type WireTransaction,
} from './wire.ts';

export type ChainOptions =
  | {
      kind: 'embedded';
      /** The chain's own directory (e.g. DATA_DIR/chain). */
      dataDir: string;
      programId?: PublicKey | string | null;
      makerKeypair: Keypair;
      mints: { address: PublicKey | string; decimals: number; symbol: string }[];
      makerInventory: { mint: PublicKey | string; amount: bigint }[];
      makerLamports?: bigint;
      clock?: () => number;
      /** Pyth price accounts the embedded chain publishes (see pyth/publisher.ts). */
      pyth?: PythPublisherOptions;
      /** What the chain carries from genesis for what is built on it (the embedded venue: src/venue/genesis.ts). */
      extensions?: readonly GenesisExtension[];
      /** Keep real time (slots on the clock, commitments lagging the tip); absent: instant finality. */
      timing?: ChainTiming | null;
    }
  | {
      kind: 'rpc';
      /** JSON-RPC endpoints, the primary first: sends go to all, reads fail over (rpc/endpoints.ts). */
      urls: readonly string[];
      wsUrl?: string;
      /** How far (slots) an endpoint may trail the best known slot and still be believed about absence. */
      maxSlotLag?: number;
      programId: PublicKey | string;
      makerKeypairPath: string;
      priorityFeeMicroLamports?: number;
      maxPriorityFeeMicroLamports?: number;
      priorityFeeRampSeconds?: number;
      computeUnitLimit?: number;
      pollIntervalMs?: number;
    };

/** The embedded chain also offers DevChain (airdrop, advanceClock); check `chain.kind`. */
export function createChain(options: ChainOptions & { kind: 'embedded' }): EmbeddedChain;
export function createChain(options: ChainOptions): ChainPort;
export function createChain(options: ChainOptions): ChainPort {
  if (options.kind === 'rpc') {
    return createRpcChain({
      urls: options.urls,
      ...(options.wsUrl !== undefined ? { wsUrl: options.wsUrl } : {}),
      ...(options.maxSlotLag !== undefined ? { maxSlotLag: options.maxSlotLag } : {}),
      programId: options.programId,
      makerKeypairPath: options.makerKeypairPath,
      ...(options.priorityFeeMicroLamports !== undefined
        ? { priorityFeeMicroLamports: options.priorityFeeMicroLamports }
        : {}),
      ...(options.maxPriorityFeeMicroLamports !== undefined
        ? { maxPriorityFeeMicroLamports: options.maxPriorityFeeMicroLamports }
        : {}),
      ...(options.priorityFeeRampSeconds !== undefined
        ? { priorityFeeRampSeconds: options.priorityFeeRampSeconds }
        : {}),
      ...(options.computeUnitLimit !== undefined ? { computeUnitLimit: options.computeUnitLimit } : {}),
      ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    });
  }
  const { programId, clock, makerLamports, ...rest } = options;
  return createEmbeddedChain({
    ...rest,
    ...(programId ? { programId: typeof programId === 'string' ? new PublicKey(programId) : programId } : {}),
    ...(clock ? { clock } : {}),
    ...(makerLamports !== undefined ? { makerLamports } : {}),
  });
}

/**
 * Whether a transaction is final the moment the chain shows it: the instant embedded chain's (a port that
 * does not say is judged by its kind), never a cluster's or an embedded chain keeping real time.
 */
export const finalOnLanding = (chain: Pick<ChainPort, 'kind' | 'instantFinality'>): boolean =>
  chain.instantFinality ?? chain.kind === 'embedded';

/** Narrowing helper: the dev controls exist only on the embedded chain. */
export const isEmbeddedChain = (chain: ChainPort): chain is EmbeddedChain => chain.kind === 'embedded';
