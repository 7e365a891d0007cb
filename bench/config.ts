// The service's config for a bench: config/default.json with the limits raised that would otherwise be
// what gets measured (per-IP rate limit, open quotes per wallet, the unfunded holds one client address may
// keep), quotes that live long enough to be settled later, and a lock window long enough that pending
// trades stay pending for the whole run.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_CONFIG_PATH } from '../src/config/index.ts';

type Section = Record<string, unknown>;
export type ConfigDocument = Record<string, unknown> & {
  http: Section;
  risk: Section;
  quotes: Section;
  settlement: Section;
  chain: Section;
};

export function benchConfigDocument(): ConfigDocument {
  const doc = JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')) as ConfigDocument;
  doc.http.rate_limit_per_minute = 1_000_000_000;
  doc.risk.max_open_per_wallet = 1_000_000_000;
  // Every RFQ comes from one client address: its share of unfunded holds would be what gets measured.
  doc.reservations = { client_share_bps: 10_000, wallet_share_bps: 10_000, unfunded_share_bps: 10_000 };
  doc.quotes.default_expiry_seconds = 300;
  doc.quotes.max_expiry_seconds = 300;
  // Also above the floors a real cluster needs, so the same timings serve chain.kind = "rpc".
  doc.settlement.lock_window_seconds = 3_600;
  doc.settlement.taker_timelock_seconds = 7_200;
  return doc;
}

/** Writes the bench config (changed by `change`) into `dir` and returns its path, for CONFIG. */
export function writeBenchConfig(
  dir: string,
  name = 'bench-config.json',
  change: (doc: ConfigDocument) => void = () => {},
): string {
  const doc = benchConfigDocument();
  change(doc);
  const path = join(dir, name);
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`);
  return path;
}
