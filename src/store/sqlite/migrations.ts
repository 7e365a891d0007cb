// Schema migrations, applied in order and recorded in SQLite's user_version. Append; never edit a shipped one.
// Amounts are TEXT holding exact integers (int64 and beyond), times are ISO strings or unix seconds as named.
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE runs (
    run_id      TEXT PRIMARY KEY,
    version     TEXT NOT NULL,
    started_at  TEXT NOT NULL,
    stopped_at  TEXT
  );
  CREATE TABLE quotes (
    quote_id          TEXT PRIMARY KEY,
    run_id            TEXT NOT NULL REFERENCES runs(run_id),
    taker_wallet      TEXT NOT NULL,
    input_mint        TEXT NOT NULL,
    output_mint       TEXT NOT NULL,
    input_raw         TEXT NOT NULL,
    output_raw        TEXT NOT NULL,
    spread_bps        INTEGER NOT NULL,
    input_usd         TEXT NOT NULL,
    output_usd        TEXT NOT NULL,
    created_at        TEXT NOT NULL,
    expires_at_ms     INTEGER NOT NULL,
    htlc_expires_at_ms INTEGER NOT NULL,
    risk_checks       TEXT NOT NULL,
    used_by_trade_id  TEXT
  );
  CREATE INDEX quotes_open ON quotes (expires_at_ms) WHERE used_by_trade_id IS NULL;
  `,
  `
  CREATE TABLE trades (
    trade_id         TEXT PRIMARY KEY,
    quote_id         TEXT NOT NULL UNIQUE REFERENCES quotes(quote_id),
    run_id           TEXT NOT NULL REFERENCES runs(run_id),
    owner_run_id     TEXT NOT NULL REFERENCES runs(run_id),
    taker_wallet     TEXT NOT NULL,
    secret_hash      TEXT NOT NULL UNIQUE,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    status           TEXT NOT NULL,
    substate         TEXT NOT NULL,
    closed           INTEGER NOT NULL DEFAULT 0,
    next_deadline    INTEGER,
    machine_version  INTEGER NOT NULL,
    snapshot         TEXT NOT NULL,
    adoption_error   TEXT
  );
  CREATE INDEX trades_open ON trades (closed, next_deadline);
  CREATE INDEX trades_by_wallet ON trades (taker_wallet, created_at, trade_id);
  CREATE INDEX trades_by_created ON trades (created_at, trade_id);
  CREATE TABLE trade_events (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    trade_id   TEXT NOT NULL REFERENCES trades(trade_id),
    run_id     TEXT NOT NULL REFERENCES runs(run_id),
    at         TEXT NOT NULL,
    type       TEXT NOT NULL,
    status     TEXT NOT NULL,
    substate   TEXT NOT NULL,
    payload    TEXT NOT NULL
  );
  CREATE INDEX trade_events_by_trade ON trade_events (trade_id, seq);
  CREATE TABLE ledger_entries (
    entry_id   INTEGER PRIMARY KEY AUTOINCREMENT,
    trade_id   TEXT NOT NULL REFERENCES trades(trade_id),
    movement   TEXT NOT NULL,
    signature  TEXT NOT NULL,
    mint       TEXT NOT NULL,
    account    TEXT NOT NULL,
    side       TEXT NOT NULL CHECK (side IN ('debit', 'credit')),
    amount_raw TEXT NOT NULL,
    at         TEXT NOT NULL,
    UNIQUE (trade_id, movement, signature, mint, account, side)
  );
  CREATE INDEX ledger_by_trade ON ledger_entries (trade_id, entry_id);
  `,
  // Ownership: the running run owns every unclosed trade that is not marked unadoptable (a new run adopts
  // them all by starting); owner_run_id is the run that last wrote the trade (for a closed trade, the run
  // that owned it then).
  // The rest record of a virtual actor: what the runtime needs of a trade without loading its snapshot —
  // the escrows it waits on and what it last saw of them, its wake time (next_deadline), the output it
  // holds in the reservation book, whether an effect is in flight, and how often its effect failed. The
  // snapshot moves to a table of its own, so the rows the runtime scans and updates stay small.
  `
  ALTER TABLE trades ADD COLUMN taker_escrow TEXT NOT NULL DEFAULT '';
  ALTER TABLE trades ADD COLUMN maker_escrow TEXT NOT NULL DEFAULT '';
  ALTER TABLE trades ADD COLUMN watch INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE trades ADD COLUMN seen TEXT NOT NULL DEFAULT '';
  ALTER TABLE trades ADD COLUMN hold_mint TEXT;
  ALTER TABLE trades ADD COLUMN hold_raw TEXT;
  ALTER TABLE trades ADD COLUMN hold_until_ms INTEGER;
  ALTER TABLE trades ADD COLUMN running INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE trades ADD COLUMN effect_attempts INTEGER NOT NULL DEFAULT 0;
  UPDATE trades SET
    taker_escrow = json_extract(snapshot, '$.context.takerEscrow'),
    maker_escrow = json_extract(snapshot, '$.context.makerEscrow'),
    watch = CASE WHEN closed = 1 THEN 0 WHEN status IN ('pending', 'failed') THEN 1 ELSE 3 END,
    running = CASE WHEN closed = 0 AND EXISTS (
      SELECT 1 FROM json_each(snapshot, '$.children') WHERE json_extract(value, '$.snapshot.status') = 'active'
    ) THEN 1 ELSE 0 END;
  UPDATE trades SET
    hold_mint = json_extract(snapshot, '$.context.outputMint'),
    hold_raw = json_extract(snapshot, '$.context.outputAmountRaw'),
    hold_until_ms = 1000 * CASE status
      WHEN 'pending' THEN json_extract(snapshot, '$.context.lockDeadline')
      ELSE json_extract(snapshot, '$.context.takerExpiry') END
  WHERE closed = 0 AND status IN ('pending', 'initiated') AND NOT EXISTS (
    SELECT 1 FROM json_each(snapshot, '$.context.signatures') WHERE json_extract(value, '$.kind') = 'maker_lock'
  );
  CREATE TABLE trade_snapshots (
    trade_id         TEXT PRIMARY KEY REFERENCES trades(trade_id),
    machine_version  INTEGER NOT NULL,
    snapshot         TEXT NOT NULL
  );
  INSERT INTO trade_snapshots (trade_id, machine_version, snapshot)
    SELECT trade_id, machine_version, snapshot FROM trades;
  DROP INDEX trades_open;
  ALTER TABLE trades DROP COLUMN snapshot;
  ALTER TABLE trades DROP COLUMN machine_version;
  CREATE INDEX trades_unclosed ON trades (status, substate) WHERE closed = 0;
  CREATE INDEX trades_wake ON trades (next_deadline) WHERE closed = 0 AND next_deadline IS NOT NULL;
  CREATE INDEX trades_running ON trades (trade_id) WHERE closed = 0 AND running = 1;
  CREATE INDEX trades_unadoptable ON trades (trade_id) WHERE closed = 0 AND adoption_error IS NOT NULL;
  CREATE INDEX trades_live_by_wallet ON trades (taker_wallet) WHERE status IN ('pending', 'initiated');
  CREATE INDEX trades_failing ON trades (effect_attempts) WHERE closed = 0 AND effect_attempts > 0;
  `,
  // The prices a quote was priced from (JSON of a RecordedPrice: source, account, feed id, price, conf,
  // exponent, EMA, publish time); NULL for quotes stored before. The trade keeps them through its quote.
  `
  ALTER TABLE quotes ADD COLUMN input_price TEXT;
  ALTER TABLE quotes ADD COLUMN output_price TEXT;
  `,
  // Where a run answers HTTP, so another instance can forward to it. SQLite serves one instance: no leases, ownership stays implicit.
  `
  ALTER TABLE runs ADD COLUMN url TEXT;
  `,
  // Hedges (src/hedging/): one row per hedge swap, written before anything is sent and again before each
  // swap of it goes out. A hedge that is sending holds its signed transaction (a crash resumes those very
  // bytes); at most one hedge per asset is in flight; signatures are never reused.
  `
  CREATE TABLE hedges (
    hedge_id                 TEXT PRIMARY KEY,
    trade_id                 TEXT NOT NULL REFERENCES trades(trade_id),
    run_id                   TEXT NOT NULL REFERENCES runs(run_id),
    owner_run_id             TEXT NOT NULL REFERENCES runs(run_id),
    asset                    TEXT NOT NULL,
    side                     TEXT NOT NULL CHECK (side IN ('sell', 'buy')),
    input_mint               TEXT NOT NULL,
    output_mint              TEXT NOT NULL,
    amount_in_raw            TEXT NOT NULL,
    quoted_out_raw           TEXT NOT NULL,
    min_out_raw              TEXT NOT NULL,
    mid_out_raw              TEXT NOT NULL,
    input_usd                TEXT NOT NULL,
    output_usd               TEXT NOT NULL,
    max_slippage_bps         INTEGER NOT NULL,
    status                   TEXT NOT NULL
                               CHECK (status IN ('sending', 'requoting', 'landed', 'failed', 'cancelled')),
    attempt                  INTEGER NOT NULL,
    signature                TEXT UNIQUE,
    transaction_base64       TEXT,
    last_valid_block_height  INTEGER,
    expired_signatures       TEXT NOT NULL,
    landed_in_raw            TEXT,
    landed_out_raw           TEXT,
    fee_lamports             TEXT,
    slot                     INTEGER,
    error                    TEXT,
    created_at               TEXT NOT NULL,
    updated_at               TEXT NOT NULL,
    landed_at                TEXT,
    CHECK (status <> 'sending' OR (signature IS NOT NULL AND transaction_base64 IS NOT NULL
                                   AND last_valid_block_height IS NOT NULL))
  );
  CREATE UNIQUE INDEX hedges_in_flight ON hedges (asset) WHERE status IN ('sending', 'requoting');
  CREATE INDEX hedges_by_trade ON hedges (trade_id, created_at);
  CREATE INDEX hedges_by_created ON hedges (created_at, hedge_id);
  `,
  // A quote that sources part of its output just in time keeps its plan (JSON of SourcingPlan; NULL: none).
  `ALTER TABLE quotes ADD COLUMN sourcing TEXT;`,
  // Each run's latest probe of whether the store takes writes (only while its disk is full: storage-full.ts).
  `CREATE TABLE store_probes (run_id TEXT PRIMARY KEY, at TEXT NOT NULL);`,
  // The desk's live settings (src/control/): every change an operator made, in order, and the overrides in
  // force over the config file, one per (target, field), each naming the change that set it. Values are JSON.
  `
  CREATE TABLE desk_changes (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    at              TEXT NOT NULL,
    actor           TEXT NOT NULL,
    run_id          TEXT NOT NULL REFERENCES runs(run_id),
    target          TEXT NOT NULL,
    field           TEXT NOT NULL,
    before_value    TEXT NOT NULL,
    after_value     TEXT NOT NULL,
    override_value  TEXT
  );
  CREATE TABLE desk_overrides (
    target      TEXT NOT NULL,
    field       TEXT NOT NULL,
    value       TEXT NOT NULL,
    change_seq  INTEGER NOT NULL REFERENCES desk_changes(seq),
    PRIMARY KEY (target, field)
  );
  `,
  // The maker's Gateway transfers (transfers.ts): one row per transfer spec hash, its trade (none for the
  // maker's own), and each step's time. Open ones (attested, minted) are what the burn follower reads. The
  // trades that minted before it get theirs from their snapshots (attested, minted) and events (a burn seen),
  // their times the trade's last write's: the one scan of the snapshots this takes runs once.
  `
  CREATE TABLE gateway_transfers (
    transfer_id          TEXT PRIMARY KEY,
    gateway_transfer_id  TEXT NOT NULL,
    trade_id             TEXT REFERENCES trades(trade_id),
    purpose              TEXT NOT NULL,
    source_domain        INTEGER NOT NULL,
    value_raw            TEXT NOT NULL,
    max_fee_raw          TEXT NOT NULL,
    fee_raw              TEXT,
    status               TEXT NOT NULL CHECK (status IN ('attested', 'minted', 'burned', 'expired')),
    mint_signature       TEXT,
    burn_tx              TEXT,
    attested_at          TEXT NOT NULL,
    minted_at            TEXT,
    burned_at            TEXT,
    expired_at           TEXT,
    CHECK (status <> 'minted' OR mint_signature IS NOT NULL),
    CHECK (status <> 'burned' OR burn_tx IS NOT NULL)
  );
  CREATE INDEX gateway_transfers_open ON gateway_transfers (attested_at, transfer_id)
    WHERE status IN ('attested', 'minted');
  CREATE INDEX gateway_transfers_by_trade ON gateway_transfers (trade_id, attested_at);
  CREATE INDEX gateway_transfers_by_attested ON gateway_transfers (attested_at, transfer_id);
  INSERT OR IGNORE INTO gateway_transfers (transfer_id, gateway_transfer_id, trade_id, purpose, source_domain,
                                           value_raw, max_fee_raw, fee_raw, status, mint_signature, burn_tx,
                                           attested_at, minted_at, burned_at, expired_at)
  SELECT spec_hash, gateway_id, trade_id, 'trade_mint', source_domain, value_raw, max_fee, fee,
         CASE WHEN mint_sig IS NULL THEN 'attested' WHEN burn_tx IS NULL THEN 'minted' ELSE 'burned' END,
         mint_sig, CASE WHEN mint_sig IS NOT NULL THEN burn_tx END,
         at, CASE WHEN mint_sig IS NOT NULL THEN at END, CASE WHEN mint_sig IS NOT NULL THEN burned_at END, NULL
  FROM (
    SELECT m.*,
           (SELECT json_extract(e.payload, '$.signature') FROM trade_events e
            WHERE e.trade_id = m.trade_id AND e.type = 'GATEWAY_BURN' ORDER BY e.seq LIMIT 1) AS burn_tx,
           (SELECT e.at FROM trade_events e
            WHERE e.trade_id = m.trade_id AND e.type = 'GATEWAY_BURN' ORDER BY e.seq LIMIT 1) AS burned_at
    FROM (
      SELECT t.trade_id, t.updated_at AS at,
             json_extract(s.snapshot, '$.context.mintIntent.transferSpecHash') AS spec_hash,
             json_extract(s.snapshot, '$.context.mintIntent.attestation.transferId') AS gateway_id,
             json_extract(s.snapshot, '$.context.mintIntent.burnIntent.spec.sourceDomain') AS source_domain,
             json_extract(s.snapshot, '$.context.mintIntent.valueRaw') AS value_raw,
             json_extract(s.snapshot, '$.context.mintIntent.burnIntent.maxFee') AS max_fee,
             json_extract(s.snapshot, '$.context.mintIntent.attestation.feeRaw') AS fee,
             (SELECT json_extract(g.value, '$.signature') FROM json_each(s.snapshot, '$.context.signatures') g
              WHERE json_extract(g.value, '$.kind') = 'gateway_mint') AS mint_sig
      FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id
      WHERE s.snapshot LIKE '%"attestation":{%'
    ) m
    WHERE m.gateway_id IS NOT NULL
  );
  `,
];
