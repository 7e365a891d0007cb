// The Gateway unified balance as inventory, on the embedded Gateway the service starts (anvil + the dev
// Gateway + our GatewayMinter on the embedded chain): GET /v1/inventory shows it per domain beside the Solana
// balances and follows deposits and transfers on the EVM domain; with gateway.count_unified_in_quotes a quote
// counts it exactly — balance less the fee estimate less the reserve, reservations holding against the sum —
// and without the switch it counts none; Gateway down counts 0 and answers no 500.
import { randomBytes } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { hexToBytes } from 'viem';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ata } from '../../src/chain/token.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { devFee } from '../../src/gateway/dev/index.ts';
import { signBurnIntent } from '../../src/gateway/formats/eip712.ts';
import { type BurnIntent, GATEWAY_SOLANA_PROGRAMS, SOLANA_DOMAIN } from '../../src/gateway/formats/index.ts';
import { formatDecimal } from '../../src/money/index.ts';
import { type EmbeddedGateway, openGateway } from '../../src/runtime/gateway.ts';
import { createService } from '../../src/service.ts';
import {
  type ConfigDocument,
  defaultConfigDocument,
  OTHER_WALLET,
  startService,
  type TestService,
  tempDir,
  WALLET,
} from '../support/service.ts';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const ONE = 1_000_000n; // one USDC, raw units
const SOLANA_USDC = 50n * ONE;
const DEPOSIT = 1_000n * ONE;
const RESERVE = 100n * ONE;

/** The maker's Solana USDC small, a unified balance beside it refreshed every 200 ms. */
const gatewayConfig = (countInQuotes: boolean) => (doc: ConfigDocument) => {
  const usdc = doc.inventory.find((entry) => entry.asset === 'USDC') as Record<string, unknown>;
  usdc.amount = formatDecimal(SOLANA_USDC, 6);
  doc.gateway = {
    mode: 'embedded',
    count_unified_in_quotes: countInQuotes,
    reserve_usdc: formatDecimal(RESERVE, 6),
    refresh_interval_ms: 200,
    timeout_ms: 2_000,
    embedded: { evm_deposit_usdc: formatDecimal(DEPOSIT, 6), settle_interval_ms: 100 },
  };
};

interface GatewayView {
  read_at: string | null;
  error: string | null;
  domains: {
    domain: number;
    chain: string | null;
    available_raw: string;
    pending_burn_raw: string | null;
    fee_estimate_raw: string | null;
  }[];
  reserve_raw: string;
  usable_raw: string;
  counted_in_quotes: boolean;
}

async function gatewayView(service: TestService): Promise<GatewayView> {
  const res = await service.app.inject('/v1/inventory');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().gateway as GatewayView;
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until the view's single domain shows `available` (raw). */
const availableIs = (service: TestService, available: bigint) =>
  until(`the unified balance at ${available}`, async () => {
    const view = await gatewayView(service);
    return view.domains[0]?.available_raw === available.toString() ? view : undefined;
  });

const rfq = (service: TestService, amountSol: string, wallet = WALLET) =>
  service.app.inject({
    method: 'POST',
    url: '/v1/rfq',
    payload: { input_asset: 'SOL', output_asset: 'USDC', amount: amountSol, taker_wallet: wallet },
  });

const embedded = (service: TestService): EmbeddedGateway => {
  const parts = service.gateway?.embedded;
  if (!parts) throw new Error('the service runs no embedded Gateway');
  return parts;
};

let counting: TestService;
let notCounting: TestService;

beforeAll(async () => {
  [counting, notCounting] = await Promise.all([
    startService(gatewayConfig(true)),
    startService(gatewayConfig(false)),
  ]);
}, 120_000);

afterAll(async () => {
  await counting?.dispose();
  await notCounting?.dispose();
});

describe('the unified balance in GET /v1/inventory', () => {
  test('the starting deposit on the EVM domain, its fee estimate and what quotes may count, exactly', async () => {
    const view = await availableIs(counting, DEPOSIT);
    const fee = devFee(DEPOSIT);
    expect(view).toMatchObject({
      error: null,
      reserve_raw: RESERVE.toString(),
      usable_raw: (DEPOSIT - fee - RESERVE).toString(),
      counted_in_quotes: true,
      domains: [
        {
          domain: 6,
          chain: 'base',
          available_raw: DEPOSIT.toString(),
          pending_burn_raw: '0',
          fee_estimate_raw: fee.toString(),
        },
      ],
    });
    expect(view.read_at).toEqual(expect.any(String));
    // The Solana balance beside it is the chain's alone.
    const usdc = (await counting.app.inject('/v1/inventory'))
      .json()
      .assets.find((a: { asset: string }) => a.asset === 'USDC');
    expect(usdc.balance_raw).toBe(SOLANA_USDC.toString());
  });

  test('a deposit on anvil appears; a dev transfer takes value + fee out and shows it pending burn', async () => {
    const gateway = embedded(counting);
    const depositor = counting.gateway?.depositor as `0x${string}`;
    const before = BigInt((await availableIs(counting, DEPOSIT)).domains[0]?.available_raw ?? '0');
    const more = 250n * ONE;
    await gateway.evm.mintUsdc(gateway.deployerKey, depositor, more);
    await gateway.evm.deposit(gateway.depositorKey, more);
    await availableIs(counting, before + more);

    // The maker's own intent (value to its Solana USDC account), attested by the dev Gateway: not minted, so
    // not burned — the balance is held for it.
    const value = 300n * ONE;
    const maker = counting.chain.makerWallet;
    const usdcMint = new PublicKey(USDC);
    const intent: BurnIntent = {
      maxBlockHeight: (await gateway.evm.blockNumber()) + 1_000n,
      maxFee: devFee(value),
      spec: {
        version: 1,
        ...gateway.evm.sourceFields(depositor),
        destinationDomain: SOLANA_DOMAIN,
        destinationContract: new PublicKey(counting.config.gateway?.minterProgram ?? '').toBytes(),
        destinationToken: usdcMint.toBytes(),
        destinationRecipient: ata(maker, usdcMint).toBytes(),
        destinationCaller: maker.toBytes(),
        value,
        salt: new Uint8Array(randomBytes(32)),
        hookData: new Uint8Array(),
      },
    };
    const signature = hexToBytes(await signBurnIntent(intent, gateway.depositorKey));
    const attested = await counting.gateway?.port.transfer([{ intent, signature }]);
    expect(attested?.fee).toBe(devFee(value));
    const after = before + more - value - devFee(value);
    const view = await availableIs(counting, after);
    expect(view.domains[0]).toMatchObject({
      pending_burn_raw: (value + devFee(value)).toString(),
      fee_estimate_raw: devFee(after).toString(),
    });
    expect(view.usable_raw).toBe((after - devFee(after) - RESERVE).toString());
  });

  test("circle mode reads the same balance through Circle's API (the dev Gateway standing at base_url)", async () => {
    const gateway = embedded(counting);
    const shown = await gatewayView(counting);
    const available = BigInt(shown.domains[0]?.available_raw ?? '0');
    const doc = defaultConfigDocument();
    doc.chain = {
      kind: 'rpc',
      url: 'http://127.0.0.1:9',
      program_id: 'So11111111111111111111111111111111111111112',
      maker_keypair_path: 'unused.json',
    };
    const usdc = doc.assets.find((a) => a.symbol === 'USDC') as Record<string, unknown>;
    usdc.mint = GATEWAY_SOLANA_PROGRAMS.devnet.usdc;
    doc.gateway = {
      mode: 'circle',
      reserve_usdc: formatDecimal(RESERVE, 6),
      circle: {
        cluster: 'devnet',
        base_url: gateway.dev.baseUrl,
        depositor: counting.gateway?.depositor,
        attesters: [gateway.dev.gateway.attester],
        sources: [
          {
            domain: 6,
            gateway_wallet: gateway.evm.deployment.gatewayWallet,
            usdc: gateway.evm.deployment.usdc,
          },
        ],
      },
    };
    const config = resolveConfig(doc).gateway;
    if (config === null) throw new Error('no gateway config');
    const log = { info: () => {}, warn: () => {} };
    const circle = await openGateway(config, {
      dataDir: counting.dataDir,
      prep: null,
      ledger: null,
      maker: counting.chain.makerWallet,
      log,
    });
    try {
      expect(circle.embedded).toBeNull();
      await circle.inventory.refresh();
      expect(circle.inventory.reading()).toMatchObject({
        error: null,
        domains: [{ domain: 6, available, pendingBurn: null, fee: devFee(available), feeError: null }],
        countedRaw: available - devFee(available) - RESERVE,
      });
    } finally {
      await circle.close();
    }
  });
});

describe('quotes and the unified balance', () => {
  test('with the switch on, a quote counts Solana USDC + the usable unified balance, exactly; reservations hold against the sum', async () => {
    const view = await until('a fresh read', async () => {
      const v = await gatewayView(counting);
      return v.error === null && v.read_at !== null ? v : undefined;
    });
    const usable = BigInt(view.usable_raw);
    expect(usable).toBeGreaterThan(0n);
    // 0.5 SOL pays ~93 USDC: more than the 50 on Solana, within the sum (and the wallet's share of it).
    const accepted = await rfq(counting, '0.5');
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().status, accepted.body).toBe('accepted');
    const held = BigInt(accepted.json().output.amount_raw);
    expect(held).toBeGreaterThan(SOLANA_USDC);

    // 100 SOL asks for more than there is: the refusal names the balance the desk counted — the sum.
    const refused = await rfq(counting, '100');
    expect(refused.statusCode, refused.body).toBe(200);
    const reason = refused.json().reasons.find((r: { check: string }) => r.check === 'inventory') as {
      message: string;
    };
    const current = BigInt((await gatewayView(counting)).usable_raw);
    expect(current).toBe(usable);
    expect(reason.message).toContain(`balance ${formatDecimal(SOLANA_USDC + usable, 6)} USDC`);
    expect(reason.message).toContain(`reserved ${formatDecimal(held, 6)} USDC`);
  });

  test('with the switch off (the default), the same quote counts none of it', async () => {
    const view = await availableIs(notCounting, DEPOSIT);
    expect(view.counted_in_quotes).toBe(false);
    expect(BigInt(view.usable_raw)).toBe(DEPOSIT - devFee(DEPOSIT) - RESERVE);
    const refused = await rfq(notCounting, '0.5');
    expect(refused.statusCode, refused.body).toBe(200);
    expect(refused.json().status).toBe('rejected');
    const reason = refused.json().reasons.find((r: { check: string }) => r.check === 'inventory') as {
      message: string;
    };
    expect(reason.message).toContain(`balance ${formatDecimal(SOLANA_USDC, 6)} USDC`);
  });

  test('Gateway down: the unified balance counts 0 at the next refresh, the route answers 200 with the error', async () => {
    const before = await rfq(counting, '0.5', OTHER_WALLET);
    expect(before.json().status, before.body).toBe('accepted');
    await embedded(counting).dev.server.close();
    const view = await until('the failed read', async () => {
      const v = await gatewayView(counting);
      return v.error !== null ? v : undefined;
    });
    expect(view.usable_raw).toBe('0');
    // What the view showed last stays visible, marked by its read time and the error.
    expect(view.domains).toHaveLength(1);
    // The same quote as before the outage: the Solana USDC alone does not cover it.
    const refused = await rfq(counting, '0.5', OTHER_WALLET);
    expect(refused.statusCode, refused.body).toBe(200);
    expect(refused.json().status).toBe('rejected');
    const reason = refused.json().reasons.find((r: { check: string }) => r.check === 'inventory') as {
      message: string;
    };
    expect(reason.message).toContain(`balance ${formatDecimal(SOLANA_USDC, 6)} USDC`);
  });
});

describe('a restart on the same DATA_DIR', () => {
  test('brings the Gateway back: the same depositor and contract addresses on a fresh anvil, its deposit again', async () => {
    const dir = tempDir();
    const doc = defaultConfigDocument();
    gatewayConfig(false)(doc);
    const start = () => createService({ dataDir: dir.path, config: resolveConfig(doc) });
    try {
      const first = await start();
      const before = {
        depositor: first.gateway?.depositor,
        wallet: first.gateway?.embedded?.evm.deployment.gatewayWallet,
      };
      await first.close();
      const second = await start();
      try {
        expect(second.gateway?.depositor).toBe(before.depositor);
        expect(second.gateway?.embedded?.evm.deployment.gatewayWallet).toBe(before.wallet);
        // Exactly one deposit: anvil's chain went with the first run, and the second deposited anew.
        expect(second.gateway?.inventory.reading().domains).toEqual([
          expect.objectContaining({ domain: 6, available: DEPOSIT, pendingBurn: 0n }),
        ]);
      } finally {
        await second.close();
      }
    } finally {
      dir.remove();
    }
  }, 120_000);
});
