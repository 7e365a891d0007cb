// The cluster's vocabulary, as the rest of the service sees it: who owns a trade, and what a command for a
// trade owned elsewhere is. The mechanics (leases, fencing, orphan claims, forwarding) stay in this folder.

/**
 * A command for a trade another live run (instance) owns: it is served there (the HTTP layer forwards the
 * request to ownerUrl), never here — only the owner may act on a trade while its lease lives.
 */
export class TradeOwnedElsewhere extends Error {
  constructor(
    readonly tradeId: string,
    readonly ownerRunId: string,
    readonly ownerUrl: string | null,
  ) {
    super(`trade ${tradeId} is owned by run ${ownerRunId}`);
    this.name = 'TradeOwnedElsewhere';
  }
}

/** What the cluster logs through: the service's pino logger, or a test's capture. */
export interface ClusterLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
