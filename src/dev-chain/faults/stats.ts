// What the proxy did, counted: requests by method, and each injected fault by method, so a campaign can
// say which faults its run met and a test can assert that one happened.

export const FAULT_KINDS = [
  'latency',
  'dropped_send',
  'lost_reply_reset',
  'lost_reply_hang',
  'http_429',
  'http_503',
  'reset',
  'stale_read',
  'stale_min_context_slot',
  'outage_refused',
  'outage_hung',
  'outage_cut_in_flight',
  'ws_cut',
  'ws_muted',
  'ws_refused',
  'ws_notification_dropped',
  'warp',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface OutageRecord {
  startedAt: string;
  endedAt: string | null;
  mode: 'refuse' | 'hang';
  /** `timed` by the profile, or `control` when switched on by a request. */
  source: 'timed' | 'control';
}

export interface FaultStats {
  requests: number;
  /** Requests per JSON-RPC method (`batch` for a batch, `http` for anything not JSON-RPC). */
  byMethod: Record<string, number>;
  /** Each fault per method (websocket faults under `websocket`, warps under `dev_advanceClock`). */
  faults: Partial<Record<FaultKind, Record<string, number>>>;
  /** Each fault in all. */
  totals: Partial<Record<FaultKind, number>>;
  outages: OutageRecord[];
  websocket: { connections: number; open: number };
  warpedSeconds: number;
}

export class StatsCounter {
  private requests = 0;
  private readonly byMethod: Record<string, number> = {};
  private readonly faults: Partial<Record<FaultKind, Record<string, number>>> = {};
  private readonly totals: Partial<Record<FaultKind, number>> = {};
  readonly outages: OutageRecord[] = [];
  wsConnections = 0;
  warpedSeconds = 0;

  request(method: string): void {
    this.requests++;
    this.byMethod[method] = (this.byMethod[method] ?? 0) + 1;
  }

  fault(kind: FaultKind, method: string): void {
    const table = this.faults[kind] ?? {};
    this.faults[kind] = table;
    table[method] = (table[method] ?? 0) + 1;
    this.totals[kind] = (this.totals[kind] ?? 0) + 1;
  }

  snapshot(wsOpen: number): FaultStats {
    const faults: FaultStats['faults'] = {};
    for (const [kind, table] of Object.entries(this.faults)) faults[kind as FaultKind] = { ...table };
    return {
      requests: this.requests,
      byMethod: { ...this.byMethod },
      faults,
      totals: { ...this.totals },
      outages: this.outages.map((o) => ({ ...o })),
      websocket: { connections: this.wsConnections, open: wsOpen },
      warpedSeconds: this.warpedSeconds,
    };
  }
}
