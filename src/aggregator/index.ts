// Front door of the aggregator port: swaps routed through an aggregator in the shape of Jupiter's Swap API
// v1 — Jupiter itself on a real cluster, the embedded venue's API on the embedded chain — quoted against the
// live mid, checked instruction by instruction, and signed by the maker alone (src/aggregator/checks.ts).

import type { PublicKey } from '@solana/web3.js';
import { keyBase58 } from '../chain/keys.ts';
import type { ChainPort } from '../chain/port.ts';
import type { AggregatorConfig } from '../config/index.ts';
import type { Price } from '../money/price.ts';
import type { Ratio } from '../money/ratio.ts';
import { JupiterAggregator } from './jupiter.ts';
import type { AggregatorPort } from './port.ts';

export { checkInstructions, checkQuote, floorOut, READABLE_SWAP_PROGRAMS, swapOf } from './checks.ts';
export {
  AGGREGATOR_ERROR_CODES,
  AggregatorError,
  type AggregatorErrorCode,
  isAggregatorError,
} from './errors.ts';
export { JupiterAggregator, type JupiterAggregatorOptions } from './jupiter.ts';
export { type SwapOutcome, swapOutcome } from './outcome.ts';
export type { AggregatorPort, AggregatorQuote, SignedSwap, SwapQuoteRequest } from './port.ts';
export {
  failedForSlippage,
  routeSlippageBps,
  type Slippage,
  slippageFloor,
  slippageOf,
  swapMinimum,
} from './slippage.ts';
export { landSwap, readSwapOutcome, type SwapLanding, type SwapMints, swapLedger } from './swap.ts';

/**
 * A display-unit mid (output display units per input display unit, as quotes and Pyth give it) as the
 * port's reference: output raw units per input raw unit.
 */
export function rawMid(mid: Price, inputDecimals: number, outputDecimals: number): Ratio {
  const up = outputDecimals - inputDecimals;
  return up >= 0
    ? { num: mid.num * 10n ** BigInt(up), den: mid.den }
    : { num: mid.num, den: mid.den * 10n ** BigInt(-up) };
}

/**
 * The port the config asks for. The base URL is the configured one, or — when none is configured, on an
 * embedded chain — the embedded venue's own API server (`venue.serve()`): real HTTP through the official
 * client either way. `chain` signs for the maker (the service's metered port); `venue` is the embedded
 * chain's venue, when there is one: its pools are trusted beside aggregator.trusted_pools.
 */
export async function openAggregator(a: {
  config: AggregatorConfig;
  chain: Pick<ChainPort, 'makerWallet' | 'signMakerInstructions'>;
  venue?: { serve(): Promise<string>; readonly pools: readonly { pool: PublicKey }[] } | null;
  env?: NodeJS.ProcessEnv;
}): Promise<AggregatorPort> {
  const { config } = a;
  let baseUrl = config.baseUrl;
  if (baseUrl === null) {
    if (!a.venue) {
      throw new Error(
        'aggregator: no base_url configured and no embedded venue to default to (config venue)',
      );
    }
    baseUrl = await a.venue.serve();
  }
  const env = a.env ?? process.env;
  const apiKey = config.apiKeyEnv === null ? null : (env[config.apiKeyEnv] ?? null);
  if (config.apiKeyEnv !== null && !apiKey) {
    throw new Error(`aggregator: api_key_env names ${config.apiKeyEnv}, which is not set`);
  }
  return new JupiterAggregator({
    baseUrl,
    apiKey,
    maxSlippageBps: config.maxSlippageBps,
    maxPriorityFeeLamports: config.maxPriorityFeeLamports,
    allowedPrograms: config.allowedPrograms,
    trustedPools: trustedPools(config, a.venue ?? null),
    timeoutMs: config.timeoutMs,
    chain: a.chain,
  });
}

/** The pools a route may name: the configured ones and the embedded venue's; null when there are neither. */
export function trustedPools(
  config: Pick<AggregatorConfig, 'trustedPools'>,
  venue: { readonly pools: readonly { pool: PublicKey }[] } | null,
): string[] | null {
  if (config.trustedPools === null && venue === null) return null;
  return [...(config.trustedPools ?? []), ...(venue?.pools ?? []).map((p) => keyBase58(p.pool))];
}
