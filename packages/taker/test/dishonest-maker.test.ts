// A dishonest maker (support/dishonest-maker.ts: the service's routes over a real loopback chain) reports its
// lock as done after the taker's lock lands, while it locked nothing, or the wrong amount or mint, too short an
// expiry, an escrow paying someone else or under another hash, or names an escrow of its choosing. Whatever
// the route the front end picks, the client never reveals: not on chain, not in any request the maker got;
// and it takes its input back on chain once the taker escrow expires.
import { PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USDC_MINT } from '../../../test/support/mints.ts';
import {
  type CheckName,
  cryptoKeyWallet,
  generateWalletKeys,
  LockNotVerifiedError,
  MemorySwapStore,
  NotRefundableError,
  TakerClient,
} from '../src/index.ts';
import {
  type DishonestMaker,
  type Lie,
  onChain,
  startDishonestMaker,
  TAKER_TIMELOCK_SECONDS,
} from './support/dishonest-maker.ts';

let maker: DishonestMaker;

beforeAll(async () => {
  maker = await startDishonestMaker();
});
afterAll(async () => {
  await maker?.close();
});

/** The checks each lie must fail (others may fail with it). */
const CAUGHT_BY: Record<Lie, CheckName> = {
  no_lock: 'maker_escrow_exists',
  wrong_amount: 'amount',
  wrong_mint: 'mint',
  short_expiry: 'expiry_margin',
  wrong_recipient: 'recipient',
  wrong_hashlock: 'hashlock',
  other_address: 'service_addresses',
};

describe('against a dishonest maker the client never reveals, and refunds after expiry', () => {
  test.each(Object.entries(CAUGHT_BY) as [Lie, CheckName][])('%s: caught by %s', async (lie, check) => {
    maker.lie = lie;
    const keys = await generateWalletKeys();
    if (!keys) throw new Error('no WebCrypto Ed25519 on this Node');
    const wallet = await cryptoKeyWallet(keys);
    maker.fund(wallet.address, USDC_MINT, 50_000_000n);
    const usdc = () =>
      maker.chain.ledger.tokenAmount(new PublicKey(wallet.address), new PublicKey(USDC_MINT));
    const before = usdc();
    const client = new TakerClient({
      serviceUrl: maker.url,
      rpcUrl: maker.chain.url,
      store: new MemorySwapStore(),
      maker: maker.maker.publicKey.toBase58(),
      revealMarginSeconds: 30,
      rpcPollMs: 20,
    });
    const quote = await client.quote({
      input_asset: 'USDC',
      output_asset: 'USDT',
      amount: '20',
      taker_wallet: wallet.address,
    });
    if (quote.status !== 'accepted') throw new Error('the double always quotes');
    const record = await client.start(quote, { address: wallet.address });
    const trade = await client.lock(record, wallet);
    expect(trade.next_action?.type).toBe('redeem'); // the lie

    for (const route of [
      { via: 'chain' as const, wallet },
      { via: 'service' as const, fallback: wallet },
    ]) {
      const refused = await client.redeem(record, route).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(LockNotVerifiedError);
      const failed = (refused as LockNotVerifiedError).verification.checks
        .filter((c) => !c.ok)
        .map((c) => c.name);
      expect(failed).toContain(check);
    }
    expect(record.revealed).toBeNull();
    expect(usdc()).toBe(before - 20_000_000n);

    // The refund waits for the chain's clock, then brings the input back without the maker.
    await expect(client.refund(record, { via: 'chain', wallet })).rejects.toBeInstanceOf(NotRefundableError);
    await maker.advanceClock(TAKER_TIMELOCK_SECONDS + 1);
    const { signature } = await client.refund(record, { via: 'chain', wallet });
    expect(signature).toBeTruthy();
    expect(usdc()).toBe(before);

    // The preimage never left: in no request the maker received, in no transaction or account on chain.
    expect(maker.received.length).toBeGreaterThan(3);
    expect(
      maker.received.filter((r) => `${r.url} ${r.body}`.toLowerCase().includes(record.preimage)),
    ).toEqual([]);
    const terms = await client.lockTerms(record);
    const touched = [wallet.address, terms.takerEscrow, terms.makerEscrow, maker.maker.publicKey.toBase58()];
    expect(onChain(maker.chain, record.preimage, touched)).toBe(false);
    // …and the check is not vacuous: the secret's hash is on chain, in the taker's lock.
    expect(onChain(maker.chain, record.secretHash, touched)).toBe(true);
  });
});
