// The unified balance as the desk counts it: per domain the balance less its fee estimate (nothing without an
// estimate), summed, less the reserve — exact; 0 once a read fails or grows older than one refresh and the
// longest a refresh may take. Driven through Circle's API client over answers in Circle's JSON shapes.
import { describe, expect, test } from 'vitest';
import { CircleGatewayApi } from '../../src/gateway/circle-api.ts';
import { zeroBytes32 } from '../../src/gateway/formats/index.ts';
import { GatewayInventory, type UnifiedDomain, unifiedUsable } from '../../src/gateway/inventory.ts';
import { withUnifiedBalance } from '../../src/runtime/inventory.ts';

const DEPOSITOR = '0x1111111111111111111111111111111111111111';
const HASH = `0x${'ab'.repeat(32)}`;

const domain = (available: bigint, fee: bigint | null): UnifiedDomain => ({
  domain: 6,
  available,
  pendingBurn: null,
  fee,
  feeError: fee === null ? 'refused' : null,
});

describe('unifiedUsable', () => {
  test('subtracts each domain’s fee, then the reserve, exactly', () => {
    expect(unifiedUsable([domain(1_000_000_001n, 10_001n), domain(7n, 2n)], 3n)).toBe(
      1_000_000_001n - 10_001n + 5n - 3n,
    );
  });
  test('a domain without an estimate, or whose fee eats it, counts nothing; never below zero', () => {
    expect(unifiedUsable([domain(500n, null), domain(10n, 10n), domain(9n, 10n)], 0n)).toBe(0n);
    expect(unifiedUsable([domain(100n, 1n)], 100n)).toBe(0n);
    expect(unifiedUsable([domain(100n, 1n)], 98n)).toBe(1n);
  });
});

/** Circle's API answering balances in display units and a fee per intent, or failing while `down`. */
function circleApi(state: { balance: string; fee: bigint; down: boolean }) {
  const fetchApi: typeof fetch = async (input, init) => {
    if (state.down) throw new TypeError('fetch failed');
    const path = new URL(String(input)).pathname;
    const body = path.endsWith('/balances')
      ? { token: 'USDC', balances: [{ domain: 6, depositor: DEPOSITOR, balance: state.balance }] }
      : {
          body: [],
          fees: {
            total: state.fee.toString(),
            token: 'USDC',
            perIntent: [{ transferSpecHash: HASH, fee: state.fee.toString() }],
          },
        };
    expect(init?.method).toBe('POST');
    return new Response(JSON.stringify(body), { status: 200 });
  };
  return new CircleGatewayApi({
    baseUrl: 'http://gateway.test',
    timeoutMs: 1_000,
    attesters: [],
    maxFeeRaw: 1_000_000n,
    fetchApi,
  });
}

function inventoryOver(state: { balance: string; fee: bigint; down: boolean }, clock: { now: number }) {
  return new GatewayInventory({
    port: circleApi(state),
    depositor: DEPOSITOR,
    domains: [6],
    intentFor: (_domain, value) => ({
      maxBlockHeight: 0n,
      maxFee: 0n,
      spec: {
        version: 1,
        sourceDomain: 6,
        destinationDomain: 5,
        sourceContract: zeroBytes32(),
        destinationContract: zeroBytes32(),
        sourceToken: zeroBytes32(),
        destinationToken: zeroBytes32(),
        sourceDepositor: zeroBytes32(),
        destinationRecipient: zeroBytes32(),
        sourceSigner: zeroBytes32(),
        destinationCaller: zeroBytes32(),
        value,
        salt: zeroBytes32(),
        hookData: new Uint8Array(),
      },
    }),
    reserveRaw: 1_000_000n,
    refreshIntervalMs: 5_000,
    timeoutMs: 1_000,
    nowMs: () => clock.now,
  });
}

describe('GatewayInventory', () => {
  test('counts what the latest read allows, and 0 once a read fails, until one succeeds again', async () => {
    const state = { balance: '12.345678', fee: 10_617n, down: false };
    const clock = { now: 1_000_000 };
    const inventory = inventoryOver(state, clock);
    expect(inventory.counted()).toBe(0n);
    await inventory.refresh();
    expect(inventory.counted()).toBe(12_345_678n - 10_617n - 1_000_000n);
    state.down = true;
    await expect(inventory.refresh()).rejects.toThrow(/fetch failed/);
    expect(inventory.counted()).toBe(0n);
    // The last balances stay visible beside the error.
    expect(inventory.reading()).toMatchObject({
      readAtMs: 1_000_000,
      error: expect.stringMatching(/fetch failed/),
      countedRaw: 0n,
      domains: [{ domain: 6, available: 12_345_678n, fee: 10_617n }],
    });
    state.down = false;
    await inventory.refresh();
    expect(inventory.counted()).toBe(12_345_678n - 10_617n - 1_000_000n);
  });

  test('a read older than one refresh and the longest a refresh may take counts 0 (a refresh that hangs)', async () => {
    const state = { balance: '100', fee: 1n, down: false };
    const clock = { now: 0 };
    const inventory = inventoryOver(state, clock);
    await inventory.refresh();
    // One refresh period (5 s) and a timeout for the balances and for each domain's estimate (2 × 1 s).
    expect(inventory.maxAgeMs).toBe(7_000);
    clock.now = 7_000;
    expect(inventory.counted()).toBe(100_000_000n - 1n - 1_000_000n);
    clock.now = 7_001;
    expect(inventory.counted()).toBe(0n);
  });

  test('the desk’s inventory adds the counted amount to the Gateway USDC only, and never to an unread balance', () => {
    const solana = new Map<string, bigint>([['USDC', 50n]]);
    const desk = withUnifiedBalance({ balance: (mint) => solana.get(mint) }, 'USDC', () => 7n);
    expect(desk.balance('USDC')).toBe(57n);
    solana.set('SOL', 3n);
    expect(desk.balance('SOL')).toBe(3n);
    expect(desk.balance('USDT')).toBeUndefined();
    solana.delete('USDC');
    expect(desk.balance('USDC')).toBeUndefined();
  });
});
