// The commitment policy end to end, on an embedded chain that keeps real time (100 ms slots, confirmed 2
// slots and finalized 30 — or 100 — slots behind the tip): under the cap the maker locks against the taker's confirmed
// lock before it is final; above it, it waits for finality as before; and a confirmed lock that a fork takes
// back ends the trade with taker_lock_rolled_back, the maker's output back with it, the books reversed — and a
// lock placed again at the same address with less in it, of another mint, or expiring other than agreed, cannot
// carry the maker's signed lock.
import { PublicKey } from '@solana/web3.js';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { makerEscrowAddress } from '../../src/chain/htlc/index.ts';
import { type EmbeddedChain, takerEscrowAddress } from '../../src/chain/index.ts';
import { SOL_MINT as SOL, USDC_MINT as USDC } from '../support/mints.ts';
import { SHORT_SETTLEMENT, startService, type TestService } from '../support/service.ts';
import { newSecret, signAsWallet, Taker } from '../support/taker.ts';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

const TIMING = { slot_ms: 100, confirmation_slots: 2, finalization_slots: 30 };
/**
 * Finality 10 s behind, for the tests that look at a lock while it is confirmed only: what they do between
 * the maker's lock and their look can take longer than 3 s on a loaded machine. The drift bound is raised
 * with it (the policy would otherwise wait for finality at so wide a gap, as it should).
 */
const SLOW_FINALITY = { timing: { ...TIMING, finalization_slots: 100 }, maxDriftSlots: 128 };

const start = (slow?: typeof SLOW_FINALITY) =>
  startService(
    (doc) => {
      doc.chain = { kind: 'embedded', timing: slow?.timing ?? TIMING };
      doc.settlement = { ...SHORT_SETTLEMENT };
      if (slow) doc.risk.confirmed_lock = { max_drift_slots: slow.maxDriftSlots };
    },
    { pollIntervalMs: 50 },
  );

const embedded = (s: TestService) => s.devChain as EmbeddedChain;

/** A trade of `amount` SOL for USDC, its lock handed over; answers once the maker's lock is there. */
async function lockedTrade(s: TestService, amount: string) {
  const taker = new Taker(s.app);
  await taker.airdrop('SOL', '10');
  const quote = await taker.quote('SOL', 'USDC', amount);
  const secret = newSecret();
  const settlement = (await taker.settle(quote.quote_id, secret)).json();
  const tradeId = settlement.trade_id as string;
  const locked = await taker.lock(tradeId, settlement.taker_lock_transaction.transaction_base64);
  expect(locked.statusCode, locked.body).toBe(202);
  const ready = await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked', 30_000);
  const signature = (kind: string) =>
    ready.tx_signature_kinds.find((s: { kind: string }) => s.kind === kind)?.signature as string;
  return { taker, quote, secret, tradeId, ready, takerLock: signature('taker_lock') };
}

const inventory = async (s: TestService) => (await s.app.inject('/v1/inventory')).json().confirmed_locks;

/** What each account of the trade's ledger nets to, network fees aside: nothing, once every movement is undone. */
async function ledgerNet(s: TestService, tradeId: string) {
  const ledger = (await s.app.inject(`/v1/runtime/ledger?trade_id=${tradeId}`)).json();
  const net = new Map<string, bigint>();
  for (const e of ledger.entries as { account: string; mint: string; side: string; amount_raw: string }[]) {
    if (e.account === 'network') continue;
    const key = `${e.account}:${e.mint}`;
    const signed = e.side === 'debit' ? BigInt(e.amount_raw) : -BigInt(e.amount_raw);
    net.set(key, (net.get(key) ?? 0n) + signed);
  }
  return { movements: ledger.entries.map((e: { movement: string }) => e.movement) as string[], net };
}

describe('the commitment policy on a chain that keeps real time', () => {
  test('under the cap the maker locks against the confirmed taker lock before it is final; redeemed as usual', async () => {
    service = await start(SLOW_FINALITY);
    const s = service;
    const { taker, secret, tradeId, takerLock } = await lockedTrade(s, '0.5');
    // The maker's lock is there while the taker's is not final yet: one finalization saved.
    expect((await s.chain.signatureState(takerLock)).status).toBe('confirmed');
    const riding = await inventory(s);
    expect(riding).toMatchObject({ trades: 1, admitted: 1, max_trade_usd: '250', max_exposure_usd: '2500' });
    expect(Number(riding.exposure_usd)).toBeGreaterThan(50);
    expect(riding.assets).toEqual([expect.objectContaining({ asset: 'USDC' })]);

    const redeem = await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage });
    expect(redeem.statusCode, redeem.body).toBe(202);
    const done = await taker.waitFor(
      tradeId,
      (t) => t.settlement_status === 'redeemed' && !t.next_action,
      120_000,
    );
    expect(done.ledger_summary.balanced).toBe(true);
    // Once the lock is final nothing rides on it.
    expect((await inventory(s)).trades).toBe(0);
    const metrics = (await s.app.inject('/metrics')).body;
    expect(metrics).toMatch(/rfq_maker_confirmed_lock_decisions_total\{outcome="admitted"\} 1/);
  }, 180_000);

  test('above the cap the maker waits for the taker lock to be final, as before', async () => {
    service = await start();
    const s = service;
    const { takerLock } = await lockedTrade(s, '2');
    expect((await s.chain.signatureState(takerLock)).status).toBe('finalized');
    expect(await inventory(s)).toMatchObject({ trades: 0, admitted: 0, refused: { trade_cap: 1 } });
  }, 90_000);

  test('a fork takes the confirmed taker lock back: the maker escrow is reclaimed at its expiry, the trade ends refunded (taker_lock_rolled_back)', async () => {
    service = await start(SLOW_FINALITY);
    const s = service;
    const chain = embedded(s);
    const maker = s.chain.makerWallet;
    const before = await chain.ledger.tokenAmount(maker, new PublicKey(USDC), 'processed');
    const { taker, secret, tradeId, takerLock, ready } = await lockedTrade(s, '0.5');
    const makerLock = ready.tx_signature_kinds.find(
      (k: { kind: string }) => k.kind === 'maker_lock',
    ).signature;
    const signedMakerLock = chain.ledger.transaction(makerLock)?.bytes as Uint8Array;
    const lockSlot = chain.ledger.transaction(takerLock)?.slot as number;
    expect(chain.ledger.commitmentOf(lockSlot)).toBe('confirmed');

    // The block the taker lock landed in, and every later one (the maker's lock among them), are gone.
    const { dropped } = await chain.rollback(lockSlot);
    expect(dropped).toContain(takerLock);
    const forked = await taker.waitFor(
      tradeId,
      (t) => t.substate === 'initiated.takerLockRolledBack',
      30_000,
    );
    expect(forked.failure_reason).toBe('taker_lock_rolled_back');
    expect(forked.tx_signature_kinds).toEqual([]);
    // The maker's output is back with it already; the service pays the taker nothing now.
    expect(await chain.ledger.tokenAmount(maker, new PublicKey(USDC), 'processed')).toBe(before);
    const redeem = await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage });
    expect(redeem.statusCode).toBe(409);
    // Anyone who saw the maker's signed lock may send it again on the new fork: the program refuses it, as
    // no taker escrow stands behind it, and nothing of the maker's moves.
    await expect(s.chain.submitSigned(Buffer.from(signedMakerLock).toString('base64'))).rejects.toThrow(
      /InvalidTakerEscrow/,
    );
    expect(await chain.ledger.tokenAmount(maker, new PublicKey(USDC), 'processed')).toBe(before);
    // The book still counts it: the maker's signed lock is out there until the maker escrow is settled.
    expect((await inventory(s)).trades).toBe(1);

    // At the maker expiry its escrow is found never refilled: the trade ends, nothing moved.
    await chain.advanceClock(SHORT_SETTLEMENT.maker_timelock_seconds + 1);
    const done = await taker.waitFor(tradeId, (t) => t.substate === 'refunded.closed', 90_000);
    expect(done.failure_reason).toBe('taker_lock_rolled_back');
    expect(done.ledger_summary.balanced).toBe(true);
    expect((await inventory(s)).trades).toBe(0);
    const ledger = (await s.app.inject(`/v1/runtime/ledger?trade_id=${tradeId}`)).json();
    const movements = ledger.entries.map((e: { movement: string }) => e.movement);
    expect(movements).toEqual(expect.arrayContaining(['taker_lock', 'maker_lock', 'rolled_back']));
    // Every account nets to nothing: the fork took back what the books had posted.
    const net = new Map<string, bigint>();
    for (const e of ledger.entries as { account: string; mint: string; side: string; amount_raw: string }[]) {
      if (e.account === 'network') continue;
      const key = `${e.account}:${e.mint}`;
      const signed = e.side === 'debit' ? BigInt(e.amount_raw) : -BigInt(e.amount_raw);
      net.set(key, (net.get(key) ?? 0n) + signed);
    }
    for (const [key, value] of net) if (!key.startsWith('maker:So1')) expect(value, key).toBe(0n);
  }, 240_000);

  // The attack the program closes: the fork took the taker's confirmed lock away, the taker places a lock at the
  // same escrow address (same wallet and hashlock, so the same PDA) holding less, or another mint, or expiring
  // one second after the maker's lock, and sends the maker's lock — signed for the agreed one and seen by
  // everyone — again. On the program before the maker lock named the taker escrow's amount and mint, it landed:
  // the maker's whole output against 1 lamport; before it named the taker escrow's expiry, it landed against a
  // taker escrow the maker has one second to redeem after a last-moment reveal, not the safety margin.
  test.each([
    { attack: '1 raw unit of the agreed mint', mint: SOL, amount: 1n, error: /TakerEscrowAmountMismatch/ },
    {
      attack: 'the agreed raw amount of another mint',
      mint: USDC,
      amount: 500_000_000n,
      error: /TakerEscrowMintMismatch/,
    },
    {
      attack: 'the agreed raw amount of the agreed mint, expiring one second after the maker lock',
      mint: SOL,
      amount: 500_000_000n,
      squeezed: true,
      error: /TakerEscrowExpiryMismatch/,
    },
  ])(
    'after the fork the taker locks $attack at the same address: the maker’s signed lock sent again is refused on chain, the maker loses nothing',
    async ({ mint, amount, squeezed, error }) => {
      service = await start(SLOW_FINALITY);
      const s = service;
      const chain = embedded(s);
      const maker = s.chain.makerWallet;
      const before = await chain.ledger.tokenAmount(maker, new PublicKey(USDC), 'processed');
      const { taker, secret, tradeId, takerLock, ready } = await lockedTrade(s, '0.5');
      const makerLock = ready.tx_signature_kinds.find(
        (k: { kind: string }) => k.kind === 'maker_lock',
      ).signature;
      const signedMakerLock = Buffer.from(chain.ledger.transaction(makerLock)?.bytes as Uint8Array);
      const hashlock = Buffer.from(secret.secretHash, 'hex');
      const [escrow] = takerEscrowAddress(s.chain.programId, taker.wallet.publicKey, hashlock);
      const agreed = await s.chain.readEscrow(escrow, 'confirmed');
      expect(agreed).toMatchObject({ amount: 500_000_000n });
      const makerExpiry = (
        await s.chain.readEscrow(makerEscrowAddress(s.chain.programId, escrow)[0], 'confirmed')
      )?.expiry as bigint;
      // The agreed taker expiry leaves the maker at least the safety margin; one second is all the squeezed one
      // leaves, strictly after the maker's as the program still asks.
      const margin = BigInt(SHORT_SETTLEMENT.safety_margin_seconds);
      expect((agreed?.expiry as bigint) - makerExpiry >= margin).toBe(true);
      const expiry = squeezed ? makerExpiry + 1n : (agreed?.expiry as bigint);

      await chain.rollback(chain.ledger.transaction(takerLock)?.slot as number);
      await taker.waitFor(tradeId, (t) => t.substate === 'initiated.takerLockRolledBack', 30_000);
      // The fork may have taken the taker's airdrop too: on a fast run it lands in the slot of its lock.
      await taker.airdrop('SOL', '10');
      if (mint === USDC) await taker.airdrop('USDC', '500');
      const { signature: placedAgain } = await s.chain.submitSigned(
        signAsWallet(
          (
            await s.chain.buildTakerLock({
              taker: taker.wallet.publicKey,
              inputMint: new PublicKey(mint),
              outputMint: new PublicKey(USDC),
              amount,
              hashlock,
              expiry,
              lockDeadline: agreed?.lockDeadline as bigint,
            })
          ).transactionBase64,
          taker.wallet,
        ),
      );
      await vi.waitFor(
        async () =>
          expect(await s.chain.readEscrow(escrow, 'confirmed')).toMatchObject({
            amount,
            expiry,
            status: 'locked',
          }),
        { timeout: 30_000, interval: 50 },
      );

      await expect(s.chain.submitSigned(signedMakerLock.toString('base64'))).rejects.toThrow(error);
      expect(await chain.ledger.tokenAmount(maker, new PublicKey(USDC), 'processed')).toBe(before);
      const redeem = await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage });
      expect(redeem.statusCode).toBe(409);

      // The lock placed again is recorded once final, and released (cancelled back to the taker) once the maker
      // expiry has passed with no maker escrow: the trade ends with its reason, nothing of the maker's moved.
      await taker.waitFor(
        tradeId,
        (t) => t.tx_signature_kinds.some((k: { signature: string }) => k.signature === placedAgain),
        60_000,
      );
      await chain.advanceClock(SHORT_SETTLEMENT.maker_timelock_seconds + 1);
      const done = await taker.waitFor(tradeId, (t) => t.substate === 'refunded.closed', 90_000);
      expect(done.failure_reason).toBe('taker_lock_rolled_back');
      expect(done.tx_signature_kinds.map((k: { kind: string }) => k.kind)).toEqual(
        expect.arrayContaining(['taker_lock', 'taker_refund']),
      );
      expect(done.tx_signature_kinds.map((k: { kind: string }) => k.kind)).not.toContain('maker_redeem');
      expect(await s.chain.readEscrow(escrow, 'confirmed')).toMatchObject({ status: 'cancelled' });
      expect(await chain.ledger.tokenAmount(maker, new PublicKey(USDC), 'processed')).toBe(before);
      expect((await inventory(s)).trades).toBe(0);
      const { movements, net } = await ledgerNet(s, tradeId);
      expect(movements).toEqual(expect.arrayContaining(['taker_lock', 'maker_lock', 'rolled_back']));
      for (const [key, value] of net) if (!key.startsWith('maker:So1')) expect(value, key).toBe(0n);
    },
    240_000,
  );

  // The maker's own lock lands at confirmed, so a fork can take it back while the taker's (final, or confirmed in
  // an earlier block) stands. Before, the trade stayed in makerLocked with a maker_lock the chain no longer
  // knew, accepted the taker's preimage (POST /redeem, 202) and tried for ever to redeem an absent escrow.
  test('a fork takes back the maker’s lock only: the maker locks again at the same escrow address, the swap completes', async () => {
    service = await start(SLOW_FINALITY);
    const s = service;
    const chain = embedded(s);
    const maker = s.chain.makerWallet;
    const before = await chain.ledger.tokenAmount(maker, new PublicKey(USDC), 'processed');
    const { taker, secret, tradeId, ready } = await lockedTrade(s, '0.5');
    const makerLock = ready.tx_signature_kinds.find(
      (k: { kind: string }) => k.kind === 'maker_lock',
    ).signature;
    const hashlock = Buffer.from(secret.secretHash, 'hex');
    const [takerEscrow] = takerEscrowAddress(s.chain.programId, taker.wallet.publicKey, hashlock);
    const [makerEscrow] = makerEscrowAddress(s.chain.programId, takerEscrow);

    const { dropped } = await chain.rollback(chain.ledger.transaction(makerLock)?.slot as number);
    expect(dropped).toContain(makerLock);
    expect(await s.chain.readEscrow(makerEscrow, 'confirmed')).toBeNull();
    expect(await s.chain.readEscrow(takerEscrow, 'confirmed')).toMatchObject({ status: 'locked' });
    // Locked again, and the trade shows the lock the chain has, never one it lost.
    const again = await vi.waitFor(
      async () => {
        const t = await taker.trade(tradeId);
        expect(t.substate).toBe('initiated.makerLocked');
        const signature = t.tx_signature_kinds.find(
          (k: { kind: string }) => k.kind === 'maker_lock',
        )?.signature;
        expect((await s.chain.signatureState(signature)).status).not.toBe('unknown');
        return signature as string;
      },
      { timeout: 60_000, interval: 100 },
    );
    expect(await s.chain.readEscrow(makerEscrow, 'confirmed')).toMatchObject({ status: 'locked' });

    const redeem = await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage });
    expect(redeem.statusCode, redeem.body).toBe(202);
    const done = await taker.waitFor(
      tradeId,
      (t) => t.settlement_status === 'redeemed' && !t.next_action,
      120_000,
    );
    expect(done.failure_reason).toBeNull();
    expect(done.ledger_summary.balanced).toBe(true);
    expect((await inventory(s)).trades).toBe(0);
    // The lost lock's posting is reversed, the one that landed posted: the maker's output left once, on chain
    // and in the books alike.
    const ledger = (await s.app.inject(`/v1/runtime/ledger?trade_id=${tradeId}`)).json();
    const entries = ledger.entries as {
      movement: string;
      signature: string;
      side: string;
      amount_raw: string;
    }[];
    const output = BigInt(
      entries.find((e) => e.movement === 'maker_lock' && e.signature === again)?.amount_raw ?? '0',
    );
    expect(output).toBeGreaterThan(0n);
    expect(before - (await chain.ledger.tokenAmount(maker, new PublicKey(USDC), 'processed'))).toBe(output);
    expect((await ledgerNet(s, tradeId)).net.get(`maker:${USDC}`)).toBe(-output);
  }, 240_000);
});
