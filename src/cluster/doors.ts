// The cluster's doors on the HTTP app: a command for a trade another live instance owns leaves through them,
// signed, to its owner (forward.ts, peer.ts), and waits on that owner with the instance's other forwards
// (owner-watch.ts); a forward that comes in has its client believed only on a valid signature. The HTTP app
// hands in what it answers with (its error envelope) and asks them one question per request.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/index.ts';
import { type ForwardOptions, forwardToOwner } from './forward.ts';
import { OwnerWatch } from './owner-watch.ts';
import { ClusterPeers } from './peer.ts';
import type { Ownership, TradeOwnedElsewhere } from './port.ts';

export interface DoorOptions {
  settings: Config['cluster'];
  runId: string;
  ownership: Pick<Ownership, 'takeIfOwnerGone'>;
  /** The body of a 503 this instance answers itself (the API's error envelope, runtime_unavailable). */
  unavailable: (message: string) => unknown;
  /** The error a forwarded body other than the signed one is refused with (the API's validation_failed). */
  tampered: (message: string) => Error;
  /** Where a forward not trusted is told of. */
  warn: (message: string) => void;
  /** Each forward's outcome (the service's metrics). */
  onOutcome?: ForwardOptions['onOutcome'];
}

/** How long a forward waits for its owner's whole answer (a lock wait too). */
const FORWARD_TIMEOUT_MS = 60_000;

export class ClusterDoors {
  private readonly peers: ClusterPeers;
  private readonly owners: OwnerWatch;
  private readonly forwarding: ForwardOptions;

  constructor(private readonly options: DoorOptions) {
    const { settings } = options;
    this.peers = new ClusterPeers(settings.secret, Date.now, options.warn);
    // One poll for every forward waiting on an owner, a third of a lease apart.
    this.owners = new OwnerWatch({
      takeIfOwnerGone: (tradeId) => options.ownership.takeIfOwnerGone(tradeId),
      pollMs: Math.max(100, Math.floor((settings.leaseTtlSeconds * 1000) / 3)),
    });
    this.forwarding = {
      runId: options.runId,
      timeoutMs: FORWARD_TIMEOUT_MS,
      // About a lease: a silent owner's trades are taken over by then.
      retryAfterSeconds: settings.leaseTtlSeconds,
      peers: this.peers,
      owners: this.owners,
      unavailable: options.unavailable,
      ...(options.onOutcome ? { onOutcome: options.onOutcome } : {}),
    };
  }

  /** Hooks the app: signed bodies checked as they stream in; the owner watch stops with the app. */
  install(app: FastifyInstance): void {
    this.peers.install(app, this.options.tampered);
    app.addHook('onClose', async () => this.owners.stop());
  }

  /**
   * The client a request counts for: the connection's address (or X-Forwarded-For's, per http.trust_proxy),
   * or for a command another instance forwarded, the client that instance vouches for under the secret.
   */
  clientOf(request: FastifyRequest): string {
    return this.peers.vouchedClient(request) ?? request.ip;
  }

  /** Serves a command for another live instance's trade: relayed to its owner, its answer streamed back. */
  forward(
    elsewhere: TradeOwnedElsewhere,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply> {
    return forwardToOwner(elsewhere, request, reply, this.forwarding);
  }
}
