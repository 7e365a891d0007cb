// Readiness, part by part: each part is a small named check of what the service already knows — no chain
// call per probe (the chain's parts read the caches that follow it). A part answers in two registers: a
// reason in words, which anyone may read (GET /v1/health/ready), and a detail with the numbers (balances,
// counts, store kind, chain time), which only the operator reads (GET /v1/runtime/readiness).
import type { Config } from './config/index.ts';
import type { ReadinessPart } from './http/routes/index.ts';
import { storedExposure } from './metrics/index.ts';
import type { MintCheck } from './mint-check.ts';
import { feedStates, type PriceSource } from './quotes/index.ts';
import type { ChainReachability, MakerInventory, TradeRuntime } from './runtime/index.ts';
import type { StorageWatch, Store } from './store/index.ts';

/** The store part's reason while the disk is full: the error code commands answer then, too. */
export const STORAGE_FULL = 'storage_full';

export interface ReadinessVerdict {
  readonly ok: boolean;
  /** Public: words only, no balance, count, address or time. */
  readonly reason: string;
  /** The operator's: the numbers behind the reason. */
  readonly detail: string;
}

export interface ReadinessCheck {
  readonly name: string;
  check(): ReadinessVerdict | Promise<ReadinessVerdict>;
}

/** Every part, in order; a part whose check throws is a failing one, its message kept for the operator. */
export async function evaluateReadiness(checks: readonly ReadinessCheck[]): Promise<ReadinessPart[]> {
  return Promise.all(
    checks.map(async ({ name, check }) => {
      try {
        return { name, ...(await check()) };
      } catch (error) {
        return { name, ok: false, reason: 'check failed', detail: (error as Error).message };
      }
    }),
  );
}

const ok = (reason: string, detail: string): ReadinessVerdict => ({ ok: true, reason, detail });
const failing = (reason: string, detail: string): ReadinessVerdict => ({ ok: false, reason, detail });

/** A probe must answer even when the database does not. */
const STORE_PING_TIMEOUT_MS = 2_000;

/**
 * The store answers, and takes writes: while writes fail for lack of space (the StorageWatch) it fails with
 * the reason `storage_full`, and passes again by itself once a write succeeds after the watch's hold.
 */
export function storePart(store: Store, storage?: Pick<StorageWatch, 'full' | 'detail'>): ReadinessCheck {
  return {
    name: 'store',
    async check() {
      if (storage?.full) return failing(STORAGE_FULL, `${store.kind}: ${storage.detail}`);
      const answered = await Promise.race([
        store.ping().catch(() => false),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), STORE_PING_TIMEOUT_MS).unref()),
      ]);
      return answered
        ? ok('answering', `${store.kind} answers`)
        : failing('not answering', `${store.kind} did not answer a ping`);
    },
  };
}

export interface ChainKnowledge {
  /** When the maker's balances were last read (MakerInventory, refreshed on a timer). */
  lastReadAtMs: () => number | null;
  /** The runtime's last chain-clock reading, if younger than maxAgeMs. */
  clockReading: (maxAgeMs: number) => number | null;
  /** The chain counts as unreachable once nothing was read from it for this long. */
  staleAfterMs: number;
  /** Whether every chain call fails now (a confirmed outage), and since when. */
  reachability: Pick<ChainReachability, 'current' | 'unreachableSeconds'>;
  /** The stored snapshots of the trades past pending: where the maker's deadlines are. */
  settlingSnapshots: () => Promise<string[]>;
  /** Chain time estimated from the last reading; 0 while never read. */
  chainNow: () => number;
  nowMs?: () => number;
}

/**
 * The chain answers: no outage, and something was read from it lately by the timers that follow it anyway.
 * During an outage the operator's detail says how long it has lasted against the nearest maker deadline.
 */
export function chainPart(knowledge: ChainKnowledge): ReadinessCheck {
  const nowMs = knowledge.nowMs ?? Date.now;
  return {
    name: 'chain',
    async check() {
      if (knowledge.reachability.current !== null) {
        return failing('not answering', await outageReport(knowledge, nowMs));
      }
      const readAt = knowledge.lastReadAtMs();
      const clock = knowledge.clockReading(knowledge.staleAfterMs);
      const sinceMs = readAt === null ? null : nowMs() - readAt;
      const chainTime = clock === null ? '' : `; chain time ${new Date(clock * 1000).toISOString()}`;
      if ((sinceMs !== null && sinceMs <= knowledge.staleAfterMs) || clock !== null) {
        return ok('answering', `last read ${sinceMs === null ? 'never' : `${sinceMs} ms ago`}${chainTime}`);
      }
      return failing(
        'not answering',
        `nothing read from it for ${knowledge.staleAfterMs} ms (last balances read ${
          sinceMs === null ? 'never' : `${sinceMs} ms ago`
        })`,
      );
    },
  };
}

/**
 * What an operator needs during an outage: how long the chain has been unreachable, and how soon the
 * nearest maker deadline comes (a paid trade's taker expiry, before which the maker must redeem; else the
 * nearest maker escrow's expiry) — the margin the outage is eating into.
 */
async function outageReport(knowledge: ChainKnowledge, nowMs: () => number): Promise<string> {
  const down = `unreachable for ${Math.round(knowledge.reachability.unreachableSeconds)} s`;
  const { nearest } = storedExposure(await knowledge.settlingSnapshots());
  const deadline =
    nearest.taker_expiry !== null
      ? {
          at: nearest.taker_expiry,
          what: 'the nearest taker expiry of a paid trade (the maker must redeem before it)',
        }
      : nearest.maker_expiry !== null
        ? { at: nearest.maker_expiry, what: 'the nearest maker escrow expiry' }
        : null;
  if (deadline === null) return `${down}; no maker escrow holds funds`;
  // Not read since the start: the host's clock stands in (a cluster's drifts from it by seconds at most).
  const chainNow = knowledge.chainNow();
  const known = chainNow > 0;
  const left = deadline.at - (known ? chainNow : Math.floor(nowMs() / 1000));
  return `${down}; ${deadline.what} is in ${left} s${known ? '' : " by this host's clock"}`;
}

/** Until the maker's balances were read once, quotes cannot tell what it could sell: refused, not guessed at zero. */
export function makerBalancesPart(inventory: Pick<MakerInventory, 'read'>): ReadinessCheck {
  return {
    name: 'maker_balances',
    check: () =>
      inventory.read
        ? ok('read', 'every balance read')
        : failing('not read yet', 'never read from the chain'),
  };
}

export function runtimePart(runtime: Pick<TradeRuntime, 'ownership' | 'watcher' | 'host'>): ReadinessCheck {
  return {
    name: 'runtime',
    check() {
      const counts = `${runtime.watcher.size} trades watched, ${runtime.host.activeCount} actors active`;
      return runtime.ownership.live
        ? ok('running', counts)
        : failing('lease not held', `the run's lease is not live (lapsed or lost); ${counts}`);
    },
  };
}

/** The maker needs SOL for fees and rent of the escrows it opens. */
export function feeBalancePart(
  inventory: Pick<MakerInventory, 'feeLamports'>,
  minLamports: bigint,
): ReadinessCheck {
  return {
    name: 'maker_fee_balance',
    check() {
      const lamports = inventory.feeLamports;
      if (lamports === undefined) return failing('not read yet', 'the fee balance was never read');
      return lamports < minLamports
        ? failing('below the minimum', `${lamports} lamports, below ${minLamports}`)
        : ok('sufficient', `${lamports} lamports`);
    },
  };
}

/**
 * Stale (or wide, or deviating) feeds are reported, but only when no pair has two quotable prices is the
 * service not ready: settlement of running trades does not need prices, and the other pairs still quote.
 */
export function pricesPart(
  config: Pick<Config, 'priceSource' | 'risk' | 'assets' | 'pairs'>,
  prices: PriceSource,
  nowMs: () => number,
): ReadinessCheck {
  return {
    name: 'prices',
    check() {
      const states = feedStates(config, prices, nowMs());
      const fresh = new Set(states.filter((s) => s.status === 'fresh').map((s) => s.asset));
      const unfit = states.filter((s) => s.status !== 'fresh');
      // Which feeds are not fresh is public already (GET /v1/prices); the counts are the operator's.
      const reason =
        unfit.length === 0
          ? 'every feed fresh'
          : unfit.map((s) => `${s.asset.symbol} ${s.status}`).join(', ');
      const detail =
        unfit.length === 0
          ? `${states.length} feeds fresh`
          : `${reason}; ${fresh.size} of ${states.length} fresh`;
      if (!config.pairs.some((pair) => fresh.has(pair.input) && fresh.has(pair.output))) {
        return failing(`no pair can be quoted: ${reason}`, `no pair can be quoted: ${detail}`);
      }
      return ok(reason, detail);
    },
  };
}

export function mintsPart(mints: Pick<MintCheck, 'state'>, config: Pick<Config, 'assets'>): ReadinessCheck {
  return {
    name: 'mints',
    check() {
      const state = mints.state;
      if (state.kind === 'checked') return ok('checked', `${config.assets.list.length} mints checked`);
      if (state.kind === 'refused') return failing('a configured mint is unfit', state.error.message);
      const unchecked = config.assets.list.slice(state.next).map((asset) => asset.symbol);
      return failing(
        'not checked yet: the chain has not answered',
        `unchecked: ${unchecked.join(', ')} (${state.error})`,
      );
    },
  };
}
