// Several instances over one store, in one room: which run owns which trade (the ownership port, port.ts),
// the run's lease and its orphan claims (lease.ts), forwarding a command to its trade's owner (forward.ts),
// signed by its peer (peer.ts), and the watch on owners a forward waits on (owner-watch.ts). Nothing outside
// this folder needs to know what a lease is.
export {
  FORWARD_MAX_ANSWER_BYTES,
  type ForwardOptions,
  forwardTarget,
  forwardToOwner,
  originFormTarget,
} from './forward.ts';
export { type LeaseOptions, RunLease, StartupLease } from './lease.ts';
export { OwnerWatch, type OwnerWatchOptions } from './owner-watch.ts';
export { ClusterPeers, FORWARDED_BY, PEER_HEADERS, PEER_WINDOW_MS, type PeerRequest } from './peer.ts';
export { type ClusterLog, TradeOwnedElsewhere } from './port.ts';
