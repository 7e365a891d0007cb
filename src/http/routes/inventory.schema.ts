// Schemas of the Inventory group (GET /v1/inventory): each asset's balance, what is reserved of it, its
// hedging target and band and whether it is outside, and the hedges in flight and lately made.
import Type from 'typebox';
import { HEDGE_FAILURE_REASONS } from '../../hedging/index.ts';
import { HEDGE_STATUSES } from '../../store/index.ts';
import { DateTime, Nullable, RawAmountString, Uuid } from '../schemas.ts';

const SignedRawString = Type.String({
  pattern: '^-?[0-9]+$',
  description: 'integer count of smallest units, negative below zero',
});
const Decimal = (description: string) =>
  Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$', description: `${description}, display units` });

export const HedgeSchema = Type.Object(
  {
    hedge_id: Uuid,
    trade_id: {
      ...Uuid,
      description: 'the trade whose redeem left the asset outside its band (it shows the swap)',
    },
    asset: Type.String({ description: 'the hedged asset, symbol' }),
    side: Type.Enum(['sell', 'buy'], {
      description: 'sell: the maker was long the asset and sold it; buy: short, and bought it',
    }),
    status: Type.Enum(HEDGE_STATUSES, {
      description:
        'sending: its signed swap is stored and being landed; requoting: that swap was proven unlandable and ' +
        'a new one is being quoted; landed; failed (on chain, or could not be made again); cancelled (no ' +
        'longer needed before a new swap was signed)',
    }),
    attempt: Type.Integer({ minimum: 1, description: 'how many swaps were signed for it' }),
    signature: Nullable(Type.String({ description: 'the current swap (aggregator_swap)' })),
    expired_signatures: Type.Array(Type.String(), {
      description: 'earlier swaps of this hedge, each proven unlandable before the next was signed',
    }),
    input: Type.Object({ asset: Type.String(), amount_raw: RawAmountString }),
    output: Type.Object({
      asset: Type.String(),
      quoted_raw: RawAmountString,
      min_raw: { ...RawAmountString, description: 'the least the swap may pay, enforced on chain' },
      at_mid_raw: { ...RawAmountString, description: 'the input at the live Pyth mid when quoted' },
      landed_raw: Nullable({ ...RawAmountString, description: 'what the chain paid, once landed' }),
    }),
    max_slippage_bps: Type.Integer({ minimum: 0 }),
    slippage_raw: Nullable({
      ...SignedRawString,
      description: 'at_mid − landed, output units: what the swap paid below the mid (negative: above it)',
    }),
    slippage_bps: Nullable(Type.Integer({ description: 'slippage_raw / at_mid, bps, toward zero' })),
    fee_lamports: Nullable(RawAmountString),
    error: Nullable(Type.String()),
    created_at: DateTime,
    landed_at: Nullable(DateTime),
  },
  { title: 'Hedge' },
);

const Usd = (description: string) =>
  Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', description: `${description}, USD` });

/** The commitment policy's book (src/runtime/exposure.ts): what rides on confirmed taker locks not final yet. */
export const ConfirmedLocksSchema = Type.Object(
  {
    max_trade_usd: Usd('the largest trade (its output) the maker locks against a confirmed taker lock'),
    max_exposure_usd: Usd('the most output locked against taker locks not final yet: what a fork can cost'),
    max_drift_slots: Type.Integer({
      description: 'finality trailing confirmations by more slots than this: every trade waits for finality',
    }),
    trades: Type.Integer({
      minimum: 0,
      description: 'trades locked (or locking) against a confirmed taker lock not final yet',
    }),
    exposure_usd: Nullable(
      Usd('their output at the live prices, what a fork could cost now (null: a price is not usable)'),
    ),
    assets: Type.Array(
      Type.Object(
        {
          asset: Type.String({ description: 'symbol' }),
          amount_raw: RawAmountString,
          amount: Decimal('their output in this asset'),
        },
        { title: 'ConfirmedLockAsset' },
      ),
    ),
    drift_slots: Nullable(
      Type.Integer({
        minimum: 0,
        description: "how far the cluster's finalized slot trailed its confirmed one, as last read",
      }),
    ),
    drift_read_at: Nullable({ ...DateTime, description: 'when that was read' }),
    admitted: Type.Integer({
      minimum: 0,
      description: 'trades locked against a confirmed lock since the start',
    }),
    refused: Type.Object(
      {
        trade_cap: Type.Integer({ minimum: 0 }),
        exposure_cap: Type.Integer({ minimum: 0 }),
        drift: Type.Integer({ minimum: 0 }),
        price: Type.Integer({ minimum: 0 }),
      },
      { description: 'confirmed locks the maker waited to be final instead, since the start, by why' },
    ),
  },
  {
    title: 'ConfirmedLocks',
    description:
      'the commitment policy (risk.confirmed_lock): trades the maker locked against a confirmed, not yet final taker lock',
  },
);

/** The Gateway unified balance (src/gateway/inventory.ts), beside the Solana balances. */
export const GatewayInventorySchema = Type.Object(
  {
    mode: Type.Enum(['embedded', 'circle'], {
      description: 'embedded: the dev Gateway started with the service; circle: Circle’s Gateway API',
    }),
    asset: Type.String({ description: 'the USDC asset the unified balance mints as on Solana, symbol' }),
    depositor: Type.String({ description: 'the maker’s depositor on the EVM source domains, 0x-hex' }),
    read_at: Nullable({
      ...DateTime,
      description: 'when the balances below were read from Gateway (null: not yet)',
    }),
    error: Nullable(
      Type.String({ description: 'why the latest read failed: until one succeeds, quotes count none of it' }),
    ),
    domains: Type.Array(
      Type.Object(
        {
          domain: Type.Integer({ minimum: 0, description: 'Circle’s domain number' }),
          chain: Nullable(Type.String({ description: 'the chain the domain names (base, ethereum…)' })),
          available_raw: {
            ...RawAmountString,
            description:
              'what Gateway would attest now: deposits less burns and less what is attested, unburned',
          },
          available: Decimal('available'),
          pending_burn_raw: Nullable({
            ...RawAmountString,
            description:
              'attested and not burned yet on the source domain (value + fee); null where the API does not say ' +
              '(Circle’s balances)',
          }),
          fee_estimate_raw: Nullable({
            ...RawAmountString,
            description:
              'what minting all of available to Solana would cost; null: no estimate (see fee_error)',
          }),
          fee_error: Nullable(Type.String({ description: 'why there is no estimate (the domain counts 0)' })),
        },
        { title: 'GatewayDomainBalance' },
      ),
    ),
    reserve_raw: { ...RawAmountString, description: 'of the unified balance, what quotes never count' },
    usable_raw: {
      ...RawAmountString,
      description:
        'the unified balance quotes may count now: per domain available less its fee estimate, less the ' +
        'reserve; 0 while the latest read failed or is older than a refresh',
    },
    usable: Decimal('usable'),
    counted_in_quotes: Type.Boolean({
      description:
        'gateway.count_unified_in_quotes: whether quotes add usable to the asset’s balance (off by default: ' +
        'nothing mints just in time yet)',
    }),
  },
  { title: 'GatewayInventory', description: 'null: no Gateway configured (gateway absent or mode off)' },
);

export const InventorySchema = Type.Object(
  {
    balances_read_at: Nullable({
      ...DateTime,
      description: 'when the balances below were read from the chain (the quote desk’s cache)',
    }),
    hedging: Nullable(
      Type.Object(
        {
          enabled: Type.Boolean({ description: 'false: targets are shown, nothing is swapped' }),
          quote_asset: Type.String({ description: 'what hedged assets are swapped against' }),
          max_slippage_bps: Type.Integer({ description: 'a hedge gets at least the live mid less this' }),
          retry_seconds: Type.Integer(),
        },
        { title: 'HedgingSettings', description: 'null: the config sets no targets' },
      ),
    ),
    assets: Type.Array(
      Type.Object(
        {
          asset: Type.String({ description: 'symbol' }),
          mint: Type.String(),
          decimals: Type.Integer({ minimum: 0, maximum: 18 }),
          balance_raw: Nullable(RawAmountString),
          balance: Nullable(Decimal('the maker’s balance (SOL as wrapped SOL)')),
          reserved_raw: {
            ...RawAmountString,
            description: 'held by open quotes, live trades and hedges in flight',
          },
          reserved: Decimal('reserved'),
          target: Nullable(
            Type.Object(
              {
                target_raw: RawAmountString,
                target: Decimal('the balance hedging steers back to'),
                band_raw: RawAmountString,
                band: Decimal('how far the balance may stray before a hedge'),
                max_clip_raw: RawAmountString,
                min_clip_raw: RawAmountString,
                deviation_raw: Nullable(SignedRawString),
                outside_band: Nullable(Type.Boolean()),
                hedging: Type.Boolean({ description: 'a hedge of it is being made or landed now' }),
                last_error: Nullable(
                  Type.Object({
                    reason: Type.Enum([...HEDGE_FAILURE_REASONS, 'reserved'], {
                      description: 'reserved: open quotes and trades hold too much of it to swap min_clip',
                    }),
                    message: Type.String(),
                    at: DateTime,
                  }),
                ),
                retry_at: Nullable(DateTime),
              },
              { title: 'InventoryTarget', description: 'null: the asset has no hedging target' },
            ),
          ),
        },
        { title: 'InventoryAsset' },
      ),
    ),
    hedges_in_flight: Type.Array(HedgeSchema, {
      description: 'hedges being sent or requoted, by every instance',
    }),
    recent_hedges: Type.Array(HedgeSchema, {
      description: 'the latest hedges of every instance, newest first',
    }),
    confirmed_locks: Nullable(ConfirmedLocksSchema),
    gateway: Nullable(GatewayInventorySchema),
  },
  { title: 'Inventory' },
);
