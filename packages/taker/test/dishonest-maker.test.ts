// A dishonest maker (support/dishonest-maker.ts: the service's routes over a real loopback chain) against a
// taker client set up the safe way: its own RPC, the maker's key, the program and the mints pinned; a quote
// of 20 USDC and a taker holding 50 USDC (and some wrapped SOL). Each lie in the lock the wallet is asked to
// sign is refused before the wallet is asked, with the taker's balances unchanged; a quote naming a
// look-alike mint never starts; a service that sits on the preimage it was given is overtaken by the
// taker's own redeem before the deadline. Once the taker's lock is on chain, a maker that lies about its own
// lock never gets the preimage — by either route — and the taker refunds on chain after expiry.
import { PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USDC_MINT, USDT_MINT } from '../../../test/support/mints.ts';
import {
  type CheckName,
  cryptoKeyWallet,
  DEFAULT_HTLC_PROGRAM_ID,
  generateWalletKeys,
  LockNotVerifiedError,
  MemorySwapStore,
  NotRefundableError,
  type Quote,
  TakerClient,
  type TakerClientOptions,
  type TakerWallet,
} from '../src/index.ts';
import {
  type DishonestMaker,
  type Lie,
  LOOKALIKE_MINT,
  NATIVE_MINT,
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

const QUOTED = 20_000_000n;
const HELD = 50_000_000n;
const WRAPPED = 300_000_000n;

interface Taker {
  client: TakerClient;
  wallet: TakerWallet;
  /** Every transaction the wallet was asked to sign. */
  signed: string[];
  store: MemorySwapStore;
  balances(): { usdc: bigint; usdt: bigint; wrappedSol: bigint; lamports: bigint };
}

/** A funded taker whose client pins program, maker and mints (`pins` overrides them). */
async function taker(pins: Partial<TakerClientOptions> = {}): Promise<Taker> {
  const keys = await generateWalletKeys();
  if (!keys) throw new Error('no WebCrypto Ed25519 on this Node');
  const inner = await cryptoKeyWallet(keys);
  const signed: string[] = [];
  const wallet: TakerWallet = {
    address: inner.address,
    signTransaction: async (unsigned) => {
      signed.push(unsigned);
      return inner.signTransaction(unsigned);
    },
  };
  maker.fund(wallet.address, USDC_MINT, HELD);
  maker.wrap(wallet.address, WRAPPED);
  const store = new MemorySwapStore();
  const client = new TakerClient({
    serviceUrl: maker.url,
    rpcUrl: maker.chain.url,
    store,
    programId: DEFAULT_HTLC_PROGRAM_ID,
    maker: maker.maker.publicKey.toBase58(),
    mints: { USDC: USDC_MINT, USDT: USDT_MINT },
    revealMarginSeconds: 30,
    rpcPollMs: 20,
    ...pins,
  });
  const owner = new PublicKey(wallet.address);
  const { ledger } = maker.chain;
  return {
    client,
    wallet,
    signed,
    store,
    balances: () => ({
      usdc: ledger.tokenAmount(owner, new PublicKey(USDC_MINT)),
      usdt: ledger.tokenAmount(owner, new PublicKey(USDT_MINT)),
      wrappedSol: ledger.tokenAmount(owner, NATIVE_MINT),
      lamports: ledger.balance(owner),
    }),
  };
}

async function quote(client: TakerClient, wallet: TakerWallet): Promise<Quote> {
  const answer = await client.quote({
    input_asset: 'USDC',
    output_asset: 'USDT',
    amount: '20',
    taker_wallet: wallet.address,
  });
  if (answer.status !== 'accepted') throw new Error('the double always quotes');
  return answer;
}

const requestsTo = (path: string) => maker.received.filter((r) => r.url.includes(path)).length;

/** Each lie in the lock, and the check that names it (others may fail with it). */
const LOCK_LIES: [Lie, string][] = [
  ['transfer_instead', 'no_transfer'],
  ['known_hash', 'hashlock'],
  ['double_amount', 'amount'],
  ['hidden_approve', 'no_delegate'],
  ['lookalike_program', 'htlc_program'],
  ['refund_to_maker', 'refund_destination'],
  ['year_expiry', 'expiry'],
  ['priority_fee', 'priority_fee'],
  ['lookup_table', 'lookup_tables'],
  ['close_wsol', 'no_close'],
];

describe('a lock that is not what the taker agreed to is refused before the wallet is asked', () => {
  test.each(LOCK_LIES)('%s: refused by %s, nothing signed, balances unchanged', async (lie, check) => {
    maker.lie = lie;
    const t = await taker();
    const before = t.balances();
    expect(before.usdc).toBe(HELD);
    const record = await t.client.start(await quote(t.client, t.wallet), { address: t.wallet.address });
    const locks = requestsTo(`/v1/trades/${record.tradeId}/lock`);

    const refused = (await t.client.lock(record, t.wallet).catch((error: unknown) => error)) as {
      name: string;
      message: string;
      checks: { name: string; ok: boolean }[];
    };
    expect(refused).toMatchObject({ name: 'LockRefusedError' });
    expect(refused.checks.map((c) => c.name)).toContain(check);
    expect(refused.checks.every((c) => !c.ok)).toBe(true);
    for (const c of refused.checks) expect(refused.message).toContain(c.name);
    // The review says the same on its own.
    await expect(t.client.reviewLock(record)).rejects.toMatchObject({ name: 'LockRefusedError' });

    expect(t.signed).toEqual([]);
    expect(requestsTo(`/v1/trades/${record.tradeId}/lock`)).toBe(locks);
    expect(t.balances()).toEqual(before);
  });

  test('an honest lock passes the review; the summary is decoded from its bytes', async () => {
    maker.lie = 'honest';
    const t = await taker();
    const q = await quote(t.client, t.wallet);
    const record = await t.client.start(q, { address: t.wallet.address });
    const settlement = await t.client.settle(record); // the same trade again, with its terms
    const review = await t.client.reviewLock(record);
    expect(t.client.trust).toBe('pinned');
    expect(review.check.ok).toBe(true);
    expect(review.simulation.ok).toBe(true);
    expect(review.simulation.changes).toContainEqual(
      expect.objectContaining({ mint: USDC_MINT, before: HELD, after: HELD - QUOTED }),
    );
    expect(review.summary).toMatchObject({
      input: { amountRaw: QUOTED, asset: 'USDC', mint: USDC_MINT },
      output: { amountRaw: BigInt(q.output.amount_raw), asset: 'USDT', mint: USDT_MINT },
      maker: maker.maker.publicKey.toBase58(),
      trust: 'pinned',
    });
    expect(review.summary.expiry).toBe(BigInt(Date.parse(settlement.expires_at) / 1000));
    await t.client.lock(record, t.wallet);
    expect(t.signed).toEqual([review.transactionBase64]);
    expect(t.balances().usdc).toBe(HELD - QUOTED);
  });
});

describe('a swap whose terms the client cannot pin never starts', () => {
  test('a look-alike mint: without mints on a cluster that is not the service’s, the swap does not start', async () => {
    maker.lie = 'lookalike_mint';
    const unpinned = await taker({ mints: {} });
    const settlements = requestsTo('/wallet-settlement');
    const q = await quote(unpinned.client, unpinned.wallet);
    expect(q.input.mint).toBe(LOOKALIKE_MINT.toBase58());
    await expect(unpinned.client.start(q, { address: unpinned.wallet.address })).rejects.toMatchObject({
      name: 'TrustNotPinnedError',
      missing: ['mints.USDC', 'mints.USDT'],
      cluster: 'other',
    });
    expect(await unpinned.store.list()).toEqual([]);
    expect(unpinned.client.trust).toBe('pinned');

    // With its mints pinned the look-alike is named for what it is; without a maker key nothing starts either.
    const pinned = await taker();
    await expect(pinned.client.start(q, { address: pinned.wallet.address })).rejects.toMatchObject({
      name: 'TakerStateError',
      message: expect.stringContaining(LOOKALIKE_MINT.toBase58()),
    });
    const noMaker = await taker({ maker: null });
    await expect(
      noMaker.client.start(await quote(noMaker.client, noMaker.wallet), { address: noMaker.wallet.address }),
    ).rejects.toMatchObject({ name: 'TrustNotPinnedError', missing: ['maker'] });
    expect(requestsTo('/wallet-settlement')).toBe(settlements);
    for (const t of [unpinned, pinned, noMaker]) {
      expect(t.signed).toEqual([]);
      expect(t.balances().usdc).toBe(HELD);
    }
  });
});

describe('a service that sits on the preimage', () => {
  test('the client redeems on chain itself before the deadline, from the fallback wallet', async () => {
    maker.lie = 'sit_on_preimage';
    const t = await taker({ serviceRedeemSeconds: 2 });
    const q = await quote(t.client, t.wallet);
    const record = await t.client.start(q, { address: t.wallet.address });
    await t.client.lock(record, t.wallet);
    const before = t.balances();
    const steps: string[] = [];
    const outcome = await t.client.redeem(record, { via: 'service', fallback: t.wallet }, (step) =>
      steps.push(step),
    );
    expect(maker.preimages.get(record.tradeId as string)).toBe(record.preimage);
    expect(steps).toEqual(['revealed', 'fallback']);
    expect(outcome).toMatchObject({ via: 'chain', fellBack: true });
    expect(outcome.signature).toBeTruthy();
    expect(t.balances().usdt - before.usdt).toBe(BigInt(q.output.amount_raw));
    // Redeemed while the maker escrow was still locked: before its expiry.
    const terms = await t.client.lockTerms(record);
    const escrow = maker.chain.ledger.getAccount(terms.makerEscrow);
    expect(escrow?.data[2]).toBe(2); // status redeemed
  });
});

/** The checks each maker-side lie must fail (others may fail with it). */
const CAUGHT_BY: [Lie, CheckName][] = [
  ['no_lock', 'maker_escrow_exists'],
  ['wrong_amount', 'amount'],
  ['wrong_mint', 'mint'],
  ['short_expiry', 'expiry_margin'],
  ['wrong_recipient', 'recipient'],
  ['wrong_hashlock', 'hashlock'],
  ['other_address', 'service_addresses'],
];

describe('against a maker lying about its own lock the client never reveals, and refunds after expiry', () => {
  test.each(CAUGHT_BY)('%s: caught by %s', async (lie, check) => {
    maker.lie = lie;
    const t = await taker();
    const { client, wallet } = t;
    const before = t.balances().usdc;
    const record = await client.start(await quote(client, wallet), { address: wallet.address });
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
    expect(t.balances().usdc).toBe(before - QUOTED);

    // The refund waits for the chain's clock, then brings the input back without the maker.
    await expect(client.refund(record, { via: 'chain', wallet })).rejects.toBeInstanceOf(NotRefundableError);
    await maker.advanceClock(TAKER_TIMELOCK_SECONDS + 1);
    const { signature } = await client.refund(record, { via: 'chain', wallet });
    expect(signature).toBeTruthy();
    expect(t.balances().usdc).toBe(before);

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
