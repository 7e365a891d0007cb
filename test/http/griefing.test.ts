// The griefing run, as a griefer would try it from outside: RFQs for the longest quotes from fresh wallets,
// from one client address and from many, and settlement starts that never lock. None of it can push an
// honest taker's quote within inventory into an inventory rejection: each client address and wallet holds
// at most its share of the free inventory (reservation_budget), all unfunded holds together count for at
// most their budget, a settlement without a landed lock lets go after the landing window, and an expired
// quote lets go at once.
import { Keypair } from '@solana/web3.js';
import { afterEach, describe, expect, test } from 'vitest';
import { startService, type TestService } from '../support/service.ts';
import { newSecret } from '../support/taker.ts';

const SOL = 'So11111111111111111111111111111111111111112';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

/**
 * A service whose clock stands still unless the test moves it (skewMs), started now; the default config:
 * 10,000 SOL of inventory, the default budget.
 */
async function start() {
  const clock = { skewMs: 0 };
  const t0 = Date.now();
  service = await startService(
    (doc) => {
      doc.risk.max_open_per_wallet = 1_000;
      doc.http.rate_limit_per_minute = 100_000;
    },
    { nowMs: () => t0 + clock.skewMs },
  );
  return { svc: service, clock };
}

/** 50,000 USDC for SOL (~266.8 SOL at 187.42), for the longest quote there is. */
const GRIEF = { input_asset: 'USDC', output_asset: 'SOL', amount: '50000', expiry_seconds: 300 };
/** The honest taker's order: 250,000 USDC for ~1,331 SOL, an eighth of the maker's 10,000 SOL. */
const HONEST = { input_asset: 'USDC', output_asset: 'SOL', amount: '250000', expiry_seconds: 120 };

const fresh = () => Keypair.generate().publicKey.toBase58();

function rfq(svc: TestService, from: string, body: Record<string, unknown>, wallet = fresh()) {
  return svc.app
    .inject({
      method: 'POST',
      url: '/v1/rfq',
      remoteAddress: from,
      payload: { ...body, taker_wallet: wallet },
    })
    .then((res) => ({ wallet, ...res.json() }));
}

/** RFQs from `from`, each from a fresh wallet, until one is refused: the accepted ones and the refusal. */
async function flood(svc: TestService, from: string, body = GRIEF) {
  const accepted: { quote_id: string; wallet: string; quoted_output_amount_raw: number }[] = [];
  for (let i = 0; i < 200; i++) {
    const answer = await rfq(svc, from, body);
    if (answer.status !== 'accepted') return { accepted, refusal: answer };
    accepted.push(answer);
  }
  throw new Error(`${from}: 200 RFQs and no refusal`);
}

/** A settlement start that will never lock (no funds, no transaction). */
async function settleWithoutLock(
  svc: TestService,
  from: string,
  quote: { quote_id: string; wallet: string },
) {
  const res = await svc.app.inject({
    method: 'POST',
    url: `/v1/quotes/${quote.quote_id}/wallet-settlement`,
    remoteAddress: from,
    payload: { taker_wallet: quote.wallet, secret_hash: newSecret().secretHash },
  });
  expect(res.statusCode).toBe(201);
}

const checks = (answer: { reasons: { check: string }[] }) => answer.reasons.map((r) => r.check);
const sol = (raw: bigint) => Number(raw) / 1e9;

describe('unfunded requests cannot exhaust the inventory', () => {
  test('many fresh wallets from one client address: the address’s share refuses them, an honest quote is accepted', async () => {
    const { svc, clock } = await start();
    const griefer = '198.51.100.7';
    const { accepted, refusal } = await flood(svc, griefer);
    // A quarter of the 10,000 SOL per client address: nine quotes of ~266.8 SOL, the tenth refused.
    expect(accepted).toHaveLength(9);
    expect(checks(refusal)).toEqual(['reservation_budget']);
    const held = accepted.reduce((sum, q) => sum + BigInt(q.quoted_output_amount_raw), 0n);
    expect(refusal.reasons[0].message).toBe(
      `client ${griefer} holds ${(Number(held) / 1e9).toFixed(9)} SOL in unfunded quotes and settlements; ` +
        `with ${refusal.reasons[0].message.split('with ')[1]?.split(' more')[0]} more it would pass its share ` +
        'of 2500.000000000 SOL',
    );
    // Its quotes become settlements that never lock: they still count against the address.
    for (const quote of accepted) await settleWithoutLock(svc, griefer, quote);
    expect(svc.quotes.reservations.heldByClient(griefer, SOL)).toBe(held);
    expect(checks((await flood(svc, griefer)).refusal)).toEqual(['reservation_budget']);

    const honest = await rfq(svc, '203.0.113.9', HONEST);
    expect(honest.status).toBe('accepted');
    expect(honest.risk_checks).toContain('inventory');

    // The settlements let go after the 30 s landing window (not the 120 s lock window): the griefer's
    // address may hold its share again, and no more.
    clock.skewMs = 40_000;
    expect(svc.quotes.heldAgainst(SOL, 10_000_000_000_000n)).toBe(BigInt(honest.quoted_output_amount_raw));
    expect(svc.quotes.reservations.heldByClient(griefer, SOL)).toBe(0n);
    expect((await flood(svc, griefer)).accepted).toHaveLength(9);
  });

  test('many client addresses, each with fresh wallets, and settlements without locks: an honest quote is accepted', async () => {
    const { svc } = await start();
    let total = 0n;
    const perAddress: number[] = [];
    for (let i = 1; i <= 24; i++) {
      const from = `198.51.100.${i}`;
      const { accepted, refusal } = await flood(svc, from);
      expect(checks(refusal)).toEqual(['reservation_budget']);
      perAddress.push(accepted.length);
      for (const quote of accepted) total += BigInt(quote.quoted_output_amount_raw);
      // Every third address starts settlements it never locks.
      if (i % 3 === 0) for (const quote of accepted) await settleWithoutLock(svc, from, quote);
    }
    // Each address got its share; together they hold more than the maker has...
    expect(perAddress.every((n) => n === 9)).toBe(true);
    expect(sol(total)).toBeGreaterThan(50_000);
    // ...but count for at most half of it: the other half still quotes.
    expect(svc.quotes.heldAgainst(SOL, 10_000_000_000_000n)).toBe(5_000_000_000_000n);
    const honest = await rfq(svc, '203.0.113.9', HONEST);
    expect(honest.status).toBe('accepted');
    // Even from an address that shares nothing with them, one order may take up to the other half.
    const large = await rfq(svc, '203.0.113.10', { ...HONEST, amount: '900000' });
    expect(large.status === 'rejected' ? checks(large) : []).not.toContain('inventory');
  });

  test('expired quotes release at once: the moment a quote expires its output is free again', async () => {
    const { svc, clock } = await start();
    const from = '198.51.100.77';
    const { accepted, refusal } = await flood(svc, from, { ...GRIEF, expiry_seconds: 5 });
    expect(accepted).toHaveLength(9);
    expect(checks(refusal)).toEqual(['reservation_budget']);
    clock.skewMs = 4_999;
    expect(checks(await rfq(svc, from, GRIEF))).toEqual(['reservation_budget']);
    clock.skewMs = 5_000;
    const again = await rfq(svc, from, GRIEF);
    expect(again.status).toBe('accepted');
    expect(svc.quotes.reservations.heldByClient(from, SOL)).toBe(BigInt(again.quoted_output_amount_raw));
  });
});
