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
];
