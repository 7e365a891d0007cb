// The proxy's control: what `faults_*` JSON-RPC methods on the proxy's port can ask and change, and their
// params read and checked before anything changes.

import type { JsonRpcRequest } from './answers.ts';
import { type FaultProfile, PROFILE_NAMES, ProfileError, type ProfileName } from './profiles.ts';
import type { FaultKind, FaultStats } from './stats.ts';

/** One request's fate, in arrival order (n from 1). */
export interface Decision {
  n: number;
  method: string;
  faults: FaultKind[];
  latencyMs: number;
}

export interface OutageStatus {
  active: boolean;
  mode: 'refuse' | 'hang' | null;
  source: 'timed' | 'control' | null;
  /** When it ends by itself; null while it lasts until switched off. */
  endsAt: string | null;
}

export type OutageSwitch = 'on' | 'off' | { seconds: number };

export interface FaultControl {
  /** The profile in force (the named base it came from, or `custom`). */
  profile(): { name: string; settings: FaultProfile };
  /** A new profile from now on: a name, or changes over the current one (base omitted). */
  setProfile(base: ProfileName | null, changes?: Partial<Record<keyof FaultProfile, unknown>>): FaultProfile;
  /** Starts an outage (until `off`, or for seconds) or ends the current one. */
  outage(action: OutageSwitch, mode?: 'refuse' | 'hang'): OutageStatus;
  outageStatus(): OutageStatus;
  /** Moves the target's clock (its dev_advanceClock: the loopback chain only). */
  warp(seconds: number): Promise<{ slot: number; unixTimestamp: number }>;
  /** Cuts (or mutes) every websocket now, as the timer does; answers how many were cut. */
  cutWebSockets(): number;
  stats(): FaultStats;
  /** The last decisions (up to 20,000), oldest first. */
  decisions(): Decision[];
}

/** `faults_outage`'s params: ['on' | 'off' | {seconds, mode?}, mode?]; none asks for the status. */
function answerOutageControl(control: FaultControl, params: unknown[]): OutageStatus {
  const [action, mode] = params as [unknown, unknown];
  if (mode !== undefined && mode !== 'refuse' && mode !== 'hang') {
    throw new ProfileError('faults_outage: mode is refuse or hang');
  }
  if (action === 'on' || action === 'off') return control.outage(action, mode);
  if (action === undefined) return control.outageStatus();
  const seconds = (action as { seconds?: unknown } | null)?.seconds;
  const inner = (action as { mode?: unknown } | null)?.mode ?? mode;
  if (typeof seconds !== 'number') {
    throw new ProfileError("faults_outage: params ['on' | 'off' | {seconds, mode?}, mode?]");
  }
  if (inner !== undefined && inner !== 'refuse' && inner !== 'hang') {
    throw new ProfileError('faults_outage: mode is refuse or hang');
  }
  return control.outage({ seconds }, inner);
}

/** `faults_profile`'s params: [name?, {knob: value}?]; none asks for the profile in force. */
function answerProfileControl(control: FaultControl, params: unknown[]) {
  const [first, second] = params as [unknown, unknown];
  if (first === undefined) return control.profile();
  const base = typeof first === 'string' ? (first as ProfileName) : null;
  const changes = (typeof first === 'string' ? second : first) ?? {};
  if (typeof changes !== 'object' || Array.isArray(changes)) {
    throw new ProfileError(`faults_profile: params [name?, {knob: value}?] (${PROFILE_NAMES.join(', ')})`);
  }
  control.setProfile(base, changes as Partial<Record<keyof FaultProfile, unknown>>);
  return control.profile();
}

export async function answerControl(control: FaultControl, request: JsonRpcRequest): Promise<unknown> {
  const params = Array.isArray(request.params) ? request.params : [];
  switch (request.method) {
    case 'faults_outage':
      return answerOutageControl(control, params);
    case 'faults_profile':
      return answerProfileControl(control, params);
    case 'faults_stats':
      return control.stats();
    case 'faults_warp': {
      const [seconds] = params as [unknown];
      if (typeof seconds !== 'number') throw new ProfileError('faults_warp: params [seconds]');
      return control.warp(seconds);
    }
    case 'faults_cut':
      return { cut: control.cutWebSockets() };
    default:
      throw new ProfileError(
        `unknown control ${String(request.method)} (faults_outage, faults_profile, faults_stats, faults_warp, faults_cut)`,
      );
  }
}
