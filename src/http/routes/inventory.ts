// Inventory group (/v1/inventory): the operator's view of the maker's inventory — balances, reservations,
// hedging targets and bands, and hedges in flight and lately made (src/hedging/view.ts reads them), and what
// rides on confirmed taker locks not final yet (the commitment policy's book). Takes the operator token
// (docs/interface.md#guards).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { AssetRegistry, GatewayConfig } from '../../config/index.ts';
import { chainOfDomain } from '../../gateway/formats/domains.ts';
import type { UnifiedReading } from '../../gateway/inventory.ts';
import { hedgeSlippage, type InventoryReading } from '../../hedging/index.ts';
import { formatDecimal, formatUsd } from '../../money/index.ts';
import type { ExposureView } from '../../runtime/index.ts';
import type { HedgeRecord } from '../../store/index.ts';
import { errorResponses } from '../errors.ts';
import {
  type ConfirmedLocksSchema,
  type GatewayInventorySchema,
  type HedgeSchema,
  InventorySchema,
} from './inventory.schema.ts';
import { OPERATOR_SECURITY, type OperatorAccess, OperatorQuery, requireOperator } from './operator.ts';

export interface InventoryRoutesOptions {
  assets: AssetRegistry;
  read: () => Promise<InventoryReading>;
  /** The commitment policy's book; absent: confirmed_locks is null. */
  confirmedLocks?: () => ExposureView;
  /** The Gateway unified balance and its config; absent: gateway is null. */
  gateway?: { read: () => UnifiedReading; config: GatewayConfig | null };
  operator: OperatorAccess;
}

export function renderHedge(hedge: HedgeRecord, assets: AssetRegistry): Static<typeof HedgeSchema> {
  const symbol = (mint: string) => assets.find(mint)?.symbol ?? mint;
  const slippage = hedgeSlippage(hedge, assets);
  return {
    hedge_id: hedge.hedgeId,
    trade_id: hedge.tradeId,
    asset: symbol(hedge.asset),
    side: hedge.side,
    status: hedge.status,
    attempt: hedge.attempt,
    signature: hedge.signature,
    expired_signatures: hedge.expiredSignatures,
    input: { asset: symbol(hedge.inputMint), amount_raw: hedge.amountInRaw.toString() },
    output: {
      asset: symbol(hedge.outputMint),
      quoted_raw: hedge.quotedOutRaw.toString(),
      min_raw: hedge.minOutRaw.toString(),
      at_mid_raw: hedge.midOutRaw.toString(),
      landed_raw: hedge.landedOutRaw === null ? null : hedge.landedOutRaw.toString(),
    },
    max_slippage_bps: hedge.maxSlippageBps,
    slippage_raw: slippage === null ? null : slippage.slippageRaw.toString(),
    slippage_bps: slippage === null ? null : slippage.slippageBps,
    fee_lamports: hedge.feeLamports === null ? null : hedge.feeLamports.toString(),
    error: hedge.error,
    created_at: hedge.createdAt,
    landed_at: hedge.landedAt,
  };
}

/** Micro-USD as a dollar amount without trailing zeros ("2500", "12.5"). */
const dollars = (microUsd: bigint) => formatUsd(microUsd).replace(/\.?0+$/, '') || '0';

export function renderConfirmedLocks(
  view: ExposureView,
  assets: AssetRegistry,
): Static<typeof ConfirmedLocksSchema> {
  return {
    max_trade_usd: dollars(view.policy.maxTradeMicroUsd),
    max_exposure_usd: dollars(view.policy.maxExposureMicroUsd),
    max_drift_slots: view.policy.maxDriftSlots,
    trades: view.trades,
    exposure_usd: view.microUsd === null ? null : dollars(view.microUsd),
    assets: [...view.byMint].map(([mint, raw]) => {
      const asset = assets.find(mint);
      return {
        asset: asset?.symbol ?? mint,
        amount_raw: raw.toString(),
        amount: formatDecimal(raw, asset?.decimals ?? 0),
      };
    }),
    drift_slots: view.drift?.slots ?? null,
    drift_read_at: view.drift === null ? null : new Date(view.drift.atMs).toISOString(),
    admitted: view.admitted,
    refused: { ...view.refused },
  };
}

export function renderGateway(
  reading: UnifiedReading,
  config: GatewayConfig,
): Static<typeof GatewayInventorySchema> {
  const { decimals } = config.asset;
  return {
    mode: config.mode,
    asset: config.asset.symbol,
    depositor: reading.depositor,
    read_at: reading.readAtMs === null ? null : new Date(reading.readAtMs).toISOString(),
    error: reading.error,
    domains: reading.domains.map((d) => ({
      domain: d.domain,
      chain: chainOfDomain(d.domain) ?? null,
      available_raw: d.available.toString(),
      available: formatDecimal(d.available, decimals),
      pending_burn_raw: d.pendingBurn === null ? null : d.pendingBurn.toString(),
      fee_estimate_raw: d.fee === null ? null : d.fee.toString(),
      fee_error: d.feeError,
    })),
    reserve_raw: reading.reserveRaw.toString(),
    usable_raw: reading.countedRaw.toString(),
    usable: formatDecimal(reading.countedRaw, decimals),
    counted_in_quotes: config.countUnifiedInQuotes,
  };
}

export function renderInventory(
  reading: InventoryReading,
  assets: AssetRegistry,
  confirmedLocks: ExposureView | null = null,
  gateway: { reading: UnifiedReading; config: GatewayConfig } | null = null,
): Static<typeof InventorySchema> {
  const { hedging } = reading;
  return {
    balances_read_at:
      reading.balancesReadAtMs === null ? null : new Date(reading.balancesReadAtMs).toISOString(),
    hedging:
      hedging === null
        ? null
        : {
            enabled: hedging.enabled,
            quote_asset: hedging.quoteAsset.symbol,
            max_slippage_bps: hedging.maxSlippageBps,
            retry_seconds: hedging.retrySeconds,
          },
    assets: reading.assets.map((position) => {
      const { asset, hedged, state } = position;
      const decimals = asset.decimals;
      return {
        asset: asset.symbol,
        mint: asset.mint,
        decimals,
        balance_raw: position.balanceRaw === undefined ? null : position.balanceRaw.toString(),
        balance: position.balanceRaw === undefined ? null : formatDecimal(position.balanceRaw, decimals),
        reserved_raw: position.reservedRaw.toString(),
        reserved: formatDecimal(position.reservedRaw, decimals),
        target:
          hedged === null
            ? null
            : {
                target_raw: hedged.targetRaw.toString(),
                target: formatDecimal(hedged.targetRaw, decimals),
                band_raw: hedged.bandRaw.toString(),
                band: formatDecimal(hedged.bandRaw, decimals),
                max_clip_raw: hedged.maxClipRaw.toString(),
                min_clip_raw: hedged.minClipRaw.toString(),
                deviation_raw: position.deviationRaw === null ? null : position.deviationRaw.toString(),
                outside_band: position.outsideBand,
                hedging: state?.working ?? false,
                last_error: state?.lastError ?? null,
                retry_at: state?.retryAt ?? null,
              },
      };
    }),
    hedges_in_flight: reading.inFlight.map((hedge) => renderHedge(hedge, assets)),
    recent_hedges: reading.recent.map((hedge) => renderHedge(hedge, assets)),
    confirmed_locks: confirmedLocks === null ? null : renderConfirmedLocks(confirmedLocks, assets),
    gateway: gateway === null ? null : renderGateway(gateway.reading, gateway.config),
  };
}

export const inventoryRoutes: FastifyPluginAsyncTypebox<InventoryRoutesOptions> = async (app, opts) => {
  requireOperator(app, opts.operator);

  app.get(
    '/',
    {
      schema: {
        operationId: 'getInventory',
        tags: ['Runtime'],
        summary: 'The maker’s inventory: balances, reservations, hedging targets and bands, hedges',
        description:
          'Operator route. Each configured asset’s balance as last read for quoting, what open quotes, live ' +
          'trades and hedges in flight reserve of it, and — for an asset with a hedging target — its target, ' +
          'band and clip sizes, how far it is from the target, whether it is outside the band, and why its ' +
          'last hedge could not be made. Then the hedges in flight and the latest ones, each with its swap ' +
          '(aggregator_swap), amounts and slippage against the live Pyth mid. Then the commitment policy: the ' +
          'trades locked against a confirmed taker lock not final yet, what a fork could cost, and its caps. ' +
          'Then the Gateway unified balance per source domain (available, pending burn, fee estimate) and what ' +
          'of it quotes may count. Costs no chain call and no Gateway call (both are read on timers).',
        security: OPERATOR_SECURITY,
        querystring: OperatorQuery,
        response: { 200: InventorySchema, ...errorResponses('unauthorized') },
      },
    },
    async function getInventory() {
      const config = opts.gateway?.config ?? null;
      const gateway = opts.gateway && config ? { reading: opts.gateway.read(), config } : null;
      return renderInventory(await opts.read(), opts.assets, opts.confirmedLocks?.() ?? null, gateway);
    },
  );
};
