// Several instances over one store, in one room: which run owns which trade (the ownership port, port.ts: one
// instance on SQLite, single-instance.ts; leases on PostgreSQL, leased.ts over lease.ts), a run's start and
// end (start.ts, run.ts), and the doors on the HTTP app (doors.ts): a command relayed to its trade's owner
// (forward.ts), signed for it (peer.ts), waiting on it with the other forwards (owner-watch.ts). Nothing
// outside this folder needs to know what a lease is.
export { ClusterDoors, type DoorOptions } from './doors.ts';
export { forwardTarget, forwardToOwner, originFormTarget } from './forward.ts';
export { RunLease, StartupLease } from './lease.ts';
export { OwnerWatch } from './owner-watch.ts';
export { ClusterPeers, FORWARDED_BY, PEER_WINDOW_MS } from './peer.ts';
export {
  type ClusterLog,
  isFenced,
  type OwnedRun,
  type Ownership,
  TradeOwnedElsewhere,
} from './port.ts';
export type { OwnershipOptions } from './run.ts';
export { SingleInstance } from './single-instance.ts';
export { ownershipOf, startRun } from './start.ts';
