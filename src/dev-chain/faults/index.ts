// The fault-injecting chain: a proxy that puts seeded, reproducible faults in front of any Solana JSON-RPC
// endpoint and its websocket (`npm run chain:faults`, `npm run chain -- --faults <profile>`), for tests,
// scripts and the campaign. docs/development.md#fault-injecting-chain describes each fault.
export {
  type FaultProfile,
  type OutageMode,
  PROFILE_NAMES,
  PROFILES,
  ProfileError,
  type ProfileName,
  parseKnob,
  resolveProfile,
} from './profiles.ts';
export {
  type Decision,
  type FaultControl,
  type FaultProxy,
  type FaultProxyOptions,
  type OutageStatus,
  type OutageSwitch,
  startFaultProxy,
} from './proxy.ts';
export { type Random, seededRandom } from './random.ts';
export { FAULT_KINDS, type FaultKind, type FaultStats, type OutageRecord } from './stats.ts';
