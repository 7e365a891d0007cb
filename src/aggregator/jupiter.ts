// The aggregator port over Jupiter's Swap API v1, through Jupiter's own client (@jup-ag/api) and fetch: the
// same code path whether the base URL is Jupiter's (a real cluster) or the embedded venue's (npm start,
// tests). `createJupiterApiClient` always points at Jupiter's servers, so the client's SwapApi is built
// here from a Configuration with the configured base path.

import { Configuration, FetchError, type QuoteResponse, ResponseError, SwapApi } from '@jup-ag/api';
import { PublicKey } from '@solana/web3.js';
import { keyBase58 } from '../chain/keys.ts';
import type { ChainPort } from '../chain/port.ts';
import { checkInstructions, checkQuote, READABLE_SWAP_PROGRAMS } from './checks.ts';
import { AggregatorError } from './errors.ts';
import type { AggregatorPort, AggregatorQuote, SignedSwap, SwapQuoteRequest } from './port.ts';

export interface JupiterAggregatorOptions {
  baseUrl: string;
  /** Sent as x-api-key (Jupiter's keyed endpoint, https://api.jup.ag/swap/v1). */
  apiKey?: string | null;
  maxSlippageBps: number;
  maxPriorityFeeLamports: bigint;
  allowedPrograms: readonly string[];
  /** The pools a route may name (base58); null or absent: not pinned. */
  trustedPools?: readonly string[] | null;
  timeoutMs: number;
  /** Signs for the maker, and reads lookup tables (the chain port). */
  chain: Pick<ChainPort, 'makerWallet' | 'signMakerInstructions'>;
  /** Replaces fetch (tests of an aggregator that misbehaves). */
  fetchApi?: typeof fetch;
}

/** Error codes Jupiter answers with a 400 when there is simply no route. */
const NO_ROUTE_CODES = new Set(['COULD_NOT_FIND_ANY_ROUTE', 'NO_ROUTES_FOUND', 'TOKEN_NOT_TRADABLE']);

export class JupiterAggregator implements AggregatorPort {
  readonly baseUrl: string;
  private readonly api: SwapApi;
  private readonly maker: PublicKey;
  private readonly trustedPools: ReadonlySet<string> | null;

  constructor(private readonly options: JupiterAggregatorOptions) {
    for (const program of options.allowedPrograms) {
      if (!READABLE_SWAP_PROGRAMS.includes(program)) {
        throw new Error(
          `aggregator: allowed program ${program} is not one whose swap the port can check (${READABLE_SWAP_PROGRAMS.join(', ')})`,
        );
      }
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.maker = options.chain.makerWallet;
    this.trustedPools = options.trustedPools ? new Set(options.trustedPools) : null;
    this.api = new SwapApi(
      new Configuration({
        basePath: this.baseUrl,
        ...(options.apiKey ? { headers: { 'x-api-key': options.apiKey } } : {}),
        ...(options.fetchApi ? { fetchApi: options.fetchApi } : {}),
      }),
    );
  }

  async quote(request: SwapQuoteRequest): Promise<AggregatorQuote> {
    const { maxSlippageBps } = this.options;
    if (
      !Number.isInteger(request.slippageBps) ||
      request.slippageBps < 0 ||
      request.slippageBps > maxSlippageBps
    ) {
      throw new AggregatorError(
        'slippage_too_high',
        `slippage ${request.slippageBps} bps; at most ${maxSlippageBps}`,
      );
    }
    if (request.amountRaw <= 0n) throw new AggregatorError('quote_mismatch', 'the amount must be positive');
    // The client takes the amount as a JavaScript number: beyond 2^53 it would round silently.
    if (request.amountRaw > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new AggregatorError(
        'amount_too_large',
        `${request.amountRaw} raw units do not fit the API's number`,
      );
    }
    const response = await this.call('quote', () =>
      this.api.quoteGet(
        {
          inputMint: keyBase58(request.inputMint),
          outputMint: keyBase58(request.outputMint),
          amount: Number(request.amountRaw),
          slippageBps: request.slippageBps,
          swapMode: 'ExactIn',
          // V1 routing instructions: the ones whose amounts the port reads back (checks.ts swapOf).
          instructionVersion: 'V1',
        },
        this.init(),
      ),
    );
    return checkQuote(request, response as QuoteResponse, maxSlippageBps);
  }

  async swapTransaction(quote: AggregatorQuote): Promise<SignedSwap> {
    const answer = await this.call('swap-instructions', () =>
      this.api.swapInstructionsPost(
        {
          swapRequest: {
            userPublicKey: keyBase58(this.maker),
            quoteResponse: quote.response,
            // The maker keeps its SOL wrapped, as its inventory: never unwrap (close) its wSOL account.
            wrapAndUnwrapSol: false,
          },
        },
        this.init(),
      ),
    );
    const instructions = checkInstructions(quote, answer, {
      maker: this.maker,
      allowedPrograms: this.options.allowedPrograms,
      maxPriorityFeeLamports: this.options.maxPriorityFeeLamports,
      trustedPools: this.trustedPools,
    });
    const lookupTables = answer.addressLookupTableAddresses ?? [];
    const signed = await this.options.chain.signMakerInstructions({
      instructions,
      lookupTables: lookupTables.map((key) => new PublicKey(key)),
    });
    return { ...signed, quote, lookupTables };
  }

  private init(): RequestInit {
    return { signal: AbortSignal.timeout(this.options.timeoutMs) };
  }

  /** One API call; its failures as AggregatorError: no route, or the aggregator unavailable. */
  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      if (e instanceof ResponseError) {
        const status = e.response.status;
        const body = (await e.response.json().catch(() => null)) as {
          errorCode?: string;
          error?: string;
        } | null;
        const detail = body?.error ?? body?.errorCode ?? e.response.statusText;
        if (status < 500 && body?.errorCode && NO_ROUTE_CODES.has(body.errorCode)) {
          throw new AggregatorError('no_route', `${what}: ${detail}`, { cause: e });
        }
        if (status < 500)
          throw new AggregatorError('rejected', `${what}: HTTP ${status} ${detail}`, { cause: e });
        throw new AggregatorError('unavailable', `${what}: HTTP ${status} ${detail}`, { cause: e });
      }
      if (
        e instanceof FetchError ||
        (e as Error).name === 'TimeoutError' ||
        (e as Error).name === 'AbortError'
      ) {
        throw new AggregatorError('unavailable', `${what}: ${(e as Error).message}`, { cause: e });
      }
      if (e instanceof AggregatorError) throw e;
      // The client's parser throws TypeError on a body that is not the documented shape.
      throw new AggregatorError('unavailable', `${what}: unreadable answer: ${(e as Error).message}`, {
        cause: e,
      });
    }
  }
}
