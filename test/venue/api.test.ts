// The venue's Jupiter-shaped API over real HTTP, read by Jupiter's own client (@jup-ag/api): quotes priced
// from the reserves at the request, instructions that land a real swap for any user (SOL wrapped and
// unwrapped as Jupiter does), Jupiter's error shape, and the same routes on the loopback chain server.

import { Configuration, type QuoteResponse, ResponseError, SwapApi } from '@jup-ag/api';
import {
  AddressLookupTableAccount,
  Keypair,
  PublicKey,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sponsoredFeedSpecs } from '../../src/chain/pyth/publisher.ts';
import { ata, NATIVE_MINT } from '../../src/chain/token.ts';
import { type ChainServer, makerFunding, startChainServer } from '../../src/dev-chain/index.ts';
import { minimumOut, swapExactIn } from '../../src/venue/index.ts';
import { INVENTORY, MINTS, SOL, tempDir, USDC } from '../chain/fixtures.ts';
import { type VenueChain, venueChain, venueOptions } from './fixtures.ts';

const client = (basePath: string) => new SwapApi(new Configuration({ basePath }));

const instruction = (ix: {
  programId: string;
  accounts: { pubkey: string; isSigner: boolean; isWritable: boolean }[];
  data: string;
}) =>
  new TransactionInstruction({
    programId: new PublicKey(ix.programId),
    keys: ix.accounts.map((a) => ({
      pubkey: new PublicKey(a.pubkey),
      isSigner: a.isSigner,
      isWritable: a.isWritable,
    })),
    data: Buffer.from(ix.data, 'base64'),
  });

async function errorOf(
  p: Promise<unknown>,
): Promise<{ status: number; body: { error: string; errorCode: string } }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ResponseError)
      return {
        status: e.response.status,
        body: (await e.response.json()) as { error: string; errorCode: string },
      };
    throw e;
  }
  throw new Error('expected an error response');
}

describe('the embedded venue’s Jupiter API', () => {
  let v: VenueChain;
  let api: SwapApi;
  beforeAll(async () => {
    v = venueChain();
    api = client(await v.venue.serve());
  });
  afterAll(async () => {
    await v?.close();
  });

  const reserves = (input: PublicKey) => {
    const pool = v.venue.poolOf(SOL, USDC);
    const s = pool && v.venue.snapshot(pool);
    if (!s) throw new Error('no pool');
    return input.equals(s.mintA)
      ? { reserveIn: s.reserveA, reserveOut: s.reserveB }
      : { reserveIn: s.reserveB, reserveOut: s.reserveA };
  };

  it('quotes from the reserves at the request, in the shape the official client parses', async () => {
    const slotBefore = v.chain.ledger.slot();
    const quote = await api.quoteGet({
      inputMint: SOL.toBase58(),
      outputMint: USDC.toBase58(),
      amount: 2_500_000_000,
      slippageBps: 40,
    });
    const expected = swapExactIn(reserves(SOL), 2_500_000_000n, 30);
    if (!expected.ok) throw new Error('expected a swap');
    expect(quote).toMatchObject({
      inputMint: SOL.toBase58(),
      inAmount: '2500000000',
      outputMint: USDC.toBase58(),
      outAmount: expected.amountOut.toString(),
      otherAmountThreshold: minimumOut(expected.amountOut, 40).toString(),
      swapMode: 'ExactIn',
      slippageBps: 40,
    });
    expect(Number(quote.priceImpactPct)).toBeGreaterThan(0);
    expect(Number(quote.priceImpactPct)).toBeLessThan(0.01);
    expect(quote.routePlan).toHaveLength(1);
    expect(quote.routePlan[0]?.swapInfo).toMatchObject({
      ammKey: v.venue.poolOf(SOL, USDC)?.pool.toBase58(),
      label: 'Embedded AMM',
      inAmount: '2500000000',
      outAmount: expected.amountOut.toString(),
    });
    expect(quote.routePlan[0]?.percent).toBe(100);
    // The chain's slot moves on its clock: the quote's is the one at the request, between the two readings.
    expect(quote.contextSlot).toBeGreaterThanOrEqual(slotBefore);
    expect(quote.contextSlot).toBeLessThanOrEqual(v.chain.ledger.slot());
  });

  it('answers Jupiter’s 400 errors for what it cannot route or read', async () => {
    const other = Keypair.generate().publicKey.toBase58();
    expect(
      await errorOf(api.quoteGet({ inputMint: SOL.toBase58(), outputMint: other, amount: 1_000 })),
    ).toMatchObject({
      status: 400,
      body: { errorCode: 'COULD_NOT_FIND_ANY_ROUTE' },
    });
    expect(
      await errorOf(api.quoteGet({ inputMint: SOL.toBase58(), outputMint: USDC.toBase58(), amount: 0 })),
    ).toMatchObject({
      status: 400,
      body: { errorCode: 'INVALID_AMOUNT' },
    });
    expect(
      await errorOf(
        api.quoteGet({
          inputMint: SOL.toBase58(),
          outputMint: USDC.toBase58(),
          amount: 1_000,
          swapMode: 'ExactOut',
        }),
      ),
    ).toMatchObject({ status: 400, body: { errorCode: 'EXACT_OUT_NOT_SUPPORTED' } });
    // Too small to pay anything out.
    expect(
      await errorOf(api.quoteGet({ inputMint: USDC.toBase58(), outputMint: SOL.toBase58(), amount: 1 })),
    ).toMatchObject({
      status: 400,
      body: { errorCode: 'COULD_NOT_FIND_ANY_ROUTE' },
    });
  });

  /** A user's swap: quote, instructions, its own v0 transaction, landed. */
  async function swapAs(user: Keypair, quote: QuoteResponse, wrapAndUnwrapSol: boolean) {
    const ixs = await api.swapInstructionsPost({
      swapRequest: { userPublicKey: user.publicKey.toBase58(), quoteResponse: quote, wrapAndUnwrapSol },
    });
    const tables = ixs.addressLookupTableAddresses.map((key) => {
      const account = v.chain.ledger.getAccount(key);
      if (!account) throw new Error(`no table ${key}`);
      return new AddressLookupTableAccount({
        key: new PublicKey(key),
        state: AddressLookupTableAccount.deserialize(account.data),
      });
    });
    const { blockhash } = await v.chain.latestBlockhash();
    const message = new TransactionMessage({
      payerKey: user.publicKey,
      recentBlockhash: blockhash,
      instructions: [
        ...ixs.computeBudgetInstructions.map(instruction),
        ...ixs.setupInstructions.map(instruction),
        instruction(ixs.swapInstruction),
        ...(ixs.cleanupInstruction ? [instruction(ixs.cleanupInstruction)] : []),
      ],
    }).compileToV0Message(tables);
    const tx = new VersionedTransaction(message);
    tx.sign([user]);
    await v.chain.submitSigned(Buffer.from(tx.serialize()).toString('base64'));
    return ixs;
  }

  it('builds a real swap of the AMM for any user: token accounts created, balances moved exactly as quoted', async () => {
    const user = Keypair.generate();
    await v.chain.airdrop({ wallet: user.publicKey, mint: USDC, amount: 1_000_000_000n });
    const quote = await api.quoteGet({
      inputMint: USDC.toBase58(),
      outputMint: SOL.toBase58(),
      amount: 250_000_000,
      slippageBps: 50,
    });
    const ixs = await swapAs(user, quote, false);
    expect(ixs.swapInstruction.programId).toBe(v.venue.programId.toBase58());
    expect(ixs.otherInstructions).toEqual([]);
    expect(await v.chain.tokenBalance(user.publicKey, USDC)).toBe(750_000_000n);
    expect(await v.chain.tokenBalance(user.publicKey, SOL)).toBe(BigInt(quote.outAmount));
  });

  it('wraps SOL in and unwraps it out with wrapAndUnwrapSol, leaving no wrapped-SOL account behind', async () => {
    const user = Keypair.generate();
    await v.chain.airdrop({ wallet: user.publicKey, mint: NATIVE_MINT, amount: 5_000_000_000n });
    const quote = await api.quoteGet({
      inputMint: SOL.toBase58(),
      outputMint: USDC.toBase58(),
      amount: 1_000_000_000,
      slippageBps: 50,
    });
    const lamportsBefore = await v.chain.solBalance(user.publicKey);
    await swapAs(user, quote, true);
    expect(await v.chain.tokenBalance(user.publicKey, USDC)).toBe(BigInt(quote.outAmount));
    expect(v.chain.ledger.getAccount(ata(user.publicKey, NATIVE_MINT))).toBeNull();
    // The SOL went out of the wallet (plus the fee and the USDC account's rent).
    const spent = lamportsBefore - (await v.chain.solBalance(user.publicKey));
    expect(spent > 1_000_000_000n && spent < 1_000_000_000n + 3_000_000n).toBe(true);
  });

  it('refuses swap instructions for a quote that is not its own', async () => {
    const quote = await api.quoteGet({
      inputMint: SOL.toBase58(),
      outputMint: USDC.toBase58(),
      amount: 1_000_000,
      slippageBps: 50,
    });
    const user = Keypair.generate().publicKey.toBase58();
    const tampered = { ...quote, otherAmountThreshold: quote.outAmount };
    expect(
      await errorOf(
        api.swapInstructionsPost({ swapRequest: { userPublicKey: user, quoteResponse: tampered } }),
      ),
    ).toMatchObject({
      status: 400,
      body: { errorCode: 'INVALID_QUOTE_RESPONSE' },
    });
    const elsewhere = {
      ...quote,
      routePlan: [{ ...quote.routePlan[0], swapInfo: { ...quote.routePlan[0]?.swapInfo, ammKey: user } }],
    } as QuoteResponse;
    expect(
      await errorOf(
        api.swapInstructionsPost({ swapRequest: { userPublicKey: user, quoteResponse: elsewhere } }),
      ),
    ).toMatchObject({
      status: 400,
      body: { errorCode: 'COULD_NOT_FIND_ANY_ROUTE' },
    });
  });

  it('offers the venue’s lookup table once it is usable, and the swap lands through it', async () => {
    await v.chain.advanceClock(1);
    const pool = v.venue.poolOf(SOL, USDC);
    if (!pool) throw new Error('no pool');
    v.venue.lookupTables(pool);
    await v.chain.advanceClock(1);
    const user = Keypair.generate();
    await v.chain.airdrop({ wallet: user.publicKey, mint: USDC, amount: 10_000_000n });
    const quote = await api.quoteGet({
      inputMint: USDC.toBase58(),
      outputMint: SOL.toBase58(),
      amount: 10_000_000,
      slippageBps: 50,
    });
    const ixs = await swapAs(user, quote, false);
    expect(ixs.addressLookupTableAddresses).toHaveLength(1);
    expect(await v.chain.tokenBalance(user.publicKey, SOL)).toBe(BigInt(quote.outAmount));
  });
});

describe('the loopback chain serves the same API', () => {
  let server: ChainServer;
  const dataDir = tempDir('venue-loopback');
  beforeAll(async () => {
    server = await startChainServer({
      dataDir,
      port: 0,
      mints: MINTS,
      funding: [makerFunding(Keypair.generate(), INVENTORY)],
      pyth: { feeds: sponsoredFeedSpecs(['SOL', 'USDC']), seed: 1, intervalMs: 0 },
      venue: venueOptions(),
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('under /jupiter/swap/v1 of its own URL, priced from the same chain', async () => {
    expect(server.jupiterUrl).toBe(`${server.url}/jupiter/swap/v1`);
    const api = client(server.jupiterUrl ?? '');
    const quote = await api.quoteGet({
      inputMint: USDC.toBase58(),
      outputMint: SOL.toBase58(),
      amount: 1_000_000,
    });
    const pool = server.venue?.poolOf(SOL, USDC);
    const s = pool && server.venue?.snapshot(pool);
    if (!s) throw new Error('no pool');
    const r = USDC.equals(s.mintA)
      ? { reserveIn: s.reserveA, reserveOut: s.reserveB }
      : { reserveIn: s.reserveB, reserveOut: s.reserveA };
    const expected = swapExactIn(r, 1_000_000n, 30);
    expect(expected.ok && quote.outAmount).toBe(expected.ok ? expected.amountOut.toString() : false);
    const labels = await api.programIdToLabelGet();
    expect(labels).toEqual({ [server.venue?.programId.toBase58() ?? '']: 'Embedded AMM' });
  });
});
