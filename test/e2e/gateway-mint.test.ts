// Just-in-time minting through Circle Gateway, end to end on the embedded Gateway the service starts (anvil as
// the EVM source domain, the dev Gateway's API, our GatewayMinter on the embedded chain): a maker with 50 USDC
// on Solana and 1,000 in its unified balance is asked for ~93 USDC. After the taker's lock is final the maker
// signs a burn intent of the shortfall, has it attested, mints it (gateway_mint) and only then locks; the dev
// Gateway burns the deposit afterwards (gateway_burn). The EVM deposit shrinks by value + fee, the maker's
// Solana USDC grows by value, and the ledger balances. With the dev Gateway's API down, or the fee above the
// cap (test/runtime/minting.test.ts), the maker declines (gateway_failed) and releases the taker's escrow at once.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { devFee } from '../../src/gateway/dev/index.ts';
import {
  lockedTrade,
  mintingConfig,
  SOLANA_USDC,
  solanaUsdc,
  unifiedCounted,
  until,
} from '../support/gateway-mint.ts';
import { USDC_MINT } from '../support/mints.ts';
import { startService, type TestService } from '../support/service.ts';

type Json = ReturnType<typeof JSON.parse>;

describe('a USDC output larger than the Solana balance, minted just in time', { shuffle: false }, () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(mintingConfig());
  }, 120_000);
  afterAll(async () => service?.dispose());

  test('mints the shortfall before the maker lock, settles, and later shows the source burn', async () => {
    await unifiedCounted(service);
    const evm = service.gateway?.embedded?.evm;
    const depositor = service.gateway?.depositor as `0x${string}`;
    if (!evm) throw new Error('no embedded Gateway');
    const depositBefore = await evm.availableBalance(depositor);
    const usdcBefore = await solanaUsdc(service);
    expect(usdcBefore).toBe(SOLANA_USDC);

    const { taker, tradeId, output, secret } = await lockedTrade(service);
    expect(output).toBeGreaterThan(SOLANA_USDC);
    await taker.waitFor(tradeId, (t) => t.next_action?.type === 'redeem', 60_000);
    const shortfall = output - SOLANA_USDC;
    // Exactly the shortfall was minted: the maker lock took all of its Solana USDC.
    expect(await solanaUsdc(service)).toBe(0n);
    const minting = (await service.app.inject(`/v1/trades/${tradeId}`)).json();
    const kinds = minting.tx_signature_kinds.map((s: Json) => s.kind);
    expect(kinds.slice(0, 3)).toEqual(['taker_lock', 'gateway_mint', 'maker_lock']);

    expect((await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).statusCode).toBe(
      202,
    );
    await taker.waitFor(tradeId, (t) => t.settlement_status === 'redeemed', 30_000);
    // The dev Gateway burns once the mint is final: the trade then lists the burn, on the EVM domain.
    const burned = await until('the gateway_burn', async () => {
      const trade = (await service.app.inject(`/v1/trades/${tradeId}`)).json();
      return trade.tx_signature_kinds.some((s: Json) => s.kind === 'gateway_burn') ? trade : undefined;
    });
    const burn = burned.tx_signature_kinds.find((s: Json) => s.kind === 'gateway_burn');
    expect(burn.signature).toMatch(/^0x[0-9a-f]{64}$/);
    expect(burned.tx_signatures).toContain(burn.signature);
    // The deposit shrank by value + fee, exactly.
    expect(await evm.availableBalance(depositor)).toBe(depositBefore - shortfall - devFee(shortfall));

    // The ledger: the mint moved `shortfall` from the unified balance to Solana and booked the fee as a cost.
    const { entries, summaries } = (await service.app.inject('/v1/runtime/ledger')).json();
    const mint = kinds.indexOf('gateway_mint');
    const mintSignature = minting.tx_signature_kinds[mint].signature;
    const legs = (entries as Json[]).filter((e) => e.signature === mintSignature);
    const leg = (movement: string, account: string) =>
      legs.find((e) => e.movement === movement && e.account === account);
    expect(leg('gateway_mint', 'maker')).toMatchObject({ side: 'debit', amount_raw: shortfall.toString() });
    const fromUnified = legs.filter((e) => e.account === 'maker_gateway').map((e) => BigInt(e.amount_raw));
    expect(fromUnified.reduce((a, b) => a + b, 0n)).toBe(shortfall + devFee(shortfall));
    // Gateway's fee a cost like a network fee (in USDC), beside the mint transaction's own (in SOL).
    expect(legs.filter((e) => e.movement === 'network_fee' && e.account === 'network')).toHaveLength(2);
    const summary = (summaries as Json[]).find((s) => s.trade_id === tradeId);
    expect(summary?.balanced ?? summary?.ledger_summary?.balanced).toBe(true);
    // The maker's Solana USDC by the ledger is the chain's, to the raw unit.
    const solanaNet = (entries as Json[])
      .filter((e) => e.account === 'maker' && e.mint === USDC_MINT)
      .reduce((net, e) => net + (e.side === 'debit' ? 1n : -1n) * BigInt(e.amount_raw), 0n);
    expect(usdcBefore + solanaNet).toBe(await solanaUsdc(service));
  });
});

describe('Gateway failures release the taker at once (gateway_failed)', () => {
  test('the dev Gateway API down after the quote: no mint, no maker lock, the taker refunded long before its expiry', async () => {
    const service = await startService(mintingConfig());
    try {
      await unifiedCounted(service);
      const usdcBefore = await solanaUsdc(service);
      const { taker, tradeId } = await lockedTrade(service).then(async (t) => {
        await service.gateway?.embedded?.dev.server.close();
        return t;
      });
      const done = await taker.waitFor(tradeId, (t) => t.settlement_status === 'refunded', 60_000);
      expect(done.failure_reason).toBe('gateway_failed');
      const kinds = done.tx_signature_kinds.map((s: Json) => s.kind);
      expect(kinds).not.toContain('gateway_mint');
      expect(kinds).not.toContain('maker_lock');
      expect(kinds).toContain('taker_refund');
      expect(await solanaUsdc(service)).toBe(usdcBefore);
    } finally {
      await service.dispose();
    }
  }, 180_000);
});
