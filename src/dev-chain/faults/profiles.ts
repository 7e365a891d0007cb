// What the fault proxy does to traffic, as one flat set of knobs (each a rate or a range), and the named
// mixes of them. `harsh` is a cluster at its worst on a bad day: 50–800 ms on every request, a quarter of
// the sends swallowed, replies lost, rate limits, resets, every websocket cut every 25 s, reads served
// from lagging nodes, and a 40 s outage every two minutes or so.

export const OUTAGE_MODES = ['refuse', 'hang', 'mixed'] as const;
export type OutageMode = (typeof OUTAGE_MODES)[number];

export interface FaultProfile {
  /** Share of requests held before they are forwarded, each for [latencyMinMs, latencyMaxMs]. */
  latencyRate: number;
  latencyMinMs: number;
  latencyMaxMs: number;
  /** Share of sendTransaction calls answered with the transaction's own signature and never forwarded. */
  dropSendRate: number;
  /**
   * Share of requests forwarded (so they take effect) whose answer is lost: the connection reset, or,
   * for lostReplyHangShare of them, held unanswered for [lostReplyHangMinMs, lostReplyHangMaxMs] and then
   * reset, as a client's timeout would meet it.
   */
  lostReplyRate: number;
  lostReplyHangShare: number;
  lostReplyHangMinMs: number;
  lostReplyHangMaxMs: number;
  /** Share answered 429 Too Many Requests (Retry-After in [retryAfterMinSeconds, retryAfterMaxSeconds]). */
  http429Rate: number;
  retryAfterMinSeconds: number;
  retryAfterMaxSeconds: number;
  /** Share answered 503 Service Unavailable. */
  http503Rate: number;
  /** Share whose connection is reset before anything is forwarded. */
  resetRate: number;
  /**
   * Share of reads (get*, isBlockhashValid) answered by an earlier answer to the same request, from
   * [staleMinSlots, staleMaxSlots] slots ago, as a lagging node answers: an account "not found" that has
   * since been created, a signature still unknown. A request whose minContextSlot the old answer does not
   * reach gets the error a lagging node gives instead.
   */
  staleReadRate: number;
  staleMinSlots: number;
  staleMaxSlots: number;
  /**
   * Every wsCutEverySeconds each websocket is cut (both sides closed, subscriptions gone), or, for
   * wsMuteShare of them, muted: kept open and answering pings while its notifications are dropped, until
   * the next cut closes it. null: no cuts.
   */
  wsCutEverySeconds: number | null;
  wsMuteShare: number;
  /** Share of notifications dropped on any socket. */
  wsNotificationDropRate: number;
  /**
   * Timed outages: the next starts [outageEveryMinSeconds, outageEveryMaxSeconds] after the previous one
   * ended (or the proxy started), lasting [outageMinSeconds, outageMaxSeconds]. During one every request
   * is refused (its connection reset once read) or hangs until the outage ends (mode per outage when
   * `mixed`), and every websocket is closed and refused. null: only outages switched on by the control.
   */
  outageEveryMinSeconds: number | null;
  outageEveryMaxSeconds: number | null;
  outageMinSeconds: number;
  outageMaxSeconds: number;
  outageMode: OutageMode;
  /**
   * Timed clock warps (the loopback chain's dev_advanceClock): every warpEverySeconds the chain's clock
   * jumps warpSeconds. null: only warps asked for through the control.
   */
  warpEverySeconds: number | null;
  warpSeconds: number;
}

const NONE: FaultProfile = {
  latencyRate: 0,
  latencyMinMs: 0,
  latencyMaxMs: 0,
  dropSendRate: 0,
  lostReplyRate: 0,
  lostReplyHangShare: 0,
  lostReplyHangMinMs: 0,
  lostReplyHangMaxMs: 0,
  http429Rate: 0,
  retryAfterMinSeconds: 1,
  retryAfterMaxSeconds: 1,
  http503Rate: 0,
  resetRate: 0,
  staleReadRate: 0,
  staleMinSlots: 0,
  staleMaxSlots: 0,
  wsCutEverySeconds: null,
  wsMuteShare: 0,
  wsNotificationDropRate: 0,
  outageEveryMinSeconds: null,
  outageEveryMaxSeconds: null,
  outageMinSeconds: 0,
  outageMaxSeconds: 0,
  outageMode: 'refuse',
  warpEverySeconds: null,
  warpSeconds: 0,
};

export const PROFILES = {
  none: NONE,
  mild: {
    ...NONE,
    latencyRate: 1,
    latencyMinMs: 10,
    latencyMaxMs: 150,
    dropSendRate: 0.05,
    lostReplyRate: 0.01,
    lostReplyHangShare: 0.5,
    lostReplyHangMinMs: 1_000,
    lostReplyHangMaxMs: 5_000,
    http429Rate: 0.01,
    http503Rate: 0.01,
    resetRate: 0.005,
    staleReadRate: 0.02,
    staleMinSlots: 1,
    staleMaxSlots: 10,
    wsCutEverySeconds: 120,
  },
  harsh: {
    ...NONE,
    latencyRate: 1,
    latencyMinMs: 50,
    latencyMaxMs: 800,
    dropSendRate: 0.25,
    lostReplyRate: 0.05,
    lostReplyHangShare: 0.5,
    lostReplyHangMinMs: 2_000,
    lostReplyHangMaxMs: 15_000,
    http429Rate: 0.03,
    retryAfterMinSeconds: 1,
    retryAfterMaxSeconds: 3,
    http503Rate: 0.03,
    resetRate: 0.03,
    staleReadRate: 0.1,
    staleMinSlots: 2,
    staleMaxSlots: 30,
    wsCutEverySeconds: 25,
    wsMuteShare: 0.2,
    wsNotificationDropRate: 0.05,
    outageEveryMinSeconds: 90,
    outageEveryMaxSeconds: 150,
    outageMinSeconds: 40,
    outageMaxSeconds: 40,
    outageMode: 'mixed',
  },
} as const satisfies Record<string, FaultProfile>;

export type ProfileName = keyof typeof PROFILES;
export const PROFILE_NAMES = Object.keys(PROFILES) as ProfileName[];

const RATES = [
  'latencyRate',
  'dropSendRate',
  'lostReplyRate',
  'lostReplyHangShare',
  'http429Rate',
  'http503Rate',
  'resetRate',
  'staleReadRate',
  'wsMuteShare',
  'wsNotificationDropRate',
] as const satisfies readonly (keyof FaultProfile)[];

const RANGES = [
  ['latencyMinMs', 'latencyMaxMs'],
  ['lostReplyHangMinMs', 'lostReplyHangMaxMs'],
  ['retryAfterMinSeconds', 'retryAfterMaxSeconds'],
  ['staleMinSlots', 'staleMaxSlots'],
  ['outageEveryMinSeconds', 'outageEveryMaxSeconds'],
  ['outageMinSeconds', 'outageMaxSeconds'],
] as const satisfies readonly (readonly [keyof FaultProfile, keyof FaultProfile])[];

const NULLABLE = new Set<keyof FaultProfile>([
  'wsCutEverySeconds',
  'outageEveryMinSeconds',
  'outageEveryMaxSeconds',
  'warpEverySeconds',
]);

export class ProfileError extends Error {}

/**
 * A named profile with changes over it, checked: rates in [0, 1], ranges ordered, durations ≥ 0.
 * `changes` may hold any subset of the knobs (from a control request or --set flags).
 */
export function resolveProfile(
  base: ProfileName | FaultProfile,
  changes: Partial<Record<keyof FaultProfile, unknown>> = {},
): FaultProfile {
  let start: FaultProfile;
  if (typeof base === 'string') {
    if (!Object.hasOwn(PROFILES, base)) {
      throw new ProfileError(`unknown fault profile '${base}' (one of ${PROFILE_NAMES.join(', ')})`);
    }
    start = PROFILES[base];
  } else {
    start = base;
  }
  const profile: FaultProfile = { ...start };
  for (const [key, value] of Object.entries(changes)) {
    if (!Object.hasOwn(NONE, key)) throw new ProfileError(`unknown fault knob '${key}'`);
    const knob = key as keyof FaultProfile;
    if (knob === 'outageMode') {
      if (!OUTAGE_MODES.includes(value as OutageMode)) {
        throw new ProfileError(`outageMode: one of ${OUTAGE_MODES.join(', ')}`);
      }
      profile.outageMode = value as OutageMode;
    } else if (value === null && NULLABLE.has(knob)) {
      (profile as unknown as Record<string, unknown>)[knob] = null;
    } else if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
      (profile as unknown as Record<string, unknown>)[knob] = value;
    } else {
      throw new ProfileError(`${knob}: a number ≥ 0${NULLABLE.has(knob) ? ' or null' : ''}`);
    }
  }
  for (const rate of RATES) {
    if (profile[rate] > 1) throw new ProfileError(`${rate}: a share in [0, 1]`);
  }
  for (const [min, max] of RANGES) {
    const low = profile[min];
    const high = profile[max];
    if ((low === null) !== (high === null)) throw new ProfileError(`${min} and ${max}: both null or neither`);
    if (low !== null && high !== null && low > high) throw new ProfileError(`${min} is above ${max}`);
  }
  if (profile.wsCutEverySeconds === 0) throw new ProfileError('wsCutEverySeconds: above 0, or null');
  if (profile.warpEverySeconds === 0) throw new ProfileError('warpEverySeconds: above 0, or null');
  return profile;
}

/** `--set name=value` text → a change: numbers, `null`, or the outage mode. */
export function parseKnob(text: string): [keyof FaultProfile, unknown] {
  const match = /^([A-Za-z0-9]+)=(.*)$/.exec(text);
  if (!match) throw new ProfileError(`--set ${text}: expected knob=value, e.g. dropSendRate=0.5`);
  const [, key, raw] = match as unknown as [string, string, string];
  if (!Object.hasOwn(NONE, key)) throw new ProfileError(`--set ${text}: unknown fault knob '${key}'`);
  if (key === 'outageMode') return [key, raw];
  if (raw === 'null') return [key as keyof FaultProfile, null];
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw new ProfileError(`--set ${text}: not a number`);
  return [key as keyof FaultProfile, value];
}
