// The Gateway as the service runs it (config gateway): Circle's API over a cluster, or the embedded dev Gateway
// — anvil as its EVM source domain, our GatewayMinter deployed with the embedded chain, its API on a loopback
// port, the maker's starting deposit funded — and, either way, the unified balance followed as inventory.
// Started in two steps: before the chain opens (the minter's genesis extension, and anvil spawned so that
// it boots while the chain's genesis runs), then once the chain is open.

import { join } from 'node:path';
import { PublicKey } from '@solana/web3.js';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { EmbeddedLedger } from '../chain/embedded/ledger.ts';
import { ata } from '../chain/token.ts';
import type { GatewayConfig } from '../config/index.ts';
import { CircleGatewayApi } from '../gateway/circle-api.ts';
import {
  DEV_ESTIMATE_WINDOW,
  type DevGatewayService,
  DevGatewayStore,
  ledgerView,
  MinterGenesis,
  startDevGateway,
  storedAttester,
} from '../gateway/dev/index.ts';
import {
  type Anvil,
  deployEvmDomain,
  type EvmDomainClient,
  loadOrCreateEvmKeyFile,
  startAnvil,
} from '../gateway/evm/index.ts';
import { signBurnIntent } from '../gateway/formats/eip712.ts';
import {
  type BurnIntent,
  evmAddressBytes32,
  SOLANA_DOMAIN,
  type TransferSpec,
  zeroBytes32,
} from '../gateway/formats/index.ts';
import { GatewayInventory } from '../gateway/inventory.ts';
import type { GatewayPort } from '../gateway/port.ts';
import type { MintingHooks } from './minting.ts';

type EmbeddedConfig = GatewayConfig & { mode: 'embedded' };

/** What the embedded Gateway needs before the chain opens. */
export interface EmbeddedGatewayPrep {
  /** The embedded chain's extension: our GatewayMinter, with the dev Gateway's attester. */
  readonly genesis: MinterGenesis;
  readonly store: DevGatewayStore;
  /** anvil, booting meanwhile. */
  readonly anvil: Promise<Anvil>;
  /** Undoes the preparation when the service's start fails before openGateway. */
  abort(): Promise<void>;
}

/** The embedded Gateway's running parts (tests drive its EVM domain: deposits, the dev Gateway down). */
export interface EmbeddedGateway {
  readonly anvil: Anvil;
  readonly evm: EvmDomainClient;
  readonly dev: DevGatewayService;
  readonly store: DevGatewayStore;
  /** The maker's depositor key on the EVM domain (DATA_DIR/gateway-depositor.key). */
  readonly depositorKey: Hex;
  /** The dev USDC's minter there (the dev Gateway's deployer). */
  readonly deployerKey: Hex;
}

export interface GatewayRuntime {
  readonly config: GatewayConfig;
  readonly port: GatewayPort;
  readonly inventory: GatewayInventory;
  /** The maker's depositor, 0x-hex. */
  readonly depositor: string;
  /** null in circle mode. */
  readonly embedded: EmbeddedGateway | null;
  /**
   * Just-in-time minting's Gateway, depositor key and bounds (the trades' signMint, attestMint, sendMint);
   * null where the instance holds no depositor key to sign burn intents with (circle mode, for now).
   */
  readonly minting: MintingHooks | null;
  /** Stops the inventory's timer and, embedded, the dev Gateway, its store and anvil. */
  close(): Promise<void>;
}

interface Log {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** The depositor key's file under DATA_DIR: the maker's, like maker-keypair.json. */
export const DEPOSITOR_KEY_FILE = 'gateway-depositor.key';

export function prepareEmbeddedGateway(config: EmbeddedConfig, dataDir: string): EmbeddedGatewayPrep {
  const store = new DevGatewayStore(join(dataDir, 'gateway'));
  const genesis = new MinterGenesis({
    usdc: new PublicKey(config.asset.mint),
    attester: storedAttester(store),
    // Twice the starting deposit: the float a start tops up once it falls below half.
    custodyFloat: 2n * config.evmDepositRaw,
    minter: new PublicKey(config.minterProgram),
  });
  const anvil = startAnvil();
  // A start that fails before openGateway awaits it: no unhandled rejection meanwhile.
  anvil.catch(() => {});
  return {
    genesis,
    store,
    anvil,
    async abort() {
      await anvil.then((a) => a.stop()).catch(() => {});
      store.close();
    },
  };
}

export async function openGateway(
  config: GatewayConfig,
  ctx: {
    dataDir: string;
    prep: EmbeddedGatewayPrep | null;
    /** The embedded chain's ledger (embedded mode). */
    ledger: EmbeddedLedger | null;
    maker: PublicKey;
    log: Log;
  },
): Promise<GatewayRuntime> {
  const destination = {
    minter: new PublicKey(config.minterProgram),
    usdc: new PublicKey(config.asset.mint),
    maker: ctx.maker,
  };
  if (config.mode === 'circle') {
    const port = new CircleGatewayApi({
      baseUrl: config.baseUrl,
      timeoutMs: config.timeoutMs,
      attesters: config.attesters.map((a) => evmAddressBytes32(a)),
      maxFeeRaw: config.maxFeeRaw,
    });
    const sources = new Map(config.sources.map((s) => [s.domain, s]));
    const inventory = new GatewayInventory({
      port,
      depositor: config.depositor,
      domains: config.sources.map((s) => s.domain),
      intentFor: (domain, value) => {
        const source = sources.get(domain);
        if (!source) throw new Error(`no configured source for domain ${domain}`);
        return estimateIntent(
          {
            sourceDomain: domain,
            sourceContract: evmAddressBytes32(source.gatewayWallet),
            sourceToken: evmAddressBytes32(source.usdc),
            sourceDepositor: evmAddressBytes32(config.depositor),
            sourceSigner: evmAddressBytes32(config.depositor),
          },
          destination,
          value,
        );
      },
      reserveRaw: config.reserveRaw,
      refreshIntervalMs: config.refreshIntervalMs,
      timeoutMs: config.timeoutMs,
    });
    return {
      config,
      port,
      inventory,
      depositor: config.depositor,
      embedded: null,
      minting: null,
      async close() {
        await inventory.stop();
      },
    };
  }
  if (ctx.prep === null || ctx.ledger === null) {
    throw new Error('the embedded Gateway needs its preparation and the embedded chain');
  }
  return openEmbedded(config, { ...ctx, prep: ctx.prep, ledger: ctx.ledger }, destination);
}

type Destination = { minter: PublicKey; usdc: PublicKey; maker: PublicKey };
type EmbeddedContext = { dataDir: string; prep: EmbeddedGatewayPrep; ledger: EmbeddedLedger; log: Log };

/**
 * The dev Gateway beside the embedded chain: its EVM domain deployed on anvil, its API started, the maker's
 * deposit made, and the port, inventory and minting hooks the service uses — all as Circle's would be.
 */
async function openEmbedded(
  config: EmbeddedConfig,
  ctx: EmbeddedContext,
  destination: Destination,
): Promise<GatewayRuntime> {
  const { store } = ctx.prep;
  const began = Date.now();
  const anvil = await ctx.prep.anvil;
  const anvilWaitMs = Date.now() - began;
  let dev: DevGatewayService | null = null;
  try {
    const deployerKey = store.key('deployer');
    const evm = await deployEvmDomain(anvil.url, {
      chainId: anvil.chainId,
      domain: config.domain,
      deployerKey,
      burnSigner: privateKeyToAccount(store.key('operator')).address,
      feeRecipient: privateKeyToAccount(deployerKey).address,
    });
    dev = await startDevGateway({
      store,
      evm,
      solana: ledgerView(ctx.ledger),
      minter: destination.minter,
      usdc: destination.usdc,
      settleIntervalMs: config.settleIntervalMs,
      onSettleError: (error) =>
        ctx.log.warn({ err: (error as Error).message }, 'the dev Gateway could not settle its transfers'),
    });
    const { depositor, depositorKey } = await depositStartingBalance(config, ctx.dataDir, evm, deployerKey);
    const port = new CircleGatewayApi({
      baseUrl: dev.baseUrl,
      timeoutMs: config.timeoutMs,
      attesters: [storedAttester(store)],
      maxFeeRaw: config.maxFeeRaw,
    });
    const inventory = new GatewayInventory({
      port,
      depositor,
      domains: [config.domain],
      intentFor: (_domain, value) => estimateIntent(evm.sourceFields(depositor), destination, value),
      pendingBurn: (domain) => store.pending(domain, depositor),
      reserveRaw: config.reserveRaw,
      refreshIntervalMs: config.refreshIntervalMs,
      timeoutMs: config.timeoutMs,
    });
    ctx.log.info(
      {
        anvil: anvil.url,
        gateway: dev.baseUrl,
        depositor,
        domain: config.domain,
        anvil_wait_ms: anvilWaitMs,
        setup_ms: Date.now() - began - anvilWaitMs,
      },
      'the embedded Gateway is up',
    );
    const running = dev;
    return {
      config,
      port,
      inventory,
      depositor,
      embedded: { anvil, evm, dev: running, store, depositorKey, deployerKey },
      minting: embeddedMinting(config, store, port, evm, depositor, depositorKey, destination),
      async close() {
        await inventory.stop();
        await running.stop();
        store.close();
        await anvil.stop();
      },
    };
  } catch (error) {
    await dev?.stop();
    await ctx.prep.abort();
    throw error;
  }
}

/** The maker's depositor key (kept in DATA_DIR) and, anvil's chain living in memory, its deposit made anew. */
async function depositStartingBalance(
  config: EmbeddedConfig,
  dataDir: string,
  evm: EvmDomainClient,
  deployerKey: Hex,
): Promise<{ depositor: Hex; depositorKey: Hex }> {
  const depositorKey = loadOrCreateEvmKeyFile(join(dataDir, DEPOSITOR_KEY_FILE));
  const depositor = privateKeyToAccount(depositorKey).address;
  if (config.evmDepositRaw > 0n) {
    await evm.fundGas(depositor);
    await evm.mintUsdc(deployerKey, depositor, config.evmDepositRaw);
    await evm.deposit(depositorKey, config.evmDepositRaw);
  }
  return { depositor, depositorKey };
}

/** What a trade's just-in-time mint needs: the port, the attesters trusted, the source and its signer. */
function embeddedMinting(
  config: EmbeddedConfig,
  store: EmbeddedGatewayPrep['store'],
  port: GatewayPort,
  evm: EvmDomainClient,
  depositor: Hex,
  depositorKey: Hex,
  destination: Destination,
): MintingHooks {
  return {
    port,
    usdcMint: config.asset.mint,
    minter: destination.minter,
    attesters: [storedAttester(store)],
    source: evm.sourceFields(depositor),
    signIntent: (intent) => signBurnIntent(intent, depositorKey),
    sourceBlock: () => evm.blockNumber(),
    // The window the dev Gateway's own estimates offer.
    burnWindowBlocks: DEV_ESTIMATE_WINDOW,
    maxFeeRaw: config.maxFeeRaw,
  };
}

/** An intent minting `value` to the maker's own USDC account, for Gateway's estimate (never signed). */
function estimateIntent(
  source: Pick<
    TransferSpec,
    'sourceDomain' | 'sourceContract' | 'sourceToken' | 'sourceDepositor' | 'sourceSigner'
  >,
  destination: Destination,
  value: bigint,
): BurnIntent {
  return {
    maxBlockHeight: 0n,
    maxFee: 0n,
    spec: {
      version: 1,
      ...source,
      destinationDomain: SOLANA_DOMAIN,
      destinationContract: destination.minter.toBytes(),
      destinationToken: destination.usdc.toBytes(),
      destinationRecipient: ata(destination.maker, destination.usdc).toBytes(),
      destinationCaller: destination.maker.toBytes(),
      value,
      salt: zeroBytes32(),
      hookData: new Uint8Array(),
    },
  };
}
