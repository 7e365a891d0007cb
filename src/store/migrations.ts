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
];
