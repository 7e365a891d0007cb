// Settlement timing: the global windows and timelocks checked against each other and, on a real cluster,
// against their floors; a pair's own bounds, which only ever shorten them; and the reservation budget,
// whose landing window lives inside the lock window.
import { ConfigError } from './fields.ts';
import type { ConfigFile } from './schema.ts';
import type { ChainConfig, Pair, ReservationBudget, SettlementTiming } from './types.ts';

/**
 * Floors that a real cluster needs: finality (~13 s), clock drift between chain and wall time, and a maker
 * restart must all fit inside the margins. The embedded chain accepts seconds, for tests and demos.
 */
export const REAL_CLUSTER_FLOORS: Readonly<Record<keyof SettlementTiming, number>> = {
  lockWindowSeconds: 60,
  takerTimelockSeconds: 600,
  makerTimelockSeconds: 180,
  safetyMarginSeconds: 180,
  minRedeemWindowSeconds: 90,
  landingMarginSeconds: 20,
};

export function resolveTiming(
  raw: ConfigFile['settlement'],
  chainKind: ChainConfig['kind'],
): SettlementTiming {
  const timing: SettlementTiming = {
    lockWindowSeconds: raw.lock_window_seconds,
    takerTimelockSeconds: raw.taker_timelock_seconds,
    makerTimelockSeconds: raw.maker_timelock_seconds,
    safetyMarginSeconds: raw.safety_margin_seconds,
    minRedeemWindowSeconds: raw.min_redeem_window_seconds,
    landingMarginSeconds: raw.landing_margin_seconds,
  };
  const field = (key: keyof SettlementTiming) =>
    `settlement.${key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
  if (chainKind === 'rpc') {
    for (const key of Object.keys(REAL_CLUSTER_FLOORS) as (keyof SettlementTiming)[]) {
      if (timing[key] < REAL_CLUSTER_FLOORS[key]) {
        throw new ConfigError(field(key), `must be at least ${REAL_CLUSTER_FLOORS[key]} s on a real cluster`);
      }
    }
  }
  if (timing.landingMarginSeconds >= timing.minRedeemWindowSeconds) {
    throw new ConfigError(field('landingMarginSeconds'), 'must be below min_redeem_window_seconds');
  }
  if (timing.makerTimelockSeconds < timing.minRedeemWindowSeconds) {
    throw new ConfigError(field('makerTimelockSeconds'), 'must be at least min_redeem_window_seconds');
  }
  // The latest maker lock comes at the end of the lock window; it must still leave the taker its redeem window.
  const latestMakerExpiry = timing.takerTimelockSeconds - timing.safetyMarginSeconds;
  if (latestMakerExpiry - timing.lockWindowSeconds < timing.minRedeemWindowSeconds) {
    throw new ConfigError(
      field('takerTimelockSeconds'),
      'must cover lock_window + safety_margin + min_redeem_window, or a maker lock could never be placed',
    );
  }
  return timing;
}

/**
 * A pair's quote lifetime and maker timelock: bounds that only ever shorten the global ones (which validation
 * already holds to the safety margin and the floors) — the shorter of the two applies — and a maker timelock
 * still long enough that the maker can lock at all (the taker keeps its minimum redeem window) and, on a
 * real cluster, above its floor.
 */
export function pairTiming(
  raw: ConfigFile['pairs'][number],
  field: string,
  quotes: { maxExpirySeconds: number },
  settlement: SettlementTiming,
  chainKind: ChainConfig['kind'],
): Pick<Pair, 'maxExpirySeconds' | 'makerTimelockSeconds'> {
  const timelock = raw.maker_timelock_seconds;
  if (timelock !== undefined) {
    const name = `${field}.maker_timelock_seconds`;
    if (timelock < settlement.minRedeemWindowSeconds) {
      throw new ConfigError(name, 'must be at least settlement.min_redeem_window_seconds');
    }
    if (chainKind === 'rpc' && timelock < REAL_CLUSTER_FLOORS.makerTimelockSeconds) {
      throw new ConfigError(
        name,
        `must be at least ${REAL_CLUSTER_FLOORS.makerTimelockSeconds} s on a real cluster`,
      );
    }
  }
  return {
    maxExpirySeconds: Math.min(raw.max_expiry_seconds ?? quotes.maxExpirySeconds, quotes.maxExpirySeconds),
    makerTimelockSeconds: Math.min(
      timelock ?? settlement.makerTimelockSeconds,
      settlement.makerTimelockSeconds,
    ),
  };
}

/** The reservation budget's defaults (config reservations); the landing window is at most the lock window. */
export const RESERVATION_DEFAULTS: ReservationBudget = {
  clientShareBps: 2500,
  walletShareBps: 1500,
  unfundedShareBps: 5000,
  lockLandingSeconds: 30,
};

export function resolveReservations(
  raw: ConfigFile['reservations'],
  settlement: SettlementTiming,
): ReservationBudget {
  return {
    clientShareBps: raw?.client_share_bps ?? RESERVATION_DEFAULTS.clientShareBps,
    walletShareBps: raw?.wallet_share_bps ?? RESERVATION_DEFAULTS.walletShareBps,
    unfundedShareBps: raw?.unfunded_share_bps ?? RESERVATION_DEFAULTS.unfundedShareBps,
    // Within the lock window, whose end releases a hold anyway (a few seconds' windows of tests and demos).
    lockLandingSeconds: Math.min(
      raw?.lock_landing_seconds ?? RESERVATION_DEFAULTS.lockLandingSeconds,
      settlement.lockWindowSeconds,
    ),
  };
}
