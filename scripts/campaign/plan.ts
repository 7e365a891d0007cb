// What a campaign does, decided up front from its profile and seed: how many takers of each kind, when
// each outage and each kill -9 happens, how patient the clock is. The timeline is a pure function of
// (profile, seed, store), so a run can be told again with the same seed.
import { type FaultProfile, type ProfileName, seededRandom } from '../../src/dev-chain/faults/index.ts';

export const STORE_MODES = ['sqlite', 'postgres'] as const;
export type StoreMode = (typeof STORE_MODES)[number];

/**
 * Who the takers are. `honest`: through the service all the way (POST /lock with the signed bytes, POST
 * /redeem). `self_redeem_direct` / `self_redeem_faulty`: the wallet sends its own lock and redeems the maker
 * escrow on chain itself, straight to the chain or through the same faults the service meets; should the
 * maker then miss its redeem, it refunds its own escrow after expiry (the attack a missed redeem invites).
 * `walk_away`: locks and never comes back. `self_refund`: locks, never redeems, and refunds its escrow
 * itself once it expired. `abandon`: abandons before locking. `no_show`: never locks.
 */
export const TAKER_KINDS = [
  'honest',
  'self_redeem_direct',
  'self_redeem_faulty',
  'walk_away',
  'self_refund',
  'abandon',
  'no_show',
] as const;
export type TakerKind = (typeof TAKER_KINDS)[number];

const WEIGHTED_KINDS: readonly TakerKind[] = [
  'honest',
  'honest',
  'honest',
  'walk_away',
  'self_refund',
  'self_redeem_direct',
  'self_redeem_direct',
  'self_redeem_faulty',
  'abandon',
  'no_show',
];

/** How each kind's trade must end. */
export const EXPECTED_STATUS: Record<TakerKind, 'redeemed' | 'refunded' | 'failed'> = {
  honest: 'redeemed',
  self_redeem_direct: 'redeemed',
  self_redeem_faulty: 'redeemed',
  walk_away: 'refunded',
  self_refund: 'refunded',
  abandon: 'failed',
  no_show: 'failed',
};

export type CampaignProfile = 'short' | 'full';

export interface StorePlan {
  store: StoreMode;
  /** Service instances: 1 on SQLite, 2 over PostgreSQL. */
  instances: number;
  takers: { kind: TakerKind; startAtMs: number }[];
  /** `refuse`: connections reset at once; `hang`: requests held until the outage ends. */
  outages: { atMs: number; seconds: number; mode: 'refuse' | 'hang' }[];
  /** Each kill -9: when, which instance, and how long until it is started again. */
  kills: { atMs: number; instance: number; restartAfterMs: number; duringOutage: boolean }[];
}

export interface Plan {
  profile: CampaignProfile;
  seed: string;
  /** Wall time over which takers start, outages and kills happen. */
  activeMs: number;
  /** Bounds of the drain (takers finish, faults on) and settle (faults off) phases. */
  drainMs: number;
  settleMs: number;
  /**
   * Wall seconds a maker obligation may stay open (service up, chain reachable) before the clock is moved
   * past it anyway: a service that was up that long and did not act is the finding, not the warp.
   */
  reactionSeconds: number;
  /** Largest single clock warp (≤ the landing margin: what a service that is up reacts within). */
  warpStepSeconds: number;
  /** Wall time between warps. */
  warpEveryMs: number;
  /** The proxy's faults: a named mix (harsh unless told), outages being the campaign's own, from the timeline. */
  faultProfile: ProfileName;
  faults: Partial<FaultProfile>;
  stores: StorePlan[];
}

export interface PlanOptions {
  profile: CampaignProfile;
  seed: string;
  stores: readonly StoreMode[];
  /** At least this many kills per store (default 6 full, 2 short). */
  kills?: number;
  /** Takers per store (default: 230 full, 18 short). */
  takers?: number;
  /** The fault mix between outages (default harsh; none or mild for a control run). */
  faultProfile?: ProfileName;
}

interface Shape {
  activeMs: number;
  drainMs: number;
  settleMs: number;
  takers: number;
  /** Takers start within this share of the active phase. */
  takerSpread: number;
  kills: number;
  /** Kills not placed in an outage fall within these shares of the active phase. */
  killWindow: [number, number];
  outages: number;
  /** Outages fall within these shares of the active phase. */
  outageWindow: [number, number];
  outageSeconds: number;
  reactionSeconds: number;
  warpEveryMs: number;
}

const SHAPES: Record<CampaignProfile, Shape> = {
  // Trades open (some just after the first kill); a kill while they run; then the outage, with the last
  // kill in it: the service comes back while the chain is unreachable, with trades in every state.
  short: {
    activeMs: 50_000,
    drainMs: 50_000,
    settleMs: 35_000,
    takers: 18,
    takerSpread: 0.5,
    kills: 2,
    killWindow: [0.35, 0.5],
    outages: 1,
    outageWindow: [0.55, 0.95],
    outageSeconds: 20,
    reactionSeconds: 45,
    warpEveryMs: 1_000,
  },
  full: {
    activeMs: 600_000,
    drainMs: 240_000,
    settleMs: 180_000,
    takers: 230,
    takerSpread: 0.85,
    kills: 6,
    killWindow: [0.05, 0.9],
    outages: 5,
    outageWindow: [0.15, 0.95],
    outageSeconds: 40,
    reactionSeconds: 90,
    warpEveryMs: 1_500,
  },
};

/** Timed outages off: the campaign's outages are on its timeline, so kills can be placed in them. */
const HARSH_WITHOUT_TIMED_OUTAGES: Partial<FaultProfile> = {
  outageEveryMinSeconds: null,
  outageEveryMaxSeconds: null,
};

export function makePlan(options: PlanOptions): Plan {
  const shape = SHAPES[options.profile];
  const kills = options.kills ?? shape.kills;
  const takers = options.takers ?? shape.takers;
  return {
    profile: options.profile,
    seed: options.seed,
    activeMs: shape.activeMs,
    drainMs: shape.drainMs,
    settleMs: shape.settleMs,
    reactionSeconds: shape.reactionSeconds,
    warpStepSeconds: 20,
    warpEveryMs: shape.warpEveryMs,
    faultProfile: options.faultProfile ?? 'harsh',
    faults: HARSH_WITHOUT_TIMED_OUTAGES,
    stores: options.stores.map((store) => storePlan(store, options.seed, shape, takers, kills)),
  };
}

function storePlan(
  store: StoreMode,
  seed: string,
  shape: Shape,
  takerCount: number,
  killCount: number,
): StorePlan {
  const random = seededRandom(seed, `campaign:${store}`);
  const instances = store === 'postgres' ? 2 : 1;
  const active = shape.activeMs;
  const at = (share: number) => Math.floor(active * share);

  // Every kind at least once, then the rest drawn, the kinds that hand their lock to the service and
  // that redeem oftener: they are what the service owes the most to.
  const kinds: TakerKind[] = [...TAKER_KINDS];
  while (kinds.length < takerCount) kinds.push(random.pick(WEIGHTED_KINDS));
  const takers = kinds
    .map((kind) => ({ kind, startAtMs: random.between(0, at(shape.takerSpread)) }))
    .sort((a, b) => a.startAtMs - b.startAtMs);

  // Outages in equal slots of their window, each placed at random in its slot.
  const outages: StorePlan['outages'] = [];
  const [from, to] = shape.outageWindow;
  const slot = Math.floor((at(to) - at(from)) / shape.outages);
  for (let i = 0; i < shape.outages; i++) {
    const room = Math.max(0, slot - shape.outageSeconds * 1000);
    outages.push({
      atMs: at(from) + i * slot + random.between(0, room),
      seconds: shape.outageSeconds,
      // The last one refuses: a service restarted in it gets its answer (none) at once and comes up while
      // the chain is still unreachable, rather than waiting the outage out in its start.
      mode: i === shape.outages - 1 ? 'refuse' : random.pick(['refuse', 'hang'] as const),
    });
  }

  // The last kill comes during the last outage and its instance starts again before the outage ends: a
  // service that comes back while the chain is unreachable, and is not restarted again afterwards. One
  // more during the first outage when there are enough kills; the rest anywhere in the kill window.
  const kills: StorePlan['kills'] = [];
  // Early in the outage and back soon: the start (which fails fast on a refusing chain) is over well
  // before the outage is.
  const inOutage = (o: StorePlan['outages'][number]) => ({
    atMs: o.atMs + random.between(2_000, 4_000),
    instance: random.between(0, instances - 1),
    restartAfterMs: random.between(1_000, 3_000),
    duringOutage: true,
  });
  const last = outages.at(-1);
  if (last && killCount > 0) kills.push(inOutage(last));
  const first = outages[0];
  if (killCount >= 3 && first && first !== last) kills.push(inOutage(first));
  const latest = Math.min(at(shape.killWindow[1]), (last?.atMs ?? active) - 3_000);
  while (kills.length < killCount) {
    const killAt = random.between(at(shape.killWindow[0]), latest);
    const during = outages.some((o) => killAt >= o.atMs && killAt < o.atMs + o.seconds * 1000);
    kills.push({
      atMs: killAt,
      instance: random.between(0, instances - 1),
      restartAfterMs: random.between(200, 3_000),
      duringOutage: during,
    });
  }
  kills.sort((a, b) => a.atMs - b.atMs);
  return { store, instances, takers, outages, kills };
}
