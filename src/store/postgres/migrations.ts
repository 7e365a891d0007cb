// PostgreSQL schema migrations, applied in order at open and recorded in schema_migrations. Append; never edit
// a shipped one. The schema is SQLite's final shape (migrations.ts) in PostgreSQL's own types, chosen so that
// every record reads back identical:
// - amounts are NUMERIC(78,0): exact integers of any size a u64 (or a u256) needs, read back as decimal
//   strings and turned into bigints by the shared row mappers; unlike TEXT they can be summed in SQL;
// - flags (closed, running) are BOOLEAN; seq and entry_id BIGINT identities; chain times and millisecond
//   times BIGINT (int4 ends in 2038), read back as numbers by the store's int8 parser;
// - times are the ISO strings we wrote, as TEXT; JSON (snapshots, payloads, prices, risk checks) is TEXT as
//   well, so the exact string written comes back (jsonb would reorder keys and refuse \u0000);
// - every text column compares bytewise (COLLATE "C"), as SQLite's BINARY does: paging by (created_at,
//   trade_id) and ORDER BY status, substate must not depend on the database's locale.
import type pg from 'pg';

/** Two minutes ago on the database's clock, in unix ms: reservations that ended before are left out. */
const PAST_MS = '((extract(epoch FROM clock_timestamp()) * 1000)::bigint - 120000)';

export const POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE runs (
    run_id      TEXT COLLATE "C" PRIMARY KEY,
    version     TEXT COLLATE "C" NOT NULL,
    started_at  TEXT COLLATE "C" NOT NULL,
    stopped_at  TEXT COLLATE "C"
  );
  CREATE TABLE quotes (
    quote_id           TEXT COLLATE "C" PRIMARY KEY,
    run_id             TEXT COLLATE "C" NOT NULL REFERENCES runs (run_id),
    taker_wallet       TEXT COLLATE "C" NOT NULL,
    input_mint         TEXT COLLATE "C" NOT NULL,
    output_mint        TEXT COLLATE "C" NOT NULL,
    input_raw          NUMERIC(78, 0) NOT NULL,
    output_raw         NUMERIC(78, 0) NOT NULL,
    spread_bps         INTEGER NOT NULL,
    input_usd          TEXT COLLATE "C" NOT NULL,
    output_usd         TEXT COLLATE "C" NOT NULL,
    input_price        TEXT COLLATE "C",
    output_price       TEXT COLLATE "C",
    created_at         TEXT COLLATE "C" NOT NULL,
    expires_at_ms      BIGINT NOT NULL,
    htlc_expires_at_ms BIGINT NOT NULL,
    risk_checks        TEXT COLLATE "C" NOT NULL,
    used_by_trade_id   TEXT COLLATE "C"
  );
  CREATE INDEX quotes_open ON quotes (expires_at_ms) WHERE used_by_trade_id IS NULL;

  CREATE TABLE trades (
    trade_id         TEXT COLLATE "C" PRIMARY KEY,
    quote_id         TEXT COLLATE "C" NOT NULL REFERENCES quotes (quote_id)
                       CONSTRAINT trades_quote_id_key UNIQUE,
    run_id           TEXT COLLATE "C" NOT NULL REFERENCES runs (run_id),
    owner_run_id     TEXT COLLATE "C" NOT NULL REFERENCES runs (run_id),
    taker_wallet     TEXT COLLATE "C" NOT NULL,
    secret_hash      TEXT COLLATE "C" NOT NULL CONSTRAINT trades_secret_hash_key UNIQUE,
    created_at       TEXT COLLATE "C" NOT NULL,
    updated_at       TEXT COLLATE "C" NOT NULL,
    status           TEXT COLLATE "C" NOT NULL,
    substate         TEXT COLLATE "C" NOT NULL,
    closed           BOOLEAN NOT NULL,
    next_deadline    BIGINT,
    adoption_error   TEXT COLLATE "C",
    taker_escrow     TEXT COLLATE "C" NOT NULL,
    maker_escrow     TEXT COLLATE "C" NOT NULL,
    watch            INTEGER NOT NULL,
    seen             TEXT COLLATE "C" NOT NULL,
    hold_mint        TEXT COLLATE "C",
    hold_raw         NUMERIC(78, 0),
    hold_until_ms    BIGINT,
    running          BOOLEAN NOT NULL,
    effect_attempts  INTEGER NOT NULL
  );
  CREATE INDEX trades_by_wallet ON trades (taker_wallet, created_at, trade_id);
  CREATE INDEX trades_by_created ON trades (created_at, trade_id);
  CREATE INDEX trades_unclosed ON trades (status, substate) WHERE NOT closed;
  CREATE INDEX trades_wake ON trades (next_deadline) WHERE NOT closed AND next_deadline IS NOT NULL;
  CREATE INDEX trades_running ON trades (trade_id) WHERE NOT closed AND running;
  CREATE INDEX trades_unadoptable ON trades (trade_id) WHERE NOT closed AND adoption_error IS NOT NULL;
  CREATE INDEX trades_live_by_wallet ON trades (taker_wallet) WHERE status IN ('pending', 'initiated');
  CREATE INDEX trades_failing ON trades (effect_attempts) WHERE NOT closed AND effect_attempts > 0;

  CREATE TABLE trade_snapshots (
    trade_id         TEXT COLLATE "C" PRIMARY KEY REFERENCES trades (trade_id),
    machine_version  INTEGER NOT NULL,
    snapshot         TEXT COLLATE "C" NOT NULL
  );

  CREATE TABLE trade_events (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    trade_id   TEXT COLLATE "C" NOT NULL REFERENCES trades (trade_id),
    run_id     TEXT COLLATE "C" NOT NULL REFERENCES runs (run_id),
    at         TEXT COLLATE "C" NOT NULL,
    type       TEXT COLLATE "C" NOT NULL,
    status     TEXT COLLATE "C" NOT NULL,
    substate   TEXT COLLATE "C" NOT NULL,
    payload    TEXT COLLATE "C" NOT NULL
  );
  CREATE INDEX trade_events_by_trade ON trade_events (trade_id, seq);

  CREATE TABLE ledger_entries (
    entry_id   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    trade_id   TEXT COLLATE "C" NOT NULL REFERENCES trades (trade_id),
    movement   TEXT COLLATE "C" NOT NULL,
    signature  TEXT COLLATE "C" NOT NULL,
    mint       TEXT COLLATE "C" NOT NULL,
    account    TEXT COLLATE "C" NOT NULL,
    side       TEXT COLLATE "C" NOT NULL CHECK (side IN ('debit', 'credit')),
    amount_raw NUMERIC(78, 0) NOT NULL,
    at         TEXT COLLATE "C" NOT NULL,
    CONSTRAINT ledger_entries_once UNIQUE (trade_id, movement, signature, mint, account, side)
  );
  CREATE INDEX ledger_by_trade ON ledger_entries (trade_id, entry_id);
  `,
  // Several instances over one database. A run answers HTTP at its url and owns its trades while its lease lives
  // (lease_expires_at_ms, the database's clock; NULL for runs of earlier builds: never live). Every unclosed
  // trade names its owner, so the runtime's indexes lead with owner_run_id: each instance reads its own
  // share, and the orphans of a dead run are found through its id. Reservations are summed per output mint
  // across instances: open quotes (through quotes_open: they live seconds, so few are open) and unclosed
  // trades' holds (through an index on the mint).
  `
  ALTER TABLE runs ADD COLUMN url TEXT COLLATE "C";
  ALTER TABLE runs ADD COLUMN lease_expires_at_ms BIGINT;

  DROP INDEX trades_unclosed;
  DROP INDEX trades_wake;
  DROP INDEX trades_running;
  DROP INDEX trades_failing;
  CREATE INDEX trades_owned ON trades (owner_run_id, created_at, trade_id) WHERE NOT closed;
  CREATE INDEX trades_wake ON trades (owner_run_id, next_deadline) WHERE NOT closed AND next_deadline IS NOT NULL;
  CREATE INDEX trades_running ON trades (owner_run_id, trade_id) WHERE NOT closed AND running;
  CREATE INDEX trades_failing ON trades (owner_run_id, effect_attempts) WHERE NOT closed AND effect_attempts > 0;
  CREATE INDEX trades_by_owner ON trades (owner_run_id, created_at, trade_id);

  CREATE INDEX trades_holding ON trades (hold_mint, hold_until_ms) INCLUDE (hold_raw)
    WHERE NOT closed AND hold_mint IS NOT NULL;
  `,
  // Reservations kept as running sums per output mint and second of expiry: every quote adds its output to
  // the bucket of the second its reservation ends in (rounded up), a trade's hold likewise, and whatever
  // ends or moves one early takes it back out (see reservation-buckets.ts). A reservation check then sums one
  // mint's buckets after the current second (a few thousand rows at most, however many quotes and pending
  // trades there are) and reads the current second's reservations exactly from the quotes and holds
  // themselves (quotes_open, trades_holding), instead of summing every open quote and every holding trade,
  // which at 100,000 pending trades took 18 ms per RFQ under the mint's lock. Reservations that ended over
  // two minutes before the migration are left out.
  `
  CREATE TABLE reservation_buckets (
    mint     TEXT COLLATE "C" NOT NULL,
    until_s  BIGINT NOT NULL,
    raw      NUMERIC(78, 0) NOT NULL,
    PRIMARY KEY (mint, until_s)
  );
  INSERT INTO reservation_buckets (mint, until_s, raw)
  SELECT mint, until_s, sum(raw) FROM (
    SELECT output_mint AS mint, ceil(expires_at_ms / 1000.0)::bigint AS until_s, output_raw AS raw
    FROM quotes WHERE used_by_trade_id IS NULL AND expires_at_ms > ${PAST_MS}
    UNION ALL
    SELECT hold_mint, ceil(hold_until_ms / 1000.0)::bigint, hold_raw
    FROM trades WHERE NOT closed AND hold_mint IS NOT NULL AND hold_until_ms > ${PAST_MS}
  ) reservations
  GROUP BY mint, until_s;
  `,
  // Hedges (src/hedging/), as in SQLite's migration: one row per hedge swap, a sending one holding its signed
  // transaction, at most one in flight per asset across every instance, signatures never reused. Each
  // names its owner run like a trade; the in-flight ones are found by owner (hedges_owned), so a lost
  // instance's are taken over by another.
  `
  CREATE TABLE hedges (
    hedge_id                 TEXT COLLATE "C" PRIMARY KEY,
    trade_id                 TEXT COLLATE "C" NOT NULL REFERENCES trades (trade_id),
    run_id                   TEXT COLLATE "C" NOT NULL REFERENCES runs (run_id),
    owner_run_id             TEXT COLLATE "C" NOT NULL REFERENCES runs (run_id),
    asset                    TEXT COLLATE "C" NOT NULL,
    side                     TEXT COLLATE "C" NOT NULL CHECK (side IN ('sell', 'buy')),
    input_mint               TEXT COLLATE "C" NOT NULL,
    output_mint              TEXT COLLATE "C" NOT NULL,
    amount_in_raw            NUMERIC(78, 0) NOT NULL,
    quoted_out_raw           NUMERIC(78, 0) NOT NULL,
    min_out_raw              NUMERIC(78, 0) NOT NULL,
    mid_out_raw              NUMERIC(78, 0) NOT NULL,
    input_usd                TEXT COLLATE "C" NOT NULL,
    output_usd               TEXT COLLATE "C" NOT NULL,
    max_slippage_bps         INTEGER NOT NULL,
    status                   TEXT COLLATE "C" NOT NULL
                               CHECK (status IN ('sending', 'requoting', 'landed', 'failed', 'cancelled')),
    attempt                  INTEGER NOT NULL,
    signature                TEXT COLLATE "C" CONSTRAINT hedges_signature_key UNIQUE,
    transaction_base64       TEXT COLLATE "C",
    last_valid_block_height  BIGINT,
    expired_signatures       TEXT COLLATE "C" NOT NULL,
    landed_in_raw            NUMERIC(78, 0),
    landed_out_raw           NUMERIC(78, 0),
    fee_lamports             NUMERIC(78, 0),
    slot                     BIGINT,
    error                    TEXT COLLATE "C",
    created_at               TEXT COLLATE "C" NOT NULL,
    updated_at               TEXT COLLATE "C" NOT NULL,
    landed_at                TEXT COLLATE "C",
    CONSTRAINT hedges_sending_signed CHECK (
      status <> 'sending' OR (signature IS NOT NULL AND transaction_base64 IS NOT NULL
                              AND last_valid_block_height IS NOT NULL))
  );
  CREATE UNIQUE INDEX hedges_in_flight ON hedges (asset) WHERE status IN ('sending', 'requoting');
  CREATE INDEX hedges_owned ON hedges (owner_run_id, created_at) WHERE status IN ('sending', 'requoting');
  CREATE INDEX hedges_by_trade ON hedges (trade_id, created_at);
  CREATE INDEX hedges_by_created ON hedges (created_at, hedge_id);
  `,
  // A quote that sources part of its output just in time keeps its plan (JSON of SourcingPlan; NULL: none).
  `ALTER TABLE quotes ADD COLUMN sourcing TEXT COLLATE "C";`,
  // Each run's latest probe of whether the store takes writes (only while its disk is full: storage-full.ts).
  `CREATE TABLE store_probes (run_id TEXT COLLATE "C" PRIMARY KEY, at TEXT COLLATE "C" NOT NULL);`,
  // The desk's live settings (src/control/), as SQLite keeps them: the change log, and the overrides in
  // force, each naming the change that set it. A commit that changes them notifies the other instances.
  `
  CREATE TABLE desk_changes (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at              TEXT COLLATE "C" NOT NULL,
    actor           TEXT COLLATE "C" NOT NULL,
    run_id          TEXT COLLATE "C" NOT NULL REFERENCES runs (run_id),
    target          TEXT COLLATE "C" NOT NULL,
    field           TEXT COLLATE "C" NOT NULL,
    before_value    TEXT COLLATE "C" NOT NULL,
    after_value     TEXT COLLATE "C" NOT NULL,
    override_value  TEXT COLLATE "C"
  );
  CREATE TABLE desk_overrides (
    target      TEXT COLLATE "C" NOT NULL,
    field       TEXT COLLATE "C" NOT NULL,
    value       TEXT COLLATE "C" NOT NULL,
    change_seq  BIGINT NOT NULL REFERENCES desk_changes (seq),
    PRIMARY KEY (target, field)
  );
  `,
  // The maker's Gateway transfers (transfers.ts), as SQLite keeps them, the trades that minted before it
  // given theirs from their snapshots and events.
  `
  CREATE TABLE gateway_transfers (
    transfer_id          TEXT COLLATE "C" PRIMARY KEY,
    gateway_transfer_id  TEXT COLLATE "C" NOT NULL,
    trade_id             TEXT COLLATE "C" REFERENCES trades (trade_id),
    purpose              TEXT COLLATE "C" NOT NULL,
    source_domain        BIGINT NOT NULL,
    value_raw            NUMERIC(78, 0) NOT NULL,
    max_fee_raw          NUMERIC(78, 0) NOT NULL,
    fee_raw              NUMERIC(78, 0),
    status               TEXT COLLATE "C" NOT NULL CHECK (status IN ('attested', 'minted', 'burned', 'expired')),
    mint_signature       TEXT COLLATE "C",
    burn_tx              TEXT COLLATE "C",
    attested_at          TEXT COLLATE "C" NOT NULL,
    minted_at            TEXT COLLATE "C",
    burned_at            TEXT COLLATE "C",
    expired_at           TEXT COLLATE "C",
    CHECK (status <> 'minted' OR mint_signature IS NOT NULL),
    CHECK (status <> 'burned' OR burn_tx IS NOT NULL)
  );
  CREATE INDEX gateway_transfers_open ON gateway_transfers (attested_at, transfer_id)
    WHERE status IN ('attested', 'minted');
  CREATE INDEX gateway_transfers_by_trade ON gateway_transfers (trade_id, attested_at);
  CREATE INDEX gateway_transfers_by_attested ON gateway_transfers (attested_at, transfer_id);
  INSERT INTO gateway_transfers (transfer_id, gateway_transfer_id, trade_id, purpose, source_domain, value_raw,
                                 max_fee_raw, fee_raw, status, mint_signature, burn_tx, attested_at, minted_at,
                                 burned_at, expired_at)
  SELECT m.context #>> '{mintIntent,transferSpecHash}', m.context #>> '{mintIntent,attestation,transferId}',
         m.trade_id, 'trade_mint', (m.context #>> '{mintIntent,burnIntent,spec,sourceDomain}')::bigint,
         (m.context #>> '{mintIntent,valueRaw}')::numeric, (m.context #>> '{mintIntent,burnIntent,maxFee}')::numeric,
         (m.context #>> '{mintIntent,attestation,feeRaw}')::numeric,
         CASE WHEN mint.sig IS NULL THEN 'attested' WHEN burn.tx IS NULL THEN 'minted' ELSE 'burned' END,
         mint.sig, CASE WHEN mint.sig IS NOT NULL THEN burn.tx END,
         m.at, CASE WHEN mint.sig IS NOT NULL THEN m.at END, CASE WHEN mint.sig IS NOT NULL THEN burn.at END, NULL
  FROM (
    SELECT t.trade_id, t.updated_at AS at, (s.snapshot::json) -> 'context' AS context
    FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id
    WHERE s.snapshot LIKE '%"attestation":{%'
  ) m
  LEFT JOIN LATERAL (
    SELECT g ->> 'signature' AS sig FROM json_array_elements(m.context -> 'signatures') g
    WHERE g ->> 'kind' = 'gateway_mint' LIMIT 1
  ) mint ON true
  LEFT JOIN LATERAL (
    SELECT e.payload::json ->> 'signature' AS tx, e.at FROM trade_events e
    WHERE e.trade_id = m.trade_id AND e.type = 'GATEWAY_BURN' ORDER BY e.seq LIMIT 1
  ) burn ON true
  WHERE m.context #>> '{mintIntent,attestation,transferId}' IS NOT NULL
  ON CONFLICT (transfer_id) DO NOTHING;
  `,
];

/**
 * The key of the advisory lock that serializes migrations across processes: instances starting at once
 * over one database queue on it, and each migration is applied exactly once. (0x7266715f6d6967: 'rfq_mig'
 * in ASCII; PostgreSQL 15 reads no hex literals.)
 */
const MIGRATION_LOCK = '32200784463358311';

/**
 * Brings the database to this build's schema in one transaction holding the migration lock (released by
 * its commit or rollback, so a crashed process never leaves it taken). Throws, changing nothing, when the
 * database is newer than this build.
 */
export async function migratePostgres(client: pg.ClientBase, location: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    // Taken under the lock, so no two processes race to create it; each statement then reads what the
    // lock's previous holder committed (READ COMMITTED takes a snapshot per statement).
    await client.query(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version     INTEGER PRIMARY KEY,
        applied_at  TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    const { rows } = await client.query<{ current: number }>(
      'SELECT coalesce(max(version), 0)::integer AS current FROM schema_migrations',
    );
    const current = rows[0]?.current ?? 0;
    if (current > POSTGRES_MIGRATIONS.length) {
      throw new Error(
        `store ${location} has schema version ${current}, newer than this build knows (${POSTGRES_MIGRATIONS.length})`,
      );
    }
    for (let version = current; version < POSTGRES_MIGRATIONS.length; version++) {
      await client.query(POSTGRES_MIGRATIONS[version] as string);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version + 1]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
