// The chain port, observed: every call the service makes to the chain is timed and its outcome reported, by
// port method (a bounded label: the method names of ChainPort), to whoever records it (the metrics, and the
// runtime's view of whether the chain answers). The implementations stay unaware of it.
import { type ChainErrorCode, isChainError } from './errors.ts';
import type { ChainPort } from './port.ts';

/** The port's calls that reach the chain; the rest of the port is read or passed through as is. */
export const METERED_CHAIN_METHODS = [
  'now',
  'blockHeight',
  'latestBlockhash',
  'buildTakerLock',
  'buildTakerRedeem',
  'buildTakerRefund',
  'submitSigned',
  'signMakerLock',
  'signMakerRedeem',
  'signMakerRefund',
  'signMakerCancel',
  'signRedeemFor',
  'signRefundFor',
  'signClose',
  'signMakerInstructions',
  'send',
  'signatureState',
  'confirm',
  'land',
  'readEscrow',
  'signaturesForAddress',
  'getTransaction',
  'readMint',
  'tokenBalance',
  'solBalance',
  'health',
  'readEscrows',
  'readEscrowsAndClock',
  'readPriceUpdates',
] as const satisfies readonly (keyof ChainPort)[];
export type ChainMethod = (typeof METERED_CHAIN_METHODS)[number];

/**
 * What is not metered, named so that a method added to the port without a decision here fails to compile:
 * constants, the push feed (a subscription, not a call), close, and the optional probe of how far finality
 * trails (absent on some ports, so it stays absent here).
 */
const PASSED_THROUGH: Record<Exclude<keyof ChainPort, ChainMethod>, true> = {
  kind: true,
  programId: true,
  makerWallet: true,
  instantFinality: true,
  commitmentSlots: true,
  watchAccounts: true,
  close: true,
};

/** How a failed chain call is counted: the port's error code, or `other` for anything else thrown. */
export type ChainFailure = ChainErrorCode | 'other';

export interface ChainCallRecorder {
  chainCall(method: ChainMethod, seconds: number, failure: ChainFailure | null): void;
}

export function meterChain(chain: ChainPort, recorder: ChainCallRecorder): ChainPort {
  const metered: Record<string, unknown> = {};
  for (const key of Object.keys(PASSED_THROUGH) as (keyof typeof PASSED_THROUGH)[]) {
    const value = chain[key];
    metered[key] = typeof value === 'function' ? value.bind(chain) : value;
  }
  for (const method of METERED_CHAIN_METHODS) {
    // Looked up at each call, as a direct caller would: a port that swaps its methods (a test's outage) still works.
    metered[method] = async (...args: unknown[]) => {
      const started = performance.now();
      try {
        const result = await (chain[method] as (...a: unknown[]) => Promise<unknown>).apply(chain, args);
        recorder.chainCall(method, (performance.now() - started) / 1000, null);
        return result;
      } catch (error) {
        recorder.chainCall(method, (performance.now() - started) / 1000, failureOf(error));
        throw error;
      }
    };
  }
  return metered as unknown as ChainPort;
}

const failureOf = (error: unknown): ChainFailure => (isChainError(error) ? error.code : 'other');
