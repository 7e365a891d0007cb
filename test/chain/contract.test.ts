// One contract for every chain port implementation: the embedded chain in process, and the rpc
// chain against the loopback JSON-RPC server. Each swap here is a real HTLC settlement on litesvm.

import { Keypair, type PublicKey, Transaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainError } from '../../src/chain/errors.ts';
import {
  closeInstruction,
  makerEscrowAddress,
  redeemInstruction,
  takerEscrowAddress,
  vaultAddress,
} from '../../src/chain/htlc/index.ts';
import type { ChainPort, SignatureState } from '../../src/chain/port.ts';
import { ata } from '../../src/chain/token.ts';
import {
  embeddedHarness,
  type Harness,
  rpcEndpointsHarness,
  rpcHarness,
  SOL,
  secret,
  USDC,
  walletSign,
  walletSignWithPriorityFee,
} from './fixtures.ts';

const TOKEN_ACCOUNT_RENT = 2_039_280n;

const feeOf = (s: SignatureState) => (s.status === 'finalized' ? s.fee : -1n);

/** Waits for what arrives asynchronously (pushes over the rpc chain's websocket). */
async function eventually(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The HTTP JSON-RPC calls `run` made to the loopback server, per method; {} on the embedded chain. Over
 * several endpoints the port asks the others' slots before it believes an account absent: those getSlot
 * calls are not counted.
 */
async function serverCalls<T>(h: Harness, run: () => Promise<T>) {
  const before = h.server?.stats().http ?? {};
  const result = await run();
  const after = h.server?.stats().http ?? {};
  const calls: Record<string, number> = {};
  for (const [method, n] of Object.entries(after)) {
    if (method === 'getSlot') continue;
    if (n > (before[method] ?? 0)) calls[method] = n - (before[method] ?? 0);
  }
  return { result, calls };
}

/** Collects what a chain's account feed pushes. */
function watch(chain: ChainPort) {
  const seen = new Set<string>();
  const feed = chain.watchAccounts((addresses) => {
    for (const a of addresses) seen.add(a);
  });
  return { seen, feed };
}

const b58 = (k: PublicKey) => k.toBase58();

async function rejection(p: Promise<unknown>): Promise<ChainError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ChainError) return e;
    throw e;
  }
  throw new Error('expected a ChainError');
}

/** A funded taker, as the dev airdrop leaves it. */
async function newTaker(h: Harness, mint: PublicKey, amount: bigint) {
  const taker = Keypair.generate();
  await h.dev.airdrop({ wallet: taker.publicKey, mint, amount });
  return taker;
}

/** Taker lock → maker lock, as the runtime drives them; answers the escrows and terms. */
async function lockBoth(
  chain: ChainPort,
  taker: Keypair,
  a: {
    inputMint: PublicKey;
    outputMint: PublicKey;
    input: bigint;
    output: bigint;
    priorityFeeWallet?: boolean;
  },
) {
  const s = secret();
  const now = await chain.now();
  const takerExpiry = now + 600n;
  const makerExpiry = now + 300n;
  const unsigned = await chain.buildTakerLock({
    taker: taker.publicKey,
    inputMint: a.inputMint,
    outputMint: a.outputMint,
    amount: a.input,
    hashlock: s.hashlock,
    expiry: takerExpiry,
    lockDeadline: now + 60n,
  });
  const signed = a.priorityFeeWallet
    ? walletSignWithPriorityFee(unsigned, taker)
    : walletSign(unsigned, taker);
  const { signature: lockSignature } = await chain.submitSigned(signed);
  expect((await chain.confirm(lockSignature, 'finalized', 5_000)).status).toBe('finalized');
  const [takerEscrow] = takerEscrowAddress(chain.programId, taker.publicKey, s.hashlock);
  const escrow = await chain.readEscrow(takerEscrow, 'finalized');
  expect(escrow).toMatchObject({ kind: 'taker', status: 'locked', amount: a.input, expiry: takerExpiry });
  expect(escrow?.recipient.equals(chain.makerWallet)).toBe(true);

  const makerLock = await chain.signMakerLock({
    takerEscrow,
    taker: taker.publicKey,
    inputMint: a.inputMint,
    inputAmount: a.input,
    takerExpiry,
    outputMint: a.outputMint,
    amount: a.output,
    hashlock: s.hashlock,
    expiry: makerExpiry,
    lockDeadline: now + 60n,
  });
  const landed = await chain.land(makerLock, 'finalized', 5_000);
  expect(landed).toMatchObject({ status: 'finalized', err: null });
  const [makerEscrow] = makerEscrowAddress(chain.programId, takerEscrow);
  expect(await chain.readEscrow(makerEscrow, 'finalized')).toMatchObject({
    kind: 'maker',
    status: 'locked',
    amount: a.output,
  });
  return { ...s, takerEscrow, makerEscrow, lockSignature, makerLock, takerExpiry, makerExpiry };
}

const implementations: [string, () => Promise<Harness>][] = [
  ['embedded', () => embeddedHarness()],
  ['rpc (loopback JSON-RPC server)', () => rpcHarness()],
  // No slot probe: the server's call counts below are those of the port's own reads.
  ['rpc over two endpoints (proxies)', () => rpcEndpointsHarness(2, { slotProbeIntervalMs: 0 })],
];

describe.each(implementations)('chain port contract: %s', (_name, makeHarness) => {
  let h: Harness;
  let chain: ChainPort;
  /** The maker's balances as the port read them before any test moved funds. */
  let genesis: { usdc: bigint; sol: bigint; lamports: bigint };
  beforeAll(async () => {
    h = await makeHarness();
    chain = h.chain;
    genesis = {
      usdc: await chain.tokenBalance(chain.makerWallet, USDC),
      sol: await chain.tokenBalance(chain.makerWallet, SOL),
      lamports: await chain.solBalance(chain.makerWallet),
    };
  });
  afterAll(async () => {
    await h?.close();
  });

  it('reports health, the maker wallet and its funded inventory', async () => {
    expect((await chain.health()).ok).toBe(true);
    expect(chain.makerWallet.equals(h.maker.publicKey)).toBe(true);
    expect(genesis.usdc).toBe(1_000_000n * 10n ** 6n);
    expect(genesis.sol).toBe(5_000n * 10n ** 9n);
    expect(genesis.lamports).toBeGreaterThan(10n ** 9n);
  });

  it('follows wall time and moves the clock on demand', async () => {
    const before = await chain.now();
    expect(Number(before)).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 1);
    const height = await chain.blockHeight();
    await h.dev.advanceClock(10);
    expect((await chain.now()) - before).toBeGreaterThanOrEqual(10n);
    expect(await chain.blockHeight()).toBeGreaterThanOrEqual(height + 25);
  });

  it('a maker lock signed afresh for a trade whose first one landed fails on chain: one escrow, one output', async () => {
    const taker = await newTaker(h, USDC, 10n * 10n ** 6n);
    const output = 50_000_000n;
    const before = await chain.tokenBalance(chain.makerWallet, SOL);
    const locked = await lockBoth(chain, taker, {
      inputMint: USDC,
      outputMint: SOL,
      input: 10n ** 6n,
      output,
    });
    // The runtime signs a maker lock again only once the last is proved lapsed; should both land anyway (a
    // lapse misjudged), the escrow's address — derived from the taker escrow's — admits one of them only.
    await h.dev.advanceClock(1);
    const now = await chain.now();
    const again = await chain.signMakerLock({
      takerEscrow: locked.takerEscrow,
      taker: taker.publicKey,
      inputMint: USDC,
      inputAmount: 10n ** 6n,
      takerExpiry: locked.takerExpiry,
      outputMint: SOL,
      amount: output,
      hashlock: locked.hashlock,
      expiry: locked.makerExpiry,
      lockDeadline: now + 30n,
    });
    expect(again.signature).not.toBe(locked.makerLock.signature);
    const refused = await chain.land(again, 'finalized', 5_000).then(
      (state) => ('err' in state ? state.err : `landed as ${state.status}`),
      (error: unknown) => (error instanceof ChainError ? (error.htlcError ?? error.message) : String(error)),
    );
    expect(refused).toMatch(/EscrowAlreadyExists/);
    expect(await chain.readEscrow(locked.makerEscrow, 'finalized')).toMatchObject({ amount: output });
    expect(await chain.tokenBalance(chain.makerWallet, SOL)).toBe(before - output);
  });

  it('airdrops an asset plus SOL for fees and rent', async () => {
    const wallet = Keypair.generate();
    const { signature } = await h.dev.airdrop({ wallet: wallet.publicKey, mint: USDC, amount: 123_456n });
    expect(await chain.signatureState(signature)).toMatchObject({ status: 'finalized', err: null });
    expect(await chain.tokenBalance(wallet.publicKey, USDC)).toBe(123_456n);
    expect(await chain.solBalance(wallet.publicKey)).toBe(50_000_000n);
    await h.dev.airdrop({ wallet: wallet.publicKey, mint: SOL, amount: 2n * 10n ** 9n });
    expect(await chain.solBalance(wallet.publicKey)).toBe(2_050_000_000n);
  });

  it('settles USDC→SOL: lock signed as returned, maker lock, taker redeem in wallet mode with unwrap, maker redeem', async () => {
    const input = 250n * 10n ** 6n;
    const output = 1_500_000_000n;
    const taker = await newTaker(h, USDC, input);
    const makerUsdc = await chain.tokenBalance(chain.makerWallet, USDC);
    const makerSol = await chain.tokenBalance(chain.makerWallet, SOL);
    const started = performance.now();

    const t = await lockBoth(chain, taker, { inputMint: USDC, outputMint: SOL, input, output });
    expect(await chain.tokenBalance(taker.publicKey, USDC)).toBe(0n);
    const lamportsBefore = await chain.solBalance(taker.publicKey);

    const redeem = await chain.buildTakerRedeem({
      taker: taker.publicKey,
      takerEscrow: t.takerEscrow,
      outputMint: SOL,
      preimage: t.preimage,
    });
    const { signature: redeemSig } = await chain.submitSigned(walletSign(redeem, taker));
    const redeemState = await chain.confirm(redeemSig, 'finalized', 5_000);
    expect(redeemState).toMatchObject({ status: 'finalized', err: null });

    const makerEscrow = await chain.readEscrow(t.makerEscrow, 'finalized');
    expect(makerEscrow?.status).toBe('redeemed');
    expect(Buffer.from(makerEscrow?.preimage ?? []).equals(t.preimage)).toBe(true);
    const makerRedeem = await chain.signMakerRedeem({
      takerEscrow: t.takerEscrow,
      inputMint: USDC,
      preimage: makerEscrow?.preimage as Uint8Array,
    });
    await chain.send(makerRedeem);
    const settled = await chain.confirm(makerRedeem.signature, 'finalized', 5_000);
    expect(settled).toMatchObject({ status: 'finalized', err: null });
    const elapsed = performance.now() - started;
    console.log(
      `[${h.name}] full swap (taker lock → maker redeem, 4 transactions): ${elapsed.toFixed(0)} ms`,
    );

    // The wallet-mode redeem unwrapped: output plus the WSOL account's rent came back as lamports.
    expect(await chain.tokenBalance(taker.publicKey, SOL)).toBe(0n);
    expect((await chain.solBalance(taker.publicKey)) - lamportsBefore).toBe(
      output + TOKEN_ACCOUNT_RENT - feeOf(redeemState),
    );
    expect(await chain.tokenBalance(chain.makerWallet, USDC)).toBe(makerUsdc + input);
    expect(await chain.tokenBalance(chain.makerWallet, SOL)).toBe(makerSol - output);
    expect((await chain.readEscrow(t.takerEscrow, 'finalized'))?.status).toBe('redeemed');
    // A maker fee is known for its ledger; the priority fee shows on the rpc chain.
    expect(feeOf(settled)).toBeGreaterThanOrEqual(5_000n);

    // The maker closes its settled escrow and gets the rent back.
    const close = await chain.signClose({ escrow: t.makerEscrow, mint: SOL });
    expect(await chain.land(close, 'finalized', 5_000)).toMatchObject({ status: 'finalized', err: null });
    expect(await chain.readEscrow(t.makerEscrow, 'finalized')).toBeNull();
  });

  it('settles SOL→USDC: wallet-prepended priority fee on the lock, maker-submitted taker redeem', async () => {
    const input = 3n * 10n ** 9n;
    const output = 450n * 10n ** 6n;
    const taker = await newTaker(h, SOL, input);
    const makerSol = await chain.tokenBalance(chain.makerWallet, SOL);
    const makerUsdc = await chain.tokenBalance(chain.makerWallet, USDC);
    const t = await lockBoth(chain, taker, {
      inputMint: SOL,
      outputMint: USDC,
      input,
      output,
      priorityFeeWallet: true,
    });
    // The lock wrapped the SOL; its fee includes the wallet's priority fee.
    const lockState = await chain.signatureState(t.lockSignature);
    expect(feeOf(lockState)).toBeGreaterThan(5_000n);

    const redeemFor = await chain.signRedeemFor({
      takerEscrow: t.takerEscrow,
      taker: taker.publicKey,
      outputMint: USDC,
      preimage: t.preimage,
    });
    expect(await chain.land(redeemFor, 'finalized', 5_000)).toMatchObject({ status: 'finalized', err: null });
    expect(await chain.tokenBalance(taker.publicKey, USDC)).toBe(output);

    const revealed = (await chain.readEscrow(t.makerEscrow, 'finalized'))?.preimage as Uint8Array;
    const makerRedeem = await chain.signMakerRedeem({
      takerEscrow: t.takerEscrow,
      inputMint: SOL,
      preimage: revealed,
    });
    expect(await chain.land(makerRedeem, 'finalized', 5_000)).toMatchObject({
      status: 'finalized',
      err: null,
    });
    expect(await chain.tokenBalance(chain.makerWallet, SOL)).toBe(makerSol + input);
    expect(await chain.tokenBalance(chain.makerWallet, USDC)).toBe(makerUsdc - output);

    // Rebroadcasting a landed transaction is harmless.
    await chain.send(makerRedeem);
    await chain.send({ transactionBase64: makerRedeem.transactionBase64 });

    // The lock the taker sent is found by watching its escrow address.
    const history = await chain.signaturesForAddress(t.takerEscrow, 'finalized');
    expect(history.map((s) => s.signature)).toContain(t.lockSignature);
    expect(history.at(-1)?.signature).toBe(t.lockSignature);
    const lockTx = await chain.getTransaction(t.lockSignature, 'finalized');
    expect(lockTx?.accountKeys[0]).toBe(taker.publicKey.toBase58());
    expect(lockTx?.err).toBeNull();
  });

  it('refunds after expiry only: maker refund, then taker refund, with named HTLC errors before', async () => {
    const input = 40n * 10n ** 6n;
    const output = 200_000_000n;
    const taker = await newTaker(h, USDC, input);
    const makerSol = await chain.tokenBalance(chain.makerWallet, SOL);
    const t = await lockBoth(chain, taker, { inputMint: USDC, outputMint: SOL, input, output });

    const early = await chain.signMakerRefund({ makerEscrow: t.makerEscrow, outputMint: SOL });
    const refused = await rejection(chain.send(early));
    expect(refused.code).toBe('rejected');
    expect(refused.htlcError).toBe('EscrowNotExpired');

    await h.dev.advanceClock(Number(t.makerExpiry - (await chain.now())) + 1);
    const late = secret();
    const lateRedeem = await chain.signRedeemFor({
      takerEscrow: t.takerEscrow,
      taker: taker.publicKey,
      outputMint: SOL,
      preimage: late.preimage,
    });
    expect((await rejection(chain.send(lateRedeem))).htlcError).toBeDefined();

    const makerRefund = await chain.signMakerRefund({ makerEscrow: t.makerEscrow, outputMint: SOL });
    expect(await chain.land(makerRefund, 'finalized', 5_000)).toMatchObject({
      status: 'finalized',
      err: null,
    });
    expect(await chain.tokenBalance(chain.makerWallet, SOL)).toBe(makerSol);

    const takerTooEarly = await chain.buildTakerRefund({
      taker: taker.publicKey,
      takerEscrow: t.takerEscrow,
      inputMint: USDC,
    });
    expect((await rejection(chain.submitSigned(walletSign(takerTooEarly, taker)))).htlcError).toBe(
      'EscrowNotExpired',
    );

    await h.dev.advanceClock(Number(t.takerExpiry - (await chain.now())) + 1);
    const refund = await chain.buildTakerRefund({
      taker: taker.publicKey,
      takerEscrow: t.takerEscrow,
      inputMint: USDC,
    });
    const { signature } = await chain.submitSigned(walletSign(refund, taker));
    expect(await chain.confirm(signature, 'finalized', 5_000)).toMatchObject({
      status: 'finalized',
      err: null,
    });
    expect(await chain.tokenBalance(taker.publicKey, USDC)).toBe(input);
    expect((await chain.readEscrow(t.takerEscrow, 'finalized'))?.status).toBe('refunded');
  });

  it('lets the maker release a taker at once with cancel, and submit an expiry refund for it', async () => {
    const input = 1n * 10n ** 9n;
    const s1 = secret();
    const taker = await newTaker(h, SOL, 2n * input);
    const now = await chain.now();
    const lock = async (hashlock: Uint8Array, expiry: bigint) => {
      const unsigned = await chain.buildTakerLock({
        taker: taker.publicKey,
        inputMint: SOL,
        outputMint: USDC,
        amount: input,
        hashlock,
        expiry,
        lockDeadline: now + 5n,
      });
      await chain.submitSigned(walletSign(unsigned, taker));
      return takerEscrowAddress(chain.programId, taker.publicKey, hashlock)[0];
    };
    const escrow1 = await lock(s1.hashlock, now + 30n);
    const cancel = await chain.signMakerCancel({
      takerEscrow: escrow1,
      taker: taker.publicKey,
      inputMint: SOL,
    });
    expect(await chain.land(cancel, 'finalized', 5_000)).toMatchObject({ status: 'finalized', err: null });
    expect((await chain.readEscrow(escrow1, 'finalized'))?.status).toBe('cancelled');
    expect(await chain.tokenBalance(taker.publicKey, SOL)).toBe(input);

    const s2 = secret();
    const escrow2 = await lock(s2.hashlock, now + 30n);
    // A lock after its deadline is refused by the program.
    await h.dev.advanceClock(6);
    const tooLate = await chain.buildTakerLock({
      taker: taker.publicKey,
      inputMint: SOL,
      outputMint: USDC,
      amount: 1n,
      hashlock: secret().hashlock,
      expiry: now + 30n,
      lockDeadline: now + 5n,
    });
    expect((await rejection(chain.submitSigned(walletSign(tooLate, taker)))).htlcError).toBe(
      'LockDeadlinePassed',
    );

    await h.dev.advanceClock(30);
    const refundFor = await chain.signRefundFor({
      takerEscrow: escrow2,
      taker: taker.publicKey,
      inputMint: SOL,
    });
    expect(await chain.land(refundFor, 'finalized', 5_000)).toMatchObject({ status: 'finalized', err: null });
    expect(await chain.tokenBalance(taker.publicKey, SOL)).toBe(2n * input);
  });

  it('refuses unsigned, malformed and expired transactions before they reach the chain', async () => {
    const taker = await newTaker(h, USDC, 10n ** 6n);
    const s = secret();
    const now = await chain.now();
    const unsigned = await chain.buildTakerLock({
      taker: taker.publicKey,
      inputMint: USDC,
      outputMint: SOL,
      amount: 10n ** 6n,
      hashlock: s.hashlock,
      expiry: now + 600n,
      lockDeadline: now + 300n,
    });
    expect((await rejection(chain.submitSigned(unsigned.transactionBase64))).code).toBe('missing_signature');
    expect((await rejection(chain.submitSigned('bm90IGEgdHJhbnNhY3Rpb24='))).code).toBe(
      'invalid_transaction',
    );
    expect((await rejection(chain.submitSigned('%%%'))).code).toBe('invalid_transaction');

    const signed = walletSign(unsigned, taker);
    const makerTx = await chain.signMakerCancel({
      takerEscrow: takerEscrowAddress(chain.programId, taker.publicKey, s.hashlock)[0],
      taker: taker.publicKey,
      inputMint: USDC,
    });
    // ~150 blocks of 400 ms: a minute and a half later the blockhash is gone, as on a cluster.
    await h.dev.advanceClock(90);
    expect((await rejection(chain.submitSigned(signed))).code).toBe('blockhash_expired');
    expect(await chain.land(makerTx, 'finalized', 5_000)).toEqual({ status: 'expired' });
    expect(await chain.signatureState(makerTx.signature)).toEqual({ status: 'unknown' });
    expect(await chain.tokenBalance(taker.publicKey, USDC)).toBe(10n ** 6n);
  });
  it('reads many escrows at once, in input order, as readEscrow reads each', async () => {
    const taker = await newTaker(h, USDC, 10n ** 6n);
    const t = await lockBoth(chain, taker, {
      inputMint: USDC,
      outputMint: SOL,
      input: 10n ** 6n,
      output: 10n ** 7n,
    });
    const addresses = [
      t.makerEscrow,
      Keypair.generate().publicKey,
      USDC,
      t.takerEscrow,
      vaultAddress(chain.programId, t.takerEscrow)[0],
      chain.makerWallet,
    ];
    const escrows = await chain.readEscrows(addresses, 'finalized');
    expect(escrows.map((e) => e?.kind ?? null)).toEqual(['maker', null, null, 'taker', null, null]);
    expect(escrows).toEqual(await Promise.all(addresses.map((a) => chain.readEscrow(a, 'finalized'))));
    expect(await chain.readEscrows([], 'finalized')).toEqual([]);
  });

  it('reads more than 100 escrows with one getMultipleAccounts per 100 keys, the clock riding along', async () => {
    const taker = await newTaker(h, USDC, 10n ** 6n);
    const t = await lockBoth(chain, taker, {
      inputMint: USDC,
      outputMint: SOL,
      input: 10n ** 6n,
      output: 10n ** 7n,
    });
    const addresses = Array.from({ length: 250 }, () => Keypair.generate().publicKey);
    addresses[0] = t.takerEscrow;
    addresses[100] = t.makerEscrow;
    addresses[249] = t.takerEscrow;
    const expectCalls = (calls: Record<string, number>, n: number) =>
      expect(calls).toEqual(h.server ? { getMultipleAccounts: n } : {});

    const read = await serverCalls(h, () => chain.readEscrows(addresses, 'finalized'));
    expectCalls(read.calls, 3);
    const kinds = read.result.map((e) => e?.kind ?? null);
    expect(kinds.filter((k) => k !== null)).toHaveLength(3);
    expect([kinds[0], kinds[100], kinds[249]]).toEqual(['taker', 'maker', 'taker']);

    const before = await chain.now();
    const withClock = await serverCalls(h, () => chain.readEscrowsAndClock(addresses, 'finalized'));
    expectCalls(withClock.calls, 3);
    expect(withClock.result.escrows).toEqual(read.result);
    expect(withClock.result.now).toBeGreaterThanOrEqual(before);
    expect(withClock.result.now - before).toBeLessThan(5n);
    expect(withClock.result.slot).toBeGreaterThan(0);
    // A full last chunk leaves the clock no room: one call more.
    expectCalls(
      (await serverCalls(h, () => chain.readEscrowsAndClock(addresses.slice(0, 200), 'finalized'))).calls,
      3,
    );
    expectCalls((await serverCalls(h, () => chain.readEscrowsAndClock([], 'finalized'))).calls, 1);
  });

  it('pushes the escrows that a lock and a redeem changed, live from the start', async () => {
    const { seen, feed } = watch(chain);
    try {
      await eventually(() => feed.live);
      expect(feed.generation).toBe(1);
      const taker = await newTaker(h, SOL, 10n ** 9n);
      const t = await lockBoth(chain, taker, {
        inputMint: SOL,
        outputMint: USDC,
        input: 10n ** 9n,
        output: 10n ** 6n,
      });
      await eventually(() => seen.has(b58(t.takerEscrow)) && seen.has(b58(t.makerEscrow)));

      seen.clear();
      const redeem = await chain.signRedeemFor({
        takerEscrow: t.takerEscrow,
        taker: taker.publicKey,
        outputMint: USDC,
        preimage: t.preimage,
      });
      expect(await chain.land(redeem, 'finalized', 5_000)).toMatchObject({ status: 'finalized', err: null });
      await eventually(() => seen.has(b58(t.makerEscrow)));
      expect(seen.has(b58(t.takerEscrow))).toBe(false);
      expect(feed.live).toBe(true);
    } finally {
      feed.close();
    }
    expect(feed.live).toBe(false);
  });

  it('records token balances: a lock fills the vault, a redeem empties it into the recipient account', async () => {
    const input = 70n * 10n ** 6n;
    const taker = await newTaker(h, USDC, input);
    const makerUsdc = await chain.tokenBalance(chain.makerWallet, USDC);
    const t = await lockBoth(chain, taker, {
      inputMint: USDC,
      outputMint: SOL,
      input,
      output: 3n * 10n ** 8n,
    });
    const vault = b58(vaultAddress(chain.programId, t.takerEscrow)[0]);

    const lock = await chain.getTransaction(t.lockSignature, 'finalized');
    expect(lock?.tokenBalances).toEqual(
      expect.arrayContaining([
        { account: vault, mint: b58(USDC), owner: b58(t.takerEscrow), pre: 0n, post: input },
        {
          account: b58(ata(taker.publicKey, USDC)),
          mint: b58(USDC),
          owner: b58(taker.publicKey),
          pre: input,
          post: 0n,
        },
        // The lock also created the taker's (empty) output account: it existed after, so it is listed.
        {
          account: b58(ata(taker.publicKey, SOL)),
          mint: b58(SOL),
          owner: b58(taker.publicKey),
          pre: 0n,
          post: 0n,
        },
      ]),
    );

    const redeem = await chain.signMakerRedeem({
      takerEscrow: t.takerEscrow,
      inputMint: USDC,
      preimage: t.preimage,
    });
    expect(await chain.land(redeem, 'finalized', 5_000)).toMatchObject({ status: 'finalized', err: null });
    const redeemed = await chain.getTransaction(redeem.signature, 'finalized');
    expect(redeemed?.tokenBalances).toEqual(
      expect.arrayContaining([
        { account: vault, mint: b58(USDC), owner: b58(t.takerEscrow), pre: input, post: 0n },
        {
          account: b58(ata(chain.makerWallet, USDC)),
          mint: b58(USDC),
          owner: b58(chain.makerWallet),
          pre: makerUsdc,
          post: makerUsdc + input,
        },
      ]),
    );
  });

  it('shows where a closed escrow went: one transaction redeems it and closes it, vault and all', async () => {
    const output = 90n * 10n ** 6n;
    const taker = await newTaker(h, SOL, 10n ** 9n);
    const t = await lockBoth(chain, taker, { inputMint: SOL, outputMint: USDC, input: 10n ** 9n, output });
    const vault = b58(vaultAddress(chain.programId, t.makerEscrow)[0]);
    const takerUsdc = b58(ata(taker.publicKey, USDC));
    const { seen, feed } = watch(chain);
    try {
      await eventually(() => feed.live);
      const lifetime = await chain.latestBlockhash();
      const tx = new Transaction({ feePayer: h.maker.publicKey, ...lifetime }).add(
        redeemInstruction({
          programId: chain.programId,
          escrow: t.makerEscrow,
          recipientTokenAccount: ata(taker.publicKey, USDC),
          preimage: t.preimage,
        }),
        closeInstruction({
          programId: chain.programId,
          initializer: h.maker.publicKey,
          escrow: t.makerEscrow,
        }),
      );
      tx.sign(h.maker);
      const { signature } = await chain.submitSigned(tx.serialize().toString('base64'));
      expect(await chain.confirm(signature, 'finalized', 5_000)).toMatchObject({
        status: 'finalized',
        err: null,
      });
      expect(await chain.readEscrow(t.makerEscrow, 'finalized')).toBeNull();

      const closed = await chain.getTransaction(signature, 'finalized');
      expect(closed?.tokenBalances).toHaveLength(2);
      expect(closed?.tokenBalances).toEqual(
        expect.arrayContaining([
          // The vault is gone (post 0) and its owner is still known: the escrow it belonged to.
          { account: vault, mint: b58(USDC), owner: b58(t.makerEscrow), pre: output, post: 0n },
          { account: takerUsdc, mint: b58(USDC), owner: b58(taker.publicKey), pre: 0n, post: output },
        ]),
      );

      // Pushes arrive in order: once a later change to the taker escrow is in, the close's would be too.
      const makerRedeem = await chain.signMakerRedeem({
        takerEscrow: t.takerEscrow,
        inputMint: SOL,
        preimage: t.preimage,
      });
      expect(await chain.land(makerRedeem, 'finalized', 5_000)).toMatchObject({
        status: 'finalized',
        err: null,
      });
      await eventually(() => seen.has(b58(t.takerEscrow)));
      // programSubscribe, like a validator's, says nothing of an account its program no longer owns.
      expect(seen.has(b58(t.makerEscrow))).toBe(h.name === 'embedded');
    } finally {
      feed.close();
    }
  });
});
