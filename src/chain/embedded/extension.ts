// What the embedded chain carries from genesis without knowing what it is: something built on the chain
// (the embedded venue, src/venue/genesis.ts) hands the chain its programs to deploy beside the HTLC's, is
// started once the ledger is open and the Pyth publisher publishes, and is closed with the chain. The chain
// stays the layer below: whoever composes the chain builds the extension and keeps its handle.

import type { PublicKey } from '@solana/web3.js';
import type { PythPublisher } from '../pyth/publisher.ts';
import type { EmbeddedLedger } from './ledger.ts';

export interface GenesisProgram {
  programId: PublicKey;
  program: Uint8Array;
}

/** What an extension is started on. */
export interface GenesisContext {
  readonly ledger: EmbeddedLedger;
  /** The chain's Pyth publisher, already publishing; null when the chain publishes none. */
  readonly pyth: PythPublisher | null;
}

export interface GenesisExtension {
  /** Deployed at genesis (at every start, like the HTLC), each at its fixed id. */
  readonly programs: readonly GenesisProgram[];
  /**
   * Seeds what it needs on the ledger and starts what runs beside it, synchronously. A throw undoes the
   * chain's creation: the extensions started before it are closed, the publisher stopped, the ledger closed.
   */
  start(chain: GenesisContext): void;
  /** Stops what start() started; called once the publisher has stopped, before the ledger closes. */
  close(): Promise<void>;
}

/**
 * Starts each extension in order. When one throws, those already started are told to close, last first (not
 * awaited: the chain's creation is synchronous, and what start() began it stops at once), and the error
 * goes on to the caller, which undoes the rest of the chain.
 */
export function startExtensions(extensions: readonly GenesisExtension[], chain: GenesisContext): void {
  const started: GenesisExtension[] = [];
  try {
    for (const extension of extensions) {
      extension.start(chain);
      started.push(extension);
    }
  } catch (error) {
    for (const extension of started.reverse()) void extension.close().catch(() => {});
    throw error;
  }
}

/** Closes every extension, last first, each even when another failed to; throws the first failure. */
export async function closeExtensions(extensions: readonly GenesisExtension[]): Promise<void> {
  const failures: unknown[] = [];
  for (const extension of [...extensions].reverse()) {
    await extension.close().catch((error: unknown) => failures.push(error));
  }
  if (failures.length > 0) throw failures[0];
}
