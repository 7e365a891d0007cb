// The aggregator port end to end, over real HTTP through Jupiter's client: against the embedded venue
// (quote → the maker's own v0 transaction → landed on the embedded chain, balances moved exactly as
// quoted, with and without the venue's lookup table), against the loopback chain and its API on the rpc
// chain port, and its refusals — each leaving the maker's balances untouched.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApproveInstruction } from '@solana/spl-token';
import { Keypair, type PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AggregatorErrorCode,
  type AggregatorPort,
  isAggregatorError,
  JupiterAggregator,
  openAggregator,
  swapOutcome,
} from '../../src/aggregator/index.ts';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import type { ChainPort } from '../../src/chain/port.ts';
import { sponsoredFeedSpecs } from '../../src/chain/pyth/publisher.ts';
import { createRpcChain } from '../../src/chain/rpc/index.ts';
import { ata } from '../../src/chain/token.ts';
import { parseWireTransaction } from '../../src/chain/wire.ts';
import {
  type AggregatorConfig,
  EMBEDDED_AMM_PROGRAM_ID,
  JUPITER_V6_PROGRAM_ID,
} from '../../src/config/index.ts';
import { type ChainServer, makerFunding, startChainServer } from '../../src/dev-chain/index.ts';
import { instructionJson } from '../../src/venue/api.ts';
import type { EmbeddedVenue } from '../../src/venue/embedded.ts';
import type { Ratio } from '../../src/venue/index.ts';
import { INVENTORY, MINTS, SOL, tempDir, USDC } from '../chain/fixtures.ts';
import { type VenueChain, venueChain, venueOptions } from '../venue/fixtures.ts';

const config = (overrides: Partial<AggregatorConfig> = {}): AggregatorConfig => ({
  kind: 'jupiter',
  baseUrl: null,
  apiKeyEnv: null,
  maxSlippageBps: 100,
  maxPriorityFeeLamports: 1_000_000n,
  allowedPrograms: [JUPITER_V6_PROGRAM_ID, EMBEDDED_AMM_PROGRAM_ID],
  timeoutMs: 5_000,
  routeToleranceBps: 20,
  trustedPools: null,
  ...overrides,
});

/** The Pyth mid of the venue's pool as output raw units per input raw unit. */
function mid(venue: EmbeddedVenue, input: PublicKey, output: PublicKey): Ratio {
  const pool = venue.poolOf(input, output);
  const target = pool && venue.targetPrice(pool);
  if (!pool || !target) throw new Error('no mid');
  return input.equals(pool.mintA) ? target : { num: target.den, den: target.num };
}

async function refusal(p: Promise<unknown>): Promise<AggregatorErrorCode | 'accepted'> {
  try {
    await p;
    return 'accepted';
  } catch (e) {
    if (isAggregatorError(e)) return e.code;
    throw e;
  }
}

async function balances(chain: ChainPort, maker: PublicKey) {
  return { sol: await chain.tokenBalance(maker, SOL), usdc: await chain.tokenBalance(maker, USDC) };
}

describe('the aggregator port on the embedded chain, against the embedded venue', () => {
  let v: VenueChain;
  let port: AggregatorPort;
  beforeAll(async () => {
    v = venueChain();
    port = await openAggregator({ config: config(), chain: v.chain, venue: v.venue });
  });
  afterAll(async () => {
    await v?.close();
  });

  it('defaults its base URL to the venue’s own API server on loopback', () => {
    expect(port.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/jupiter\/swap\/v1$/);
  });

  it.each([
    ['SOL for USDC', SOL, USDC, 3_000_000_000n],
    ['USDC for SOL', USDC, SOL, 450_000_000n],
  ] as const)(
    'swaps %s: quote, the maker’s own v0 transaction, landed; balances move exactly as quoted',
    async (_, input, output, amount) => {
      const { venue } = v;
      const maker = v.chain.makerWallet;
      const before = await balances(v.chain, maker);
      const quote = await port.quote({
        inputMint: input,
        outputMint: output,
        amountRaw: amount,
        slippageBps: 20,
        referenceMid: mid(venue, input, output),
      });
      expect(quote.inAmount).toBe(amount);
      expect(quote.minOut >= quote.floorOut).toBe(true);
      const signed = await port.swapTransaction(quote);
      const wire = parseWireTransaction(new Uint8Array(Buffer.from(signed.transactionBase64, 'base64')));
      expect(wire.version).toBe(0);
      expect(wire.accountKeys[0]).toBe(maker.toBase58());
      expect(wire.header.numRequiredSignatures).toBe(1);
      expect(await v.chain.land(signed, 'finalized', 10_000)).toMatchObject({
        status: 'finalized',
        err: null,
      });
      const after = await balances(v.chain, maker);
      const moved = (b: typeof before, mint: PublicKey) => (mint.equals(SOL) ? b.sol : b.usdc);
      expect(moved(before, input) - moved(after, input)).toBe(amount);
      // Nothing traded in between, so the pool paid exactly the quote.
      expect(moved(after, output) - moved(before, output)).toBe(quote.outAmount);
      const tx = await v.chain.getTransaction(signed.signature, 'finalized');
      expect(tx && swapOutcome(tx, maker, input, output)).toEqual({
        amountIn: amount,
        amountOut: quote.outAmount,
      });
    },
  );

  it('loads the venue’s lookup table once it is usable, and the swap lands through it', async () => {
    const { venue } = v;
    await v.chain.advanceClock(1);
    venue.lookupTables(venue.pools[0] as NonNullable<(typeof venue.pools)[0]>);
    await v.chain.advanceClock(1);
    const quote = await port.quote({
      inputMint: SOL,
      outputMint: USDC,
      amountRaw: 1_000_000_000n,
      slippageBps: 20,
      referenceMid: mid(venue, SOL, USDC),
    });
    const signed = await port.swapTransaction(quote);
    expect(signed.lookupTables).toHaveLength(1);
    const wire = parseWireTransaction(new Uint8Array(Buffer.from(signed.transactionBase64, 'base64')));
    expect(wire.addressTableLookups).toHaveLength(1);
    expect(await v.chain.land(signed, 'finalized', 10_000)).toMatchObject({ status: 'finalized', err: null });
  });

  it('refuses a quote worse than the live mid allows, a slippage above the maximum, an amount the API cannot carry, and a pair with no route', async () => {
    const { venue } = v;
    const maker = v.chain.makerWallet;
    const before = await balances(v.chain, maker);
    const m = mid(venue, SOL, USDC);
    const ask = {
      inputMint: SOL,
      outputMint: USDC,
      amountRaw: 2_000_000_000n,
      slippageBps: 20,
      referenceMid: m,
    };
    // The pool sits at the mid; a mid 2% higher makes its price 2% worse than allowed.
    expect(
      await refusal(port.quote({ ...ask, referenceMid: { num: m.num * 102n, den: m.den * 100n } })),
    ).toBe('price_out_of_bounds');
    expect(await refusal(port.quote({ ...ask, slippageBps: 101 }))).toBe('slippage_too_high');
    expect(await refusal(port.quote({ ...ask, amountRaw: 2n ** 53n }))).toBe('amount_too_large');
    expect(await refusal(port.quote({ ...ask, outputMint: Keypair.generate().publicKey }))).toBe('no_route');
    // A trade far beyond the pool's depth prices far off the mid.
    expect(await refusal(port.quote({ ...ask, amountRaw: 5_000_000_000_000n }))).toBe('price_out_of_bounds');
    expect(await balances(v.chain, maker)).toEqual(before);
  });

  it('signs nothing an aggregator slips in beside the swap', async () => {
    const { venue } = v;
    const maker = v.chain.makerWallet;
    const thief = Keypair.generate().publicKey;
    // A hostile aggregator: the venue's real answer, with an approval of the maker's USDC to a stranger added.
    const hostile: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!String(input).endsWith('/swap-instructions')) return response;
      const body = (await response.json()) as { setupInstructions: unknown[] };
      body.setupInstructions.push(
        instructionJson(createApproveInstruction(ata(maker, USDC), thief, maker, 10n ** 12n)),
      );
      return new Response(JSON.stringify(body), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    };
    const tampered = new JupiterAggregator({
      baseUrl: port.baseUrl,
      maxSlippageBps: 100,
      maxPriorityFeeLamports: 1_000_000n,
      allowedPrograms: [EMBEDDED_AMM_PROGRAM_ID],
      timeoutMs: 5_000,
      chain: v.chain,
      fetchApi: hostile,
    });
    const quote = await tampered.quote({
      inputMint: USDC,
      outputMint: SOL,
      amountRaw: 1_000_000n,
      slippageBps: 20,
      referenceMid: mid(venue, USDC, SOL),
    });
    expect(await refusal(tampered.swapTransaction(quote))).toBe('unexpected_instruction');
  });

  it('reports the venue unreachable as unavailable', async () => {
    const down = await openAggregator({
      config: config({ baseUrl: 'http://127.0.0.1:9/jupiter/swap/v1', timeoutMs: 2_000 }),
      chain: v.chain,
    });
    const { venue } = v;
    expect(
      await refusal(
        down.quote({
          inputMint: SOL,
          outputMint: USDC,
          amountRaw: 1_000n,
          slippageBps: 20,
          referenceMid: mid(venue, SOL, USDC),
        }),
      ),
    ).toBe('unavailable');
  });
});

describe('the aggregator port on the rpc chain, against the loopback chain’s API', () => {
  let server: ChainServer;
  let chain: ChainPort;
  let port: AggregatorPort;
  const dataDir = tempDir('aggregator-rpc');
  const maker = Keypair.generate();
  beforeAll(async () => {
    server = await startChainServer({
      dataDir: join(dataDir, 'chain'),
      port: 0,
      mints: MINTS,
      funding: [makerFunding(maker, INVENTORY)],
      pyth: { feeds: sponsoredFeedSpecs(['SOL', 'USDC']), seed: 1, intervalMs: 0 },
      venue: venueOptions(),
    });
    const keypairPath = join(dataDir, 'maker.json');
    writeFileSync(keypairPath, JSON.stringify(Array.from(maker.secretKey)));
    chain = createRpcChain({
      url: server.url,
      wsUrl: server.wsUrl,
      programId: DEFAULT_HTLC_PROGRAM_ID,
      makerKeypairPath: keypairPath,
      pollIntervalMs: 10,
      rebroadcastIntervalMs: 50,
    });
    port = await openAggregator({ config: config({ baseUrl: server.jupiterUrl }), chain });
  });
  afterAll(async () => {
    await chain?.close();
    await server?.close();
  });

  it('swaps through the loopback venue and lands the maker’s v0 transaction over JSON-RPC', async () => {
    const venue = server.venue as EmbeddedVenue;
    const before = await balances(chain, maker.publicKey);
    const quote = await port.quote({
      inputMint: USDC,
      outputMint: SOL,
      amountRaw: 300_000_000n,
      slippageBps: 20,
      referenceMid: mid(venue, USDC, SOL),
    });
    const signed = await port.swapTransaction(quote);
    expect(await chain.land(signed, 'finalized', 10_000)).toMatchObject({ status: 'finalized', err: null });
    const after = await balances(chain, maker.publicKey);
    expect(before.usdc - after.usdc).toBe(300_000_000n);
    expect(after.sol - before.sol).toBe(quote.outAmount);
    const tx = await chain.getTransaction(signed.signature, 'finalized');
    expect(tx && swapOutcome(tx, maker.publicKey, USDC, SOL)).toEqual({
      amountIn: 300_000_000n,
      amountOut: quote.outAmount,
    });
    expect(await chain.signatureState(signed.signature)).toMatchObject({ status: 'finalized', err: null });
  });

  it('leaves the swap unsent: the caller decides when the signed bytes go out', async () => {
    const venue = server.venue as EmbeddedVenue;
    const quote = await port.quote({
      inputMint: USDC,
      outputMint: SOL,
      amountRaw: 1_000_000n,
      slippageBps: 20,
      referenceMid: mid(venue, USDC, SOL),
    });
    const signed = await port.swapTransaction(quote);
    expect(await chain.signatureState(signed.signature)).toEqual({ status: 'unknown' });
  });
});
