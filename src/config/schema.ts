// The config file's shape as a TypeBox schema: the one definition its validation and its types come from.
import Type, { type Static } from 'typebox';

const Base58Address = Type.String({
  pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
  description: 'base58 public key',
});
const Decimal = Type.String({
  pattern: '^[0-9]+(\\.[0-9]+)?$',
  description: 'decimal string, display units',
});
const Seconds = (min: number, description: string) => Type.Integer({ minimum: min, description });
/** Long enough that guessing it is hopeless; printable so it fits an environment variable. */
const ClusterSecret = Type.String({ minLength: 32, maxLength: 512, pattern: '^[\\x21-\\x7e]+$' });
/** An origin as browsers send it (scheme://host[:port], no path), or "*". */
const CorsOrigin = Type.String({
  pattern: '^(\\*|https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?|https?://\\[[0-9A-Fa-f:.]+\\](:[0-9]{1,5})?)$',
});

export const AssetConfigSchema = Type.Object(
  {
    symbol: Type.String({ pattern: '^[A-Za-z0-9]{1,12}$' }),
    name: Type.String({ minLength: 1, maxLength: 64 }),
    mint: Base58Address,
    decimals: Type.Integer({ minimum: 0, maximum: 18 }),
    trust_freeze_authority: Type.Optional(
      Type.Boolean({
        description:
          'accept the mint freeze authority, which could freeze an escrow vault mid-swap: the issuer is trusted',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PairConfigSchema = Type.Object(
  {
    input: Type.String({ minLength: 1 }),
    output: Type.String({ minLength: 1 }),
    base_spread_bps: Type.Integer({ minimum: 0, maximum: 10000 }),
    min_input: Decimal,
    max_input: Decimal,
    paused: Type.Boolean(),
    max_expiry_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 300,
        description:
          'the longest quote this pair gives (a volatile pair: shorter); quotes.max_expiry_seconds when ' +
          'that is shorter or this is absent',
      }),
    ),
    maker_timelock_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'maker HTLC expiry of this pair’s trades, from the maker lock: the taker’s redeem window, so the ' +
          'option it holds; settlement.maker_timelock_seconds when that is shorter or this is absent; at ' +
          'least min_redeem_window_seconds (and the real-cluster floor)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PriceFeedConfigSchema = Type.Object(
  {
    asset: Type.String({ minLength: 1 }),
    account: Type.Optional(
      Type.String({
        ...Base58Address,
        description: 'price update account; default the sponsored feed of the asset symbol',
      }),
    ),
    feed_id: Type.Optional(
      Type.String({
        pattern: '^(0x)?[0-9a-fA-F]{64}$',
        description: 'Pyth feed id; default the sponsored one',
      }),
    ),
    max_age_seconds: Seconds(
      1,
      'a price published longer ago (chain clock; service clock plus clock_tolerance_seconds) fails price_freshness',
    ),
    max_confidence_bps: Type.Integer({
      minimum: 0,
      maximum: 2500,
      description: 'confidence / price above this fails price_confidence',
    }),
    max_deviation_bps: Type.Integer({
      minimum: 0,
      maximum: 10000,
      description: '|price − EMA| / EMA above this fails price_deviation',
    }),
  },
  { additionalProperties: false },
);

/** One hedged asset of hedging.assets: its target, band (band or band_bps) and clip sizes. */
export const HedgedAssetConfigSchema = Type.Object(
  {
    target: { ...Decimal, description: 'the balance the hedger steers back to, display units' },
    band: Type.Optional({
      ...Decimal,
      description: 'how far the balance may stray from the target before a hedge, display units',
    }),
    band_bps: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_000,
        description: 'the band as a share of the target instead (100 = 1%)',
      }),
    ),
    max_clip: { ...Decimal, description: 'the largest single hedge swap, display units' },
    min_clip: {
      ...Decimal,
      description: 'the smallest: a hedge never swaps less (at most the band)',
    },
  },
  { additionalProperties: false },
);

export const ConfigFileSchema = Type.Object(
  {
    $comment: Type.Optional(Type.String()),
    assets: Type.Array(AssetConfigSchema, { minItems: 2 }),
    pairs: Type.Array(PairConfigSchema, { minItems: 1 }),
    prices: Type.Array(
      Type.Object(
        { asset: Type.String(), usd: Decimal, as_of: Type.String({ format: 'date-time' }) },
        { additionalProperties: false },
      ),
    ),
    price_source: Type.Union(
      [
        Type.Object(
          {
            kind: Type.Literal('static', {
              description: 'the prices above, counted as always fresh (tests)',
            }),
          },
          { additionalProperties: false },
        ),
        Type.Object(
          {
            kind: Type.Literal('pyth', {
              description: 'Pyth price update accounts read through the chain port (the default)',
            }),
            commitment: Type.Optional(
              Type.Union([Type.Literal('confirmed'), Type.Literal('finalized')], {
                description: 'commitment of the price account reads; default confirmed',
              }),
            ),
            refresh_interval_ms: Type.Integer({
              minimum: 50,
              maximum: 60_000,
              description: 'how often every feed is read, in one batched call; quotes read the last snapshot',
            }),
            feeds: Type.Array(PriceFeedConfigSchema, { minItems: 1 }),
            clock_tolerance_seconds: Type.Optional(
              Type.Integer({
                minimum: 0,
                maximum: 300,
                description:
                  'a price is also judged on the service’s own clock: older than max_age_seconds plus this ' +
                  '(default 10) since its publish time, it is stale whatever the chain’s clock says',
              }),
            ),
            embedded_publisher: Type.Optional(
              Type.Object(
                {
                  seed: Type.Integer({ minimum: 0, description: 'seed of the random walk' }),
                  interval_ms: Type.Integer({
                    minimum: 0,
                    description: 'how often each feed moves and publishes; 0: never by itself (tests)',
                  }),
                },
                {
                  additionalProperties: false,
                  description:
                    'the embedded chain writes the feeds itself, starting from `prices`; ignored on rpc',
                },
              ),
            ),
          },
          { additionalProperties: false },
        ),
      ],
      { description: 'where reference prices come from' },
    ),
    risk: Type.Object(
      {
        min_notional_usd: Decimal,
        max_notional_usd: Decimal,
        max_price_age_seconds: Seconds(1, 'a price older than this fails price_freshness'),
        max_open_per_wallet: Type.Integer({
          minimum: 1,
          description: 'open quotes plus live trades per wallet',
        }),
        maker_lock_price_tolerance_bps: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: 10000,
            description:
              "how far the mid may have moved against the maker since the quote when it is about to lock (default 50); beyond it the maker declines and releases the taker's escrow at once",
          }),
        ),
        confirmed_lock: Type.Optional(
          Type.Object(
            {
              max_trade_usd: Type.Optional({
                ...Decimal,
                description:
                  'the largest trade (its output, USD) the maker locks against a confirmed taker lock (default 250; "0": always wait for finality)',
              }),
              max_exposure_usd: Type.Optional({
                ...Decimal,
                description:
                  'the most output (USD) locked against taker locks not final yet, all trades together (default 2500): what a fork can cost at most',
              }),
              max_drift_slots: Type.Optional(
                Type.Integer({
                  minimum: 0,
                  maximum: 100_000,
                  description:
                    "confirmed and finalized slots further apart than this (finality stalling): every trade waits for finality (default 64, twice a healthy cluster's gap)",
                }),
              ),
            },
            {
              additionalProperties: false,
              description:
                'the commitment policy: when the maker may lock against a confirmed (not final) taker lock',
            },
          ),
        ),
      },
      { additionalProperties: false },
    ),
    pricing: Type.Object(
      {
        size_spread_max_bps: Type.Integer({
          minimum: 0,
          maximum: 10000,
          description: 'cap of the size term',
        }),
        inventory_skew_max_bps: Type.Integer({
          minimum: 0,
          maximum: 10000,
          description: 'cap of the skew term',
        }),
        inventory_free_share_bps: Type.Integer({
          minimum: 0,
          maximum: 10000,
          description: 'share of available inventory an order takes before skew applies',
        }),
        option: Type.Optional(
          Type.Object(
            {
              k: Type.Optional(
                Type.Number({
                  minimum: 0,
                  maximum: 10,
                  description:
                    'the term is k · σ · √T per leg; default 0.4 (≈ 1/√(2π), an at-the-money option’s value ' +
                    'per unit of σ√T); 0 turns the term off',
                }),
              ),
              max_bps: Type.Optional(
                Type.Integer({
                  minimum: 0,
                  maximum: 2500,
                  description: 'cap of each leg’s term; default 100',
                }),
              ),
              volatility_half_life_seconds: Type.Optional(
                Type.Integer({
                  minimum: 1,
                  maximum: 604_800,
                  description:
                    'half-life of the EWMA of squared log returns each Pyth feed’s volatility is estimated ' +
                    'with; default 900',
                }),
              ),
            },
            {
              additionalProperties: false,
              description:
                'the option term: what the taker’s right to walk away during its redeem window is worth',
            },
          ),
        ),
      },
      { additionalProperties: false },
    ),
    reservations: Type.Optional(
      Type.Object(
        {
          client_share_bps: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 10000,
              description:
                'the most one client address’s unfunded holds (open quotes, settlements without a landed ' +
                'lock) may take of the free inventory of an asset; default 2500',
            }),
          ),
          wallet_share_bps: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 10000,
              description: 'the same for one taker wallet; default 1500',
            }),
          ),
          unfunded_share_bps: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 10000,
              description:
                'the most all unfunded holds together hold of the free inventory of an asset; beyond it they ' +
                'hold nothing more (a quote is still given, served from what is not held); default 5000',
            }),
          ),
          lock_landing_seconds: Type.Optional(
            Type.Integer({
              minimum: 1,
              description:
                'how long a settlement start holds its output without a landed taker lock; default 30; ' +
                'settlement.lock_window_seconds when that is shorter',
            }),
          ),
        },
        {
          additionalProperties: false,
          description: 'the budget of holds nobody has paid for yet (README § Quotes, pricing and risk)',
        },
      ),
    ),
    quotes: Type.Object(
      {
        default_expiry_seconds: Seconds(1, 'quote expiry when the RFQ names none'),
        max_expiry_seconds: Type.Integer({ minimum: 1, maximum: 300 }),
      },
      { additionalProperties: false },
    ),
    settlement: Type.Object(
      {
        lock_window_seconds: Seconds(1, 'how long a taker has to land its lock after settlement start'),
        taker_timelock_seconds: Seconds(1, 'taker HTLC expiry, counted from settlement start'),
        maker_timelock_seconds: Seconds(1, 'maker HTLC expiry, counted from the maker lock'),
        safety_margin_seconds: Seconds(1, 'maker expiry is at least this long before the taker expiry'),
        min_redeem_window_seconds: Seconds(1, 'the maker locks only if the taker keeps this long to redeem'),
        landing_margin_seconds: Seconds(0, 'a redeem is accepted only this long before the maker expiry'),
      },
      { additionalProperties: false },
    ),
    inventory: Type.Array(
      Type.Object({ asset: Type.String(), amount: Decimal }, { additionalProperties: false }),
      { description: 'maker inventory funded on the embedded chain' },
    ),
    chain: Type.Union([
      Type.Object(
        {
          kind: Type.Literal('embedded'),
          program_id: Type.Optional(Base58Address),
          timing: Type.Optional(
            Type.Object(
              {
                slot_ms: Type.Optional(
                  Type.Integer({
                    minimum: 10,
                    maximum: 10_000,
                    description: 'how long a slot lasts on the clock (default 400)',
                  }),
                ),
                confirmation_slots: Type.Optional(
                  Type.Integer({
                    minimum: 0,
                    maximum: 1_000,
                    description:
                      'slots after the one a transaction landed in until confirmed sees it (default 2)',
                  }),
                ),
                finalization_slots: Type.Optional(
                  Type.Integer({
                    minimum: 0,
                    maximum: 10_000,
                    description:
                      'slots after the one a transaction landed in until finalized sees it (default 32); at least confirmation_slots',
                  }),
                ),
              },
              {
                additionalProperties: false,
                description:
                  'keep real time: slots on the clock and commitments that lag the tip, as a cluster’s do; absent: every transaction is final the moment it lands',
              },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      Type.Object(
        {
          kind: Type.Literal('rpc'),
          url: Type.Optional(
            Type.String({ pattern: '^https?://', description: 'the JSON-RPC endpoint (or give urls)' }),
          ),
          urls: Type.Optional(
            Type.Array(Type.String({ pattern: '^https?://' }), {
              minItems: 1,
              maxItems: 8,
              description:
                'JSON-RPC endpoints, the primary first: every transaction is sent to all, a read that gets no answer is asked of the next',
            }),
          ),
          ws_url: Type.Optional(
            Type.String({
              pattern: '^wss?://',
              description:
                "the websocket pushes come from; default derived from the first URL as web3.js does (port + 1); while it is down, the other endpoints' derived websockets are tried",
            }),
          ),
          max_slot_lag: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 10_000,
              description:
                'how many slots an endpoint may trail the most advanced one and still be believed that an account or signature does not exist (default 25, about 10 s)',
            }),
          ),
          program_id: Base58Address,
          maker_keypair_path: Type.String({ minLength: 1 }),
          priority_fee_micro_lamports: Type.Optional(
            Type.Integer({
              minimum: 0,
              description: 'priority fee of maker transactions far from any deadline (µlamports per CU)',
            }),
          ),
          max_priority_fee_micro_lamports: Type.Optional(
            Type.Integer({
              minimum: 0,
              description:
                'the most the priority fee rises to as a maker transaction nears its deadline (default 100× the base)',
            }),
          ),
          priority_fee_ramp_seconds: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 3600,
              description: 'how long before a deadline the priority fee starts to rise (default 120)',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ]),
    cluster: Type.Optional(
      Type.Object(
        {
          lease_ttl_seconds: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 600,
              description:
                'how long a run owns its trades without renewing (PostgreSQL, several instances); at most a third of settlement.safety_margin_seconds',
            }),
          ),
          claim_batch: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 100_000,
              description: 'orphaned trades taken per statement (a renewal drains them batch after batch)',
            }),
          ),
          secret: Type.Optional(
            Type.Union([ClusterSecret, Type.Null()], {
              description:
                'the secret the instances sign forwarded commands with (HMAC-SHA256); the CLUSTER_SECRET ' +
                'environment variable wins. Required with DATABASE_URL; the same in every instance',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    swap_page: Type.Optional(
      Type.Object(
        {
          rpc_url: Type.Optional(
            Type.String({
              pattern: '^https?://',
              description:
                'the Solana JSON-RPC the swap page reads the maker’s lock through before revealing (rpc chains; the embedded chain uses the service’s dev RPC)',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    venue: Type.Optional(
      Type.Object(
        {
          liquidity_usd_per_side: Type.Optional(
            Type.String({
              ...Decimal,
              description: 'what each side of a pool is worth at genesis, in USD; default 2000000',
            }),
          ),
          fee_bps: Type.Optional(
            Type.Integer({ minimum: 0, maximum: 1000, description: 'swap fee of every pool; default 30' }),
          ),
          keeper_trigger_bps: Type.Optional(
            Type.Union([Type.Integer({ minimum: 0, maximum: 10_000 }), Type.Null()], {
              description:
                'the keeper swaps a pool back to the Pyth mid once it strays further than this; null: no keeper; default 10',
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            "the embedded venue: an AMM pool per configured pair on the embedded chain (and `npm run chain`'s), seeded by the chain's own liquidity admin",
        },
      ),
    ),
    aggregator: Type.Optional(
      Type.Object(
        {
          kind: Type.Literal('jupiter', {
            description: "Jupiter's Swap API v1 (GET /quote, POST /swap-instructions)",
          }),
          base_url: Type.Optional(
            Type.String({
              pattern: '^https?://',
              description:
                'the API base URL; default: the embedded venue on an embedded chain, https://lite-api.jup.ag/swap/v1 on rpc',
            }),
          ),
          api_key_env: Type.Optional(
            Type.String({
              pattern: '^[A-Z_][A-Z0-9_]*$',
              description: 'environment variable holding an x-api-key (https://api.jup.ag/swap/v1)',
            }),
          ),
          max_slippage_bps: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1000,
              description:
                'the worst a swap may do against the live Pyth mid (and the slippage asked of the API); default 100',
            }),
          ),
          max_priority_fee_lamports: Type.Optional(
            Type.Integer({
              minimum: 0,
              description:
                "the most a swap's compute-budget instructions may cost the maker in priority fees; default 1000000",
            }),
          ),
          allowed_programs: Type.Optional(
            Type.Array(Base58Address, {
              minItems: 1,
              description:
                "programs a swap instruction may call; default Jupiter's v6 program and the embedded AMM",
            }),
          ),
          timeout_ms: Type.Optional(
            Type.Integer({ minimum: 100, maximum: 60_000, description: 'per API request; default 10000' }),
          ),
          route_tolerance_bps: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 1000,
              description:
                "the least any maker swap (a hedge, a sourcing swap) accepts on chain: the route's quoted out " +
                'less this, never below the Pyth floor (the mid less the max_slippage_bps that applies); at ' +
                'most aggregator.max_slippage_bps; default 20',
            }),
          ),
          trusted_pools: Type.Optional(
            Type.Array(Base58Address, {
              description:
                'the pools (AMM accounts) a swap may route through; a route naming another is refused. The ' +
                'embedded venue’s own pools are always trusted; without this list (and without an embedded ' +
                'venue) the pools are not pinned',
            }),
          ),
        },
        { additionalProperties: false, description: 'where hedges and sourcing swaps are routed' },
      ),
    ),
    sourcing: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(
            Type.Boolean({
              description:
                'quote outputs the free inventory does not cover by buying the rest through the aggregator ' +
                'just in time; default: on when the config has a venue or a hedging section',
            }),
          ),
          max_slippage_bps: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1000,
              description:
                'the slippage asked of the route (the quote prices the sourced part from its minimum out) and ' +
                'the worst the sourcing swap may do against the live Pyth mid; at most ' +
                'aggregator.max_slippage_bps, which is the default',
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'just-in-time sourcing: an RFQ larger than the free inventory is priced for the rest from the ' +
            'aggregator, which the maker buys after the taker’s lock is final and before its own lock',
        },
      ),
    ),
    hedging: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(
            Type.Boolean({
              description:
                'false: targets and bands are shown (GET /v1/inventory, metrics) but nothing is swapped; default true',
            }),
          ),
          quote_asset: Type.Optional(
            Type.String({
              minLength: 1,
              description: 'what every hedged asset is swapped against (never hedged itself); default USDC',
            }),
          ),
          max_slippage_bps: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1000,
              description:
                'the least a hedge may receive: its exact input at the live Pyth mid less this, enforced on ' +
                'chain by the swap’s minimum out; at most aggregator.max_slippage_bps, which is the default',
            }),
          ),
          retry_seconds: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 3600,
              description:
                'after a hedge could not be made (no route, price beyond the slippage limit, stale price, venue ' +
                'down), how long before trying again while the asset stays outside its band; default 30',
            }),
          ),
          clip_interval_ms: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 600_000,
              description:
                'the pause between one landed clip and the next of the same asset, so the market (arbitrage; the ' +
                'embedded venue’s keeper) can bring the route back to the mid; default 2000',
            }),
          ),
          assets: Type.Record(Type.String({ pattern: '^[A-Za-z0-9]{1,12}$' }), HedgedAssetConfigSchema, {
            description:
              'per asset symbol: its target inventory, band (band or band_bps, one of them) and clip sizes',
          }),
        },
        {
          additionalProperties: false,
          description:
            'inventory targets and bands; once a trade is redeemed, an asset outside its band is swapped back ' +
            'toward its target through the aggregator, in clips (README § Hedging)',
        },
      ),
    ),
    gateway: Type.Optional(
      Type.Object(
        {
          mode: Type.Optional(
            Type.Union([Type.Literal('embedded'), Type.Literal('circle'), Type.Literal('off')], {
              description:
                'embedded (the default on the embedded chain): the dev Gateway, its programs on the embedded chain and anvil as its EVM ' +
                "domain, started with the service; circle: Circle's Gateway API and programs on an rpc cluster; " +
                'off: no Gateway, the default on an rpc chain (docs/gateway.md)',
            }),
          ),
          count_unified_in_quotes: Type.Optional(
            Type.Boolean({
              description:
                'quotes may count the unified USDC balance, less the fee estimate and reserve_usdc, as available ' +
                'output. Default false: nothing mints just in time yet, so such a quote could not be filled',
            }),
          ),
          reserve_usdc: Type.Optional({
            ...Decimal,
            description: 'of the unified balance, what quotes never count (USDC); default 0',
          }),
          max_fee_usdc: Type.Optional({
            ...Decimal,
            description: 'the most one transfer may cost in Gateway fees (USDC); default 100',
          }),
          refresh_interval_ms: Type.Optional(
            Type.Integer({
              minimum: 100,
              maximum: 600_000,
              description: 'how often the unified balance and its fee estimate are read; default 5000',
            }),
          ),
          timeout_ms: Type.Optional(
            Type.Integer({ minimum: 100, maximum: 60_000, description: 'per API request; default 5000' }),
          ),
          embedded: Type.Optional(
            Type.Object(
              {
                evm_deposit_usdc: Type.Optional({
                  ...Decimal,
                  description:
                    "what the maker's depositor holds in the GatewayWallet on the EVM domain after each start " +
                    '(anvil keeps its chain in memory); default 100000',
                }),
                domain: Type.Optional(
                  Type.Integer({
                    minimum: 0,
                    maximum: 4_294_967_295,
                    description: 'the Gateway domain the EVM node stands for; default 6 (Base)',
                  }),
                ),
                settle_interval_ms: Type.Optional(
                  Type.Integer({
                    minimum: 10,
                    maximum: 60_000,
                    description: "how often the dev Gateway's operator looks for mints to burn; default 1000",
                  }),
                ),
              },
              { additionalProperties: false, description: 'the embedded mode: the dev Gateway' },
            ),
          ),
          circle: Type.Optional(
            Type.Object(
              {
                cluster: Type.Union([Type.Literal('mainnet'), Type.Literal('devnet')], {
                  description:
                    'which of Circle’s deployments: its GatewayWallet and GatewayMinter program ids and USDC mint ' +
                    'on that Solana cluster, and the API (mainnet: https://gateway-api.circle.com, devnet: ' +
                    'https://gateway-api-testnet.circle.com)',
                }),
                base_url: Type.Optional(
                  Type.String({
                    pattern: '^https?://',
                    description: 'the API base URL; default: the cluster’s',
                  }),
                ),
                depositor: Type.String({
                  pattern: '^0x[0-9a-fA-F]{40}$',
                  description: "the maker's EVM depositor (and signer) whose unified balance is read",
                }),
                attesters: Type.Array(
                  Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'an attester’s EVM address' }),
                  {
                    minItems: 1,
                    description:
                      "the attesters whose signature the maker trusts (the minter's enabled attesters)",
                  },
                ),
                sources: Type.Array(
                  Type.Object(
                    {
                      domain: Type.Integer({ minimum: 0, maximum: 4_294_967_295 }),
                      gateway_wallet: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
                      usdc: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
                    },
                    { additionalProperties: false },
                  ),
                  {
                    minItems: 1,
                    description:
                      "the EVM domains the unified balance is read on: each one's GatewayWallet and USDC (Circle's " +
                      'contract addresses page)',
                  },
                ),
              },
              { additionalProperties: false, description: "the circle mode: Circle's Gateway" },
            ),
          ),
        },
        {
          additionalProperties: false,
          description:
            'Circle Gateway: the unified USDC balance across chains, shown by GET /v1/inventory (docs/gateway.md)',
        },
      ),
    ),
    http: Type.Object(
      {
        cors_origins: Type.Array(CorsOrigin, {
          description:
            'origins whose pages may call the public routes from a browser; [] (the default): the service’s ' +
            'own swap page only (same origin needs no CORS). "*" allows every origin and must be written ' +
            'out. Operator routes never answer cross-origin',
        }),
        rate_limit_per_minute: Type.Integer({ minimum: 1 }),
        body_limit_bytes: Type.Integer({ minimum: 1024, maximum: 10_485_760 }),
        operator_token: Type.Union([Type.String({ minLength: 16 }), Type.Null()]),
        operator_tokens: Type.Optional(
          Type.Array(
            Type.Object(
              {
                name: Type.String({
                  pattern: '^[A-Za-z0-9._-]{1,64}$',
                  description: 'who holds it: the control plane records each change under this name',
                }),
                token: Type.String({ minLength: 16 }),
              },
              { additionalProperties: false },
            ),
            {
              description:
                'named operator tokens, each accepted like operator_token (which is named "operator"): a change ' +
                'to the desk’s live settings is recorded with the name of the token it came with',
            },
          ),
        ),
        trust_proxy: Type.Optional(
          Type.Union(
            [
              Type.Boolean({
                description: 'true: every hop (only behind a proxy that overwrites the header)',
              }),
              Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
                minItems: 1,
                description: 'the proxies’ addresses or CIDR ranges (e.g. "10.0.0.0/8", "loopback")',
              }),
            ],
            {
              description:
                'whether X-Forwarded-For names the client (behind a load balancer or reverse proxy): the ' +
                'rate limit is per client address. Default false: the address the connection comes from',
            },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type ConfigFile = Static<typeof ConfigFileSchema>;
