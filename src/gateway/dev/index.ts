// The dev Gateway, the Gateway port's embedded implementation: started over an EVM domain (anvil) and the
// embedded chain, serving Circle's API on a loopback port, its operator settling open transfers on a timer.
// The chain must carry MinterGenesis with this Gateway's attester (attesterBytes32 of a store's key).

import type { PublicKey } from '@solana/web3.js';
import { privateKeyToAccount } from 'viem/accounts';
import type { EmbeddedLedger } from '../../chain/embedded/ledger.ts';
import { evmAddressBytes32 } from '../formats/index.ts';
import { DevGateway, type DevGatewayOptions, type SolanaView } from './gateway.ts';
import { type DevGatewayServer, startDevGatewayServer } from './server.ts';
import type { DevGatewayStore } from './store.ts';

export { DEV_FEE_SCHEDULE, type DevFeeSchedule, devFee } from './fee.ts';
export { DevGateway, DevGatewayRefusal, type SolanaView } from './gateway.ts';
export { MinterGenesis, type MinterGenesisOptions } from './genesis.ts';
export { type DevGatewayServer, devGatewayApp, startDevGatewayServer } from './server.ts';
export { DevGatewayStore, type StoredIntent, type StoredTransfer } from './store.ts';

/** How many slots an attestation stays mintable by default (~10 minutes of 400 ms slots). */
export const DEV_ATTESTATION_TTL_SLOTS = 1_500n;
/** The fewest source blocks an intent must leave for the burn. */
export const DEV_MIN_BURN_WINDOW = 2n;
/** The burn window an estimate offers (anvil mines a block per transaction, so blocks, not seconds). */
export const DEV_ESTIMATE_WINDOW = 1_000n;

/** The embedded ledger as the dev Gateway reads it: the finalized slot and accounts. */
export const ledgerView = (ledger: EmbeddedLedger): SolanaView => ({
  slot: () => BigInt(ledger.slotAt('finalized')),
  exists: (address) => ledger.getAccount(address, 'finalized') !== null,
});

/** The attester a store holds (made on first use), as the minter holds it: for MinterGenesis before the chain opens. */
export const storedAttester = (store: DevGatewayStore): Uint8Array =>
  evmAddressBytes32(privateKeyToAccount(store.key('attester')).address);

export interface DevGatewayServiceOptions
  extends Omit<DevGatewayOptions, 'attestationTtlSlots' | 'minBurnWindow' | 'estimateWindow'>,
    Partial<Pick<DevGatewayOptions, 'attestationTtlSlots' | 'minBurnWindow' | 'estimateWindow'>> {
  minter: PublicKey;
  /** How often the operator looks for mints to burn and attestations expired. */
  settleIntervalMs: number;
  /** Told of a settle round that failed (the node down…); the next round tries again. */
  onSettleError?: (error: unknown) => void;
  host?: string;
  port?: number;
}

export interface DevGatewayService {
  readonly gateway: DevGateway;
  readonly server: DevGatewayServer;
  readonly baseUrl: string;
  /** Stops the operator's timer and the server; the store stays open (its owner closes it). */
  stop(): Promise<void>;
}

export async function startDevGateway(options: DevGatewayServiceOptions): Promise<DevGatewayService> {
  const gateway = new DevGateway({
    attestationTtlSlots: DEV_ATTESTATION_TTL_SLOTS,
    minBurnWindow: DEV_MIN_BURN_WINDOW,
    estimateWindow: DEV_ESTIMATE_WINDOW,
    ...options,
  });
  const server = await startDevGatewayServer(gateway, options);
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let round: Promise<void> = Promise.resolve();
  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      round = gateway
        .settle()
        .catch((e: unknown) => options.onSettleError?.(e))
        .finally(next);
    }, options.settleIntervalMs);
    timer.unref();
  };
  next();
  return {
    gateway,
    server,
    baseUrl: server.baseUrl,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await round;
      await server.close();
    },
  };
}
