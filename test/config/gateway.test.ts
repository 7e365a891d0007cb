// The gateway block: embedded by default where the chain is embedded, Circle's programs and API per cluster,
// off, and every bad value refused naming its field.
import { describe, expect, test } from 'vitest';
import { loadConfig, resolveConfig } from '../../src/config/index.ts';
import { EMBEDDED_GATEWAY_MINTER_ID } from '../../src/gateway/solana/index.ts';
import { type ConfigDocument, defaultConfigDocument } from '../support/service.ts';
import { refusal } from './refusal.ts';

const PROGRAM = 'So11111111111111111111111111111111111111112';
const ADDRESS = '0x1111111111111111111111111111111111111111';
const WALLET = '0x2222222222222222222222222222222222222222';
const USDC_EVM = '0x3333333333333333333333333333333333333333';

const withGateway = (gateway: Record<string, unknown>, change: (doc: ConfigDocument) => void = () => {}) => {
  const doc = defaultConfigDocument();
  doc.gateway = gateway;
  change(doc);
  return doc;
};

/** An rpc chain whose USDC asset is the devnet mint Circle's devnet programs support. */
const onDevnet = (doc: ConfigDocument) => {
  doc.chain = {
    kind: 'rpc',
    urls: ['http://127.0.0.1:8899'],
    program_id: PROGRAM,
    maker_keypair_path: 'k.json',
  };
  const usdc = doc.assets.find((a) => a.symbol === 'USDC') as Record<string, unknown>;
  usdc.mint = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
};

const circle = (over: Record<string, unknown> = {}) => ({
  mode: 'circle',
  circle: {
    cluster: 'devnet',
    depositor: ADDRESS,
    attesters: [ADDRESS],
    sources: [{ domain: 6, gateway_wallet: WALLET, usdc: USDC_EVM }],
    ...over,
  },
});

describe('the gateway config', () => {
  test('the shipped config runs the embedded Gateway, its unified balance counted in quotes (minting fills them)', () => {
    const { gateway } = loadConfig();
    expect(gateway).toMatchObject({
      mode: 'embedded',
      countUnifiedInQuotes: true,
      reserveRaw: 0n,
      maxFeeRaw: 100_000_000n,
      evmDepositRaw: 100_000_000_000n,
      domain: 6,
      minterProgram: EMBEDDED_GATEWAY_MINTER_ID.toBase58(),
    });
    expect(gateway?.asset.symbol).toBe('USDC');
  });

  test('absent or off: no Gateway; an empty section: the embedded one with its defaults', () => {
    expect(resolveConfig(defaultConfigDocument()).gateway).toBeNull();
    expect(resolveConfig(withGateway({ mode: 'off' })).gateway).toBeNull();
    // The shipped section on a cluster (npm run cluster's, the bench's): no mode named, so none.
    expect(resolveConfig(withGateway({ embedded: { evm_deposit_usdc: '5' } }, onDevnet)).gateway).toBeNull();
    expect(resolveConfig(withGateway({})).gateway).toMatchObject({
      mode: 'embedded',
      countUnifiedInQuotes: true,
      reserveRaw: 0n,
      refreshIntervalMs: 5_000,
      timeoutMs: 5_000,
      settleIntervalMs: 1_000,
    });
  });

  test('amounts are exact USDC raw units', () => {
    const gateway = resolveConfig(
      withGateway({
        count_unified_in_quotes: true,
        reserve_usdc: '1234.567891',
        max_fee_usdc: '0.25',
        embedded: { evm_deposit_usdc: '0.000001' },
      }),
    ).gateway;
    expect(gateway).toMatchObject({
      countUnifiedInQuotes: true,
      reserveRaw: 1_234_567_891n,
      maxFeeRaw: 250_000n,
      evmDepositRaw: 1n,
    });
  });

  test("circle mode: Circle's program ids and USDC of the cluster, its API by default", () => {
    const gateway = resolveConfig(withGateway(circle(), onDevnet)).gateway;
    expect(gateway).toMatchObject({
      mode: 'circle',
      cluster: 'devnet',
      baseUrl: 'https://gateway-api-testnet.circle.com',
      minterProgram: 'GATEmKK2ECL1brEngQZWCgMWPbvrEYqsV6u29dAaHavr',
      walletProgram: 'GATEwdfmYNELfp5wDmmR6noSr2vHnAfBPMm2PvCzX5vu',
      depositor: ADDRESS,
      attesters: [ADDRESS],
      sources: [{ domain: 6, gatewayWallet: WALLET, usdc: USDC_EVM }],
    });
    expect(
      resolveConfig(withGateway(circle({ base_url: 'http://127.0.0.1:9/' }), onDevnet)).gateway,
    ).toMatchObject({ baseUrl: 'http://127.0.0.1:9' });
  });

  test.each<[string, ConfigDocument, RegExp]>([
    ['an unknown mode', withGateway({ mode: 'cctp' }), /config gateway\.mode/],
    ['an unknown setting', withGateway({ count_unified: true }), /config gateway\.count_unified/],
    ['a reserve that is not a decimal', withGateway({ reserve_usdc: '-1' }), /config gateway\.reserve_usdc/],
    [
      'a reserve finer than USDC’s 6 decimals',
      withGateway({ reserve_usdc: '0.0000001' }),
      /config gateway\.reserve_usdc/,
    ],
    [
      'a fee cap of zero',
      withGateway({ max_fee_usdc: '0' }),
      /config gateway\.max_fee_usdc: must be above zero/,
    ],
    ['a refresh too often', withGateway({ refresh_interval_ms: 10 }), /config gateway\.refresh_interval_ms/],
    [
      'the embedded Gateway on an rpc chain',
      withGateway({ mode: 'embedded' }, onDevnet),
      /config gateway\.mode: the embedded Gateway deploys its programs on the embedded chain/,
    ],
    [
      "Circle's Gateway on the embedded chain",
      withGateway(circle()),
      /config gateway\.mode: Circle's Gateway mints on a Solana cluster/,
    ],
    [
      'circle mode without its block',
      withGateway({ mode: 'circle' }, onDevnet),
      /config gateway\.circle: required/,
    ],
    [
      'a circle block in embedded mode',
      withGateway({ mode: 'embedded', circle: circle().circle }),
      /config gateway\.circle: only with mode "circle"/,
    ],
    [
      'an attester that is not an EVM address',
      withGateway(circle({ attesters: ['0x12'] }), onDevnet),
      /config gateway\.circle\.attesters\/0|config gateway\.circle\.attesters\[0\]/,
    ],
    ['no attester', withGateway(circle({ attesters: [] }), onDevnet), /config gateway\.circle\.attesters/],
    [
      'a source domain twice',
      withGateway(
        circle({
          sources: [
            { domain: 6, gateway_wallet: WALLET, usdc: USDC_EVM },
            { domain: 6, gateway_wallet: WALLET, usdc: USDC_EVM },
          ],
        }),
        onDevnet,
      ),
      /config gateway\.circle\.sources\[1\]\.domain: domain 6 is listed twice/,
    ],
    [
      'Solana as a source',
      withGateway(circle({ sources: [{ domain: 5, gateway_wallet: WALLET, usdc: USDC_EVM }] }), onDevnet),
      /config gateway\.circle\.sources\[0\]\.domain: is Solana’s/,
    ],
    [
      'a cluster whose USDC mint no asset is',
      withGateway(circle({ cluster: 'mainnet' }), onDevnet),
      /config gateway: no configured asset is Gateway's USDC on mainnet \(EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v\)/,
    ],
    [
      'the embedded domain set to Solana’s',
      withGateway({ embedded: { domain: 5 } }),
      /config gateway\.embedded\.domain: is Solana’s/,
    ],
  ])('refuses %s', (_what, doc, message) => {
    expect(refusal(doc)).toMatch(message);
  });
});
