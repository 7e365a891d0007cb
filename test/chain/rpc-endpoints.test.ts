// The rpc chain over several endpoints, each a proxy (rpc-proxy.ts) in front of one loopback chain server
// that a test switches into the ways an endpoint misbehaves: reads fail over, sends go to every endpoint,
// and an endpoint that lags is never believed that something is absent.

import { once } from 'node:events';
import { createServer } from 'node:net';
import { Keypair, Transaction } from '@solana/web3.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ChainError } from '../../src/chain/errors.ts';
import { takerEscrowAddress } from '../../src/chain/htlc/index.ts';
import { openProgramFeed } from '../../src/chain/rpc/feed.ts';
import type { RpcChainOptions } from '../../src/chain/rpc/index.ts';
import { encodeBase58 } from '../../src/vocabulary/base58.ts';
import { INVENTORY, rpcEndpointsHarness, SOL, secret, USDC, walletSign } from './fixtures.ts';
import type { ProxyMode } from './rpc-proxy.ts';

type EndpointsHarness = Awaited<ReturnType<typeof rpcEndpointsHarness>>;

let h: EndpointsHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

async function harness(options: Partial<RpcChainOptions> = {}) {
  h = await rpcEndpointsHarness(2, options);
  return h;
}

async function rejection(p: Promise<unknown>): Promise<ChainError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ChainError) return e;
    throw e;
  }
  throw new Error('expected a ChainError');
}

/** A funded taker's lock, signed by its wallet and not yet sent; its escrow and signature. */
async function takerLock(of: EndpointsHarness) {
  const taker = Keypair.generate();
  await of.dev.airdrop({ wallet: taker.publicKey, mint: USDC, amount: 10n ** 6n });
  const s = secret();
  const now = await of.chain.now();
  const unsigned = await of.chain.buildTakerLock({
    taker: taker.publicKey,
    inputMint: USDC,
    outputMint: SOL,
    amount: 10n ** 6n,
    hashlock: s.hashlock,
    expiry: now + 600n,
    lockDeadline: now + 60n,
  });
  const signed = walletSign(unsigned, taker);
  const signature = encodeBase58(
    Transaction.from(Buffer.from(signed, 'base64')).signature ?? new Uint8Array(64),
  );
  const [takerEscrow] = takerEscrowAddress(of.chain.programId, taker.publicKey, s.hashlock);
  return { taker, ...s, now, signed, signature, takerEscrow };
}

/** The taker lock landed, and the maker's lock signed for it (not sent). */
async function takerLockedMakerSigned(of: EndpointsHarness) {
  const t = await takerLock(of);
  const { signature } = await of.chain.submitSigned(t.signed);
  expect((await of.chain.confirm(signature, 'finalized', 10_000)).status).toBe('finalized');
  const makerLock = await of.chain.signMakerLock({
    takerEscrow: t.takerEscrow,
    taker: t.taker.publicKey,
    inputMint: USDC,
    inputAmount: 10n ** 6n,
    takerExpiry: t.now + 600n,
    outputMint: SOL,
    amount: 10n ** 7n,
    hashlock: t.hashlock,
    expiry: t.now + 300n,
    lockDeadline: t.now + 60n,
  });
  return { t, makerLock };
}

/** The taker lock landed, then the maker's lock landed through land(). */
async function lockBoth(of: EndpointsHarness) {
  const { t, makerLock } = await takerLockedMakerSigned(of);
  expect(await of.chain.land(makerLock, 'finalized', 10_000)).toMatchObject({
    status: 'finalized',
    err: null,
  });
  return t;
}

const calls = (of: EndpointsHarness, i: number, method: string) => of.proxies[i]?.calls[method] ?? 0;

describe('the rpc chain over several endpoints', () => {
  it.each<ProxyMode>(['down', '503', '429', 'reset', 'hang'])(
    'a read the primary does not answer (%s) is answered by the next endpoint',
    async (mode) => {
      // Only a hanging primary needs the timeout; a next endpoint slower than it on a loaded machine would be
      // asked twice, so it is as long as the test can afford (the other modes never wait on it).
      const requestTimeoutMs = mode === 'hang' ? 1_500 : 10_000;
      const { chain, proxies } = await harness({ requestTimeoutMs, slotProbeIntervalMs: 0 });
      await proxies[0]?.set(mode);
      const usdc = INVENTORY[0]?.amount;
      expect(await chain.tokenBalance(chain.makerWallet, USDC)).toBe(usdc);
      expect(await chain.readEscrows([Keypair.generate().publicKey], 'finalized')).toEqual([null]);
      expect((await chain.readEscrowsAndClock([], 'finalized')).now).toBeGreaterThan(0n);
      expect(calls(h as EndpointsHarness, 1, 'getAccountInfo')).toBe(1);
      expect(calls(h as EndpointsHarness, 1, 'getMultipleAccounts')).toBe(2);

      // Back up and seen answering (health asks every endpoint): the primary is asked first again.
      await proxies[0]?.set('up');
      expect((await chain.health()).ok).toBe(true);
      const before = calls(h as EndpointsHarness, 0, 'getMultipleAccounts');
      await chain.readEscrows([Keypair.generate().publicKey], 'finalized');
      expect(calls(h as EndpointsHarness, 0, 'getMultipleAccounts')).toBe(before + 1);
      expect(calls(h as EndpointsHarness, 1, 'getMultipleAccounts')).toBe(2);
    },
  );

  it('a read no endpoint answered is asked again at once when the failures passed quickly; a lasting one fails', async () => {
    h = await rpcEndpointsHarness(1, { slotProbeIntervalMs: 0 });
    const [proxy] = h.proxies;
    if (!proxy) throw new Error('one endpoint');
    const usdc = INVENTORY[0]?.amount;
    // Two requests lost in a row (a reset, a 503 passing): the read still answers, asked three times.
    proxy.failNext = 2;
    const before = proxy.calls.getAccountInfo ?? 0;
    expect(await h.chain.tokenBalance(h.chain.makerWallet, USDC)).toBe(usdc);
    expect((proxy.calls.getAccountInfo ?? 0) - before).toBe(3);
    // Failing for longer than the pauses: unavailable, after three rounds, each problem named once.
    proxy.failNext = 3;
    const error = await rejection(h.chain.tokenBalance(h.chain.makerWallet, USDC));
    expect(error.code).toBe('unavailable');
    expect(error.message.match(/503/g)).toHaveLength(1);
    expect(proxy.failNext).toBe(0);
  });

  it('a landing goes on through reads that fail for longer than a read asks: the bytes go out again and land', async () => {
    h = await rpcEndpointsHarness(1, { slotProbeIntervalMs: 0 });
    const [proxy] = h.proxies;
    if (!proxy) throw new Error('one endpoint');
    const { makerLock } = await takerLockedMakerSigned(h);
    // Twelve requests in a row fail: several reads' every round, and sends among them.
    proxy.failNext = 12;
    expect(await h.chain.land(makerLock, 'finalized', 10_000)).toMatchObject({
      status: 'finalized',
      err: null,
    });
    expect(proxy.failNext).toBe(0);
  });

  it('every endpoint down: unavailable, each endpoint named by its origin only', async () => {
    const { chain, proxies } = await harness({ slotProbeIntervalMs: 0 });
    const t = await takerLock(h as EndpointsHarness);
    for (const proxy of proxies) await proxy.set('down');

    for (const call of [
      () => chain.now(),
      () => chain.readEscrow(t.takerEscrow, 'finalized'),
      () => chain.signatureState(t.signature),
      () => chain.submitSigned(t.signed),
    ]) {
      const error = await rejection(call());
      expect(error.code).toBe('unavailable');
      for (const proxy of proxies) expect(error.message).toContain(proxy.origin);
      expect(error.message).not.toContain('SECRET');
    }
    const health = await chain.health();
    expect(health.ok).toBe(false);
    expect(health.detail).toContain(`${proxies[0]?.origin} unreachable`);
    expect(health.detail).toContain(`${proxies[1]?.origin} unreachable`);
    expect(health.detail).not.toContain('SECRET');

    await proxies[1]?.set('up');
    const { signature } = await chain.submitSigned(t.signed);
    expect((await chain.confirm(signature, 'finalized', 10_000)).status).toBe('finalized');
    expect(await chain.readEscrow(t.takerEscrow, 'finalized')).toMatchObject({
      kind: 'taker',
      status: 'locked',
    });
  });

  it('a transaction the primary drops (answered with its signature, never forwarded) lands through the other', async () => {
    const { chain, proxies, server } = await harness();
    await proxies[0]?.set('drop-sends');
    const sent = server.stats().http.sendTransaction ?? 0;
    const t = await lockBoth(h as EndpointsHarness);
    expect(await chain.readEscrow(t.takerEscrow, 'finalized')).toMatchObject({ status: 'locked' });
    // Both sends reached the primary, which forwarded neither; the chain got them from the other endpoint.
    expect(calls(h as EndpointsHarness, 0, 'sendTransaction')).toBeGreaterThanOrEqual(2);
    expect(calls(h as EndpointsHarness, 1, 'sendTransaction')).toBeGreaterThanOrEqual(2);
    expect((server.stats().http.sendTransaction ?? 0) - sent).toBe(
      calls(h as EndpointsHarness, 1, 'sendTransaction'),
    );

    // And with the primary down altogether.
    await proxies[0]?.set('down');
    await lockBoth(h as EndpointsHarness);
  });

  it('signature statuses asked within one turn are read in one getSignatureStatuses call, each answered', async () => {
    h = await rpcEndpointsHarness(1, { slotProbeIntervalMs: 0 });
    const t = await takerLock(h);
    const { signature } = await h.chain.submitSigned(t.signed);
    expect((await h.chain.confirm(signature, 'confirmed', 10_000)).status).not.toBe('unknown');
    const unknown = Array.from({ length: 5 }, () => encodeBase58(Keypair.generate().secretKey));
    const before = calls(h, 0, 'getSignatureStatuses');
    const states = await Promise.all([signature, ...unknown].map((s) => h?.chain.signatureState(s)));
    expect(calls(h, 0, 'getSignatureStatuses') - before).toBe(1);
    expect(states[0]?.status).not.toBe('unknown');
    expect(states.slice(1)).toEqual(unknown.map(() => ({ status: 'unknown' })));
  });

  it('an escrow or a signature that only a lagging endpoint says is absent is not taken as absent', async () => {
    // 30 s of chain is 75 slots, past a tolerance of 40; the blockhash of the lock (150 slots) still holds.
    const { chain, proxies, dev } = await harness({ maxSlotLag: 40, slotProbeIntervalMs: 0 });
    const t = await takerLock(h as EndpointsHarness);
    // The primary answers while it follows the chain: the escrow absent, the lock unknown.
    expect(await chain.readEscrow(t.takerEscrow, 'finalized')).toBeNull();
    expect(await chain.readEscrows([t.takerEscrow], 'finalized')).toEqual([null]);
    expect(await chain.signatureState(t.signature)).toEqual({ status: 'unknown' });

    // The chain moves on; every endpoint shows the new slot; then the primary stops following it and
    // answers what it answered before.
    await dev.advanceClock(30);
    expect((await chain.health()).ok).toBe(true);
    await proxies[0]?.set('stale');
    const { signature } = await chain.submitSigned(t.signed);
    expect(signature).toBe(t.signature);

    // The primary, still taken as current, is asked first: its "not there" comes from 75 slots back.
    expect(await chain.signatureState(t.signature)).toMatchObject({ status: 'finalized', err: null });
    expect(await chain.readEscrow(t.takerEscrow, 'finalized')).toMatchObject({
      kind: 'taker',
      status: 'locked',
    });
    expect((await chain.readEscrows([t.takerEscrow], 'finalized'))[0]).toMatchObject({ kind: 'taker' });
    expect(proxies[0]?.staleAnswers).toMatchObject({
      getSignatureStatuses: 1,
      getAccountInfo: 1,
      getMultipleAccounts: 1,
    });

    // With no current endpoint left the port does not say "absent": the chain is unavailable.
    await proxies[1]?.set('down');
    const error = await rejection(chain.readEscrow(t.takerEscrow, 'finalized'));
    expect(error.code).toBe('unavailable');
    expect(error.message).toMatch(/lags .* is not believed/);
    expect((await rejection(chain.readEscrows([t.takerEscrow], 'finalized'))).code).toBe('unavailable');
  });

  it('with no slot probe, an answer about absence first asks the other endpoints their slot', async () => {
    const { chain, proxies, dev } = await harness({ maxSlotLag: 40, slotProbeIntervalMs: 0 });
    const t = await takerLock(h as EndpointsHarness);
    // The primary's "absent" was checked against the other endpoint's slot, which is now as old as the
    // slot the clock jumps from: over a second old, it is asked again.
    expect(await chain.readEscrow(t.takerEscrow, 'finalized')).toBeNull();
    await dev.advanceClock(30);
    await proxies[0]?.set('stale');
    await chain.submitSigned(t.signed);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const slotsAsked = calls(h as EndpointsHarness, 1, 'getSlot');
    expect(await chain.readEscrow(t.takerEscrow, 'finalized')).toMatchObject({ kind: 'taker' });
    expect(proxies[0]?.staleAnswers.getAccountInfo).toBe(1);
    expect(calls(h as EndpointsHarness, 1, 'getSlot')).toBe(slotsAsked + 1);
  });

  it('an endpoint seen lagging is asked after the current ones, and health says it lags', async () => {
    const { chain, proxies, dev } = await harness({ maxSlotLag: 40, slotProbeIntervalMs: 0 });
    expect((await chain.health()).ok).toBe(true);
    await proxies[0]?.set('stale');
    await dev.advanceClock(30);
    const health = await chain.health();
    expect(health.ok).toBe(true);
    expect(health.detail).toMatch(new RegExp(`${proxies[0]?.origin} .*slots behind \\(lagging\\)`));
    expect(health.detail).not.toContain('SECRET');

    const t = await takerLock(h as EndpointsHarness);
    expect(await chain.readEscrow(t.takerEscrow, 'finalized')).toBeNull();
    expect(calls(h as EndpointsHarness, 0, 'getAccountInfo')).toBe(0);
    expect(calls(h as EndpointsHarness, 1, 'getAccountInfo')).toBeGreaterThan(0);
  });

  it('an answer from a slot older than one already used from the same endpoint is refused', async () => {
    // A tolerance no test reaches: only going backwards is at stake here.
    const { chain, proxies, dev } = await harness({ maxSlotLag: 10_000, slotProbeIntervalMs: 0 });
    const usdc = INVENTORY[0]?.amount;
    expect(await chain.tokenBalance(chain.makerWallet, USDC)).toBe(usdc);
    await dev.advanceClock(5);
    // Used from the primary at a later slot.
    expect(await chain.tokenBalance(chain.makerWallet, SOL)).toBe(INVENTORY[1]?.amount);
    await proxies[0]?.set('stale');

    expect(await chain.tokenBalance(chain.makerWallet, USDC)).toBe(usdc);
    expect(proxies[0]?.staleAnswers.getAccountInfo).toBe(1);
    expect(calls(h as EndpointsHarness, 1, 'getAccountInfo')).toBe(1);

    await proxies[1]?.set('down');
    const error = await rejection(chain.tokenBalance(chain.makerWallet, USDC));
    expect(error.code).toBe('unavailable');
    expect(error.message).toMatch(/answered from slot \d+, older than slot \d+/);
  });

  it('sends: one acceptance wins; else a current endpoint’s refusal; a lagging endpoint’s refusal is not a verdict', async () => {
    const { chain, proxies, dev } = await harness({ maxSlotLag: 40, slotProbeIntervalMs: 0 });
    const primary = proxies[0];
    const secondary = proxies[1];
    if (!primary || !secondary) throw new Error('two proxies');

    // The primary's preflight refuses, the other endpoint takes it: sent.
    primary.refuseSends = 0x1770;
    const accepted = await takerLock(h as EndpointsHarness);
    const { signature } = await chain.submitSigned(accepted.signed);
    expect((await chain.confirm(signature, 'finalized', 10_000)).status).toBe('finalized');

    // The other endpoint unreachable: the current primary's refusal is the answer.
    const refused = await takerLock(h as EndpointsHarness);
    await secondary.set('down');
    const error = await rejection(chain.submitSigned(refused.signed));
    expect(error.code).toBe('rejected');
    expect(error.txError).toEqual({ InstructionError: [0, { Custom: 0x1770 }] });

    primary.refuseSends = null;
    await secondary.set('up');

    // A primary that lags refuses from what it saw 75 slots ago: not a verdict while nothing else answers.
    expect((await chain.health()).ok).toBe(true);
    await primary.set('stale');
    await dev.advanceClock(30);
    expect((await chain.health()).detail).toContain('lagging');
    const late = await takerLock(h as EndpointsHarness);
    primary.refuseSends = 0x1770;
    await secondary.set('down');
    const notAVerdict = await rejection(chain.submitSigned(late.signed));
    expect(notAVerdict.code).toBe('unavailable');
    expect(notAVerdict.message).toMatch(/lags: its refusal .* is not believed/);
  });

  it('pushes come from the next websocket while the first cannot be reached', async () => {
    const { server } = await harness();
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));

    const feed = openProgramFeed({
      wsUrls: [`ws://127.0.0.1:${port}`, server.wsUrl],
      programId: (h as EndpointsHarness).chain.programId.toBase58(),
      commitment: 'finalized',
      onChange: () => {},
      reconnectMinMs: 10,
      reconnectMaxMs: 50,
    });
    try {
      const deadline = Date.now() + 10_000;
      while (!feed.live && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(feed.live).toBe(true);
      expect(feed.generation).toBe(1);
    } finally {
      feed.close();
    }
  });
});
