// The typed ABIs the EVM domain's client calls through are declared by hand (viem types calls and events only
// from literal ABIs); here they are held equal to what solc compiled from the contracts, entry for entry.

import { describe, expect, test } from 'vitest';
import { compiledAbis, devUsdcAbi, gatewayWalletAbi } from '../../src/gateway/evm/contracts.ts';

type Entry = Record<string, unknown>;

/**
 * An ABI without what only one side writes: solc's internalType, and the defaults viem leaves out (an event
 * not anonymous, a parameter not indexed, an unnamed output's empty name).
 */
function normalized(abi: readonly unknown[]): Entry[] {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value).filter(
      ([key, field]) =>
        key !== 'internalType' &&
        !((key === 'anonymous' || key === 'indexed') && field === false) &&
        !(key === 'name' && field === ''),
    );
    return Object.fromEntries(entries.map(([key, field]) => [key, strip(field)]));
  };
  const key = (entry: Entry) => `${entry.type} ${String(entry.name ?? '')}`;
  return (abi.map(strip) as Entry[]).sort((a, b) => key(a).localeCompare(key(b)));
}

describe('the declared ABIs are the compiled ones', () => {
  test('GatewayWallet', () => {
    expect(normalized(gatewayWalletAbi)).toEqual(normalized(compiledAbis.GatewayWallet));
  });

  test('DevUsdc', () => {
    expect(normalized(devUsdcAbi)).toEqual(normalized(compiledAbis.DevUsdc));
  });
});
