// Shared by the HTTP property suites: one real service per file, a read-only view of its SQLite store for
// "nothing changed" checks, the strict error-envelope check, and drivers that take trades into each state
// over HTTP only (with a real taker keypair on the embedded chain).
import Database from 'better-sqlite3';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { ERROR_CODES } from '../../src/http/errors.ts';
import { type ConfigDocument, startService, type TestService } from '../support/service.ts';
import { newSecret, type Secret, signAsWallet, Taker } from '../support/taker.ts';

/** `npm run test:deep` sets DEEP: every property runs ten times as many cases. */
export const DEEP = Boolean(process.env.DEEP);
export const runs = (base: number): number => (DEEP ? base * 10 : base);

/** The service under test: real store and embedded chain, fast polling, a short bounded lock wait. */
export function startPropertyService(change: (doc: ConfigDocument) => void = () => {}): Promise<TestService> {
  return startService(
    (doc) => {
      // Fuzzing sends thousands of requests from one "IP": the limiter would answer 429 to most of them.
      doc.http.rate_limit_per_minute = 1_000_000;
      change(doc);
    },
    { pollIntervalMs: 50, lockWaitMs: 1500 },
  );
}

// ── The store, read-only ─────────────────────────────────────────────────────────────────────────

export interface StoreFingerprint {
  quotes: number;
  quotesUsed: number;
  trades: number;
  tradeEvents: number;
  ledgerEntries: number;
  runs: number;
  /** Every trade row (status, substate, snapshot, …) concatenated: any change to any trade shows. */
  tradeRows: string;
}

/** A second, read-only connection to the service's SQLite file (WAL: it sees every committed write). */
export class StoreProbe {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = new Database(path, { readonly: true, fileMustExist: true });
  }

  private count(sql: string): number {
    return (this.db.prepare(sql).get() as { n: number }).n;
  }

  /** Counts and every trade row; `except` leaves one trade's row, events and ledger entries out. */
  fingerprint(except = ''): StoreFingerprint {
    const rows = this.db
      .prepare(
        `SELECT t.trade_id, t.owner_run_id, t.updated_at, t.status, t.substate, t.closed, t.next_deadline,
                t.watch, t.hold_raw, t.hold_until_ms, t.running, t.effect_attempts, s.snapshot,
                t.adoption_error
         FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id
         WHERE t.trade_id <> ? ORDER BY t.trade_id`,
      )
      .all(except);
    const count = (sql: string) => (this.db.prepare(sql).get(except) as { n: number }).n;
    return {
      quotes: this.count('SELECT count(*) AS n FROM quotes'),
      quotesUsed: this.count('SELECT count(*) AS n FROM quotes WHERE used_by_trade_id IS NOT NULL'),
      trades: this.count('SELECT count(*) AS n FROM trades'),
      tradeEvents: count('SELECT count(*) AS n FROM trade_events WHERE trade_id <> ?'),
      ledgerEntries: count('SELECT count(*) AS n FROM ledger_entries WHERE trade_id <> ?'),
      runs: this.count('SELECT count(*) AS n FROM runs'),
      tradeRows: JSON.stringify(rows),
    };
  }

  /** One trade as stored: its row (snapshot JSON included) and how many events and ledger entries it has. */
  trade(tradeId: string): { row: unknown; events: number; ledger: number } {
    return {
      row: this.db
        .prepare(
          'SELECT t.*, s.snapshot FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id WHERE t.trade_id = ?',
        )
        .get(tradeId),
      events: (
        this.db.prepare('SELECT count(*) AS n FROM trade_events WHERE trade_id = ?').get(tradeId) as {
          n: number;
        }
      ).n,
      ledger: (
        this.db.prepare('SELECT count(*) AS n FROM ledger_entries WHERE trade_id = ?').get(tradeId) as {
          n: number;
        }
      ).n,
    };
  }

  eventTypes(tradeId: string): string[] {
    return (
      this.db.prepare('SELECT type FROM trade_events WHERE trade_id = ? ORDER BY seq').all(tradeId) as {
        type: string;
      }[]
    ).map((r) => r.type);
  }

  close(): void {
    this.db.close();
  }
}

// ── The error envelope ───────────────────────────────────────────────────────────────────────────

/**
 * Why a response is not the documented error envelope, or null when it is: exactly
 * {error:{code,message,details}}, code from ERROR_CODES, details all strings, and the status the code has.
 */
export function envelopeProblem(res: Pick<LightMyRequestResponse, 'statusCode' | 'body' | 'headers'>) {
  const type = String(res.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) return `content-type is '${type}'`;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return 'body is not JSON';
  }
  if (!isPlainObject(body) || !sameKeys(body, ['error'])) return 'top level is not exactly {error}';
  const error = body.error;
  if (!isPlainObject(error) || !sameKeys(error, ['code', 'details', 'message']))
    return 'error is not exactly {code,message,details}';
  const { code, message, details } = error;
  if (typeof code !== 'string' || !Object.hasOwn(ERROR_CODES, code)) return `unknown code '${String(code)}'`;
  if (typeof message !== 'string' || message.length === 0) return 'message is not a non-empty string';
  if (!Array.isArray(details) || !details.every((d) => typeof d === 'string'))
    return 'details is not a string[]';
  const status = ERROR_CODES[code as keyof typeof ERROR_CODES].status;
  if (status !== res.statusCode) return `code ${code} is ${status}, answered ${res.statusCode}`;
  return null;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const sameKeys = (o: Record<string, unknown>, keys: string[]) =>
  JSON.stringify(Object.keys(o).sort()) === JSON.stringify([...keys].sort());

/** The envelope with this exact code (and its status). */
export function expectError(res: LightMyRequestResponse, code: keyof typeof ERROR_CODES, label = ''): void {
  expect(envelopeProblem(res), `${label} ${res.statusCode} ${res.body}`).toBeNull();
  expect(res.json().error.code, `${label} ${res.body}`).toBe(code);
}

// ── Trades in each state, over HTTP ──────────────────────────────────────────────────────────────

/** A parsed JSON body. */
type Json = ReturnType<typeof JSON.parse>;

export interface DrivenTrade {
  taker: Taker;
  secret: Secret;
  quote: Json;
  settlement: Json;
  tradeId: string;
}

/** A funded taker with a quote and a started settlement: the trade is pending.awaitingLock. */
export async function pendingTrade(service: TestService, amount = '0.5'): Promise<DrivenTrade> {
  const taker = new Taker(service.app);
  await taker.airdrop('SOL', '3');
  const quote = await taker.quote('SOL', 'USDC', amount);
  const secret = newSecret();
  const settled = await taker.settle(quote.quote_id, secret);
  if (settled.statusCode !== 201) throw new Error(`settle: ${settled.statusCode} ${settled.body}`);
  const settlement = settled.json();
  return { taker, secret, quote, settlement, tradeId: settlement.trade_id };
}

/** The wallet-signed lock of a driven trade (from its settlement, or a given rebuilt lock). */
export const signedLock = (trade: DrivenTrade, unsigned?: string): string =>
  signAsWallet(unsigned ?? trade.settlement.taker_lock_transaction.transaction_base64, trade.taker.wallet);

/** Lock handed over, taker lock final, maker lock final: initiated.makerLocked. */
export async function makerLockedTrade(service: TestService): Promise<DrivenTrade> {
  const trade = await pendingTrade(service);
  const locked = await trade.taker.post(`/v1/trades/${trade.tradeId}/lock`, {
    transaction_base64: signedLock(trade),
  });
  if (locked.statusCode !== 202) throw new Error(`lock: ${locked.statusCode} ${locked.body}`);
  await trade.taker.waitFor(trade.tradeId, (t) => t.substate === 'initiated.makerLocked');
  return trade;
}

/** Seconds on the chain's clock. */
export async function chainNow(service: TestService): Promise<number> {
  return Number(await service.chain.now());
}

/** Moves the embedded chain's clock to just past an ISO instant (no-op if it is already past). */
export async function advancePast(service: TestService, iso: string, extraSeconds = 1): Promise<void> {
  const target = Math.ceil(Date.parse(iso) / 1000) + extraSeconds;
  const now = await chainNow(service);
  if (target > now) await service.devChain?.advanceClock(target - now);
}
