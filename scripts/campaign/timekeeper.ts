// Moves the chain's clock so that expiries of several minutes pass in a few, without making the service
// look late for a reason of our making. It reads the chain's own state each tick and warps only when
//   - the warps are on (after the active phase), every instance is up and has been for a while, and the
//     chain is reachable and has been for a while: nothing is warped over a service that is down;
//   - no obligation is fresh: a revealed preimage the maker has not redeemed yet, a final taker lock the
//     maker has neither locked against nor released, a taker still locking or redeeming. An obligation
//     stops holding the clock once it has been open for `reactionSeconds` of wall time with the service
//     up and the chain reachable: a service that had that long is late by its own doing;
//   - by at most the landing margin, and no further than just past the next expiry, so the service sees
//     each deadline come.
// It also keeps, for each taker lock the service was handed, how long the service had a fair chance to
// land it (up, chain reachable, lock window open, blockhash valid).
import type { PublicKey } from '@solana/web3.js';
import { escrowFromAccount } from '../../src/chain/common.ts';
import { DEFAULT_HTLC_PROGRAM_ID, type EscrowState } from '../../src/chain/htlc/index.ts';
import type { Plan } from './plan.ts';
import type { TradeRecord } from './takers.ts';
import type { World } from './world.ts';

/** Wall ms an instance must have been up, and the chain reachable, before the clock moves. */
const SETTLED_MS = 8_000;

/**
 * Chain seconds past an escrow's expiry by which the service must have settled it: the clock is moved
 * that far past each expiry, and the audit calls an escrow still locked beyond it a problem.
 */
export const EXPIRY_MARGIN_SECONDS = 60;

export interface Obligation {
  tradeId: string;
  what: 'maker_redeem' | 'maker_lock' | 'taker_redeem' | 'taker_lock';
  /** Wall ms it was open while the service was up and the chain reachable. */
  openMs: number;
  firstSeenAt: number;
}

export interface TimekeeperStats {
  warps: number;
  warpedSeconds: number;
  /** Ticks on which a fresh obligation held the clock. */
  heldTicks: number;
  /** Obligations that were still open when their patience ran out (the clock then moved past them). */
  overdue: Obligation[];
  /** What held the clock last, if anything. */
  heldBy: string[];
}

export function escrowAt(world: World, address: string | PublicKey): EscrowState | null {
  const account = world.chain.ledger.getAccount(address);
  return escrowFromAccount(
    DEFAULT_HTLC_PROGRAM_ID,
    account ? { owner: account.owner, data: account.data } : null,
  );
}

export class Timekeeper {
  readonly stats: TimekeeperStats = { warps: 0, warpedSeconds: 0, heldTicks: 0, overdue: [], heldBy: [] };
  private readonly open = new Map<string, Obligation>();
  private lastTick = Date.now();
  private lastWarp = 0;
  private reachableSince = Date.now();
  private warping = false;
  warpsOn = false;
  /**
   * The settle phase: faults off, every instance up. Warps may be longer and closer together (still never
   * past the next expiry an escrow waits for, nor while an obligation is fresh): what is left is mostly
   * waiting for taker expiries a real cluster would reach in minutes.
   */
  settling = false;

  constructor(
    private readonly world: World,
    private readonly plan: Plan,
    private readonly records: readonly TradeRecord[],
  ) {}

  /** Every instance up for a while, the chain reachable for a while. */
  serviceReady(now = Date.now()): boolean {
    if (this.world.proxy.control.outageStatus().active) return false;
    if (now - this.reachableSince < SETTLED_MS) return false;
    return this.world.instances.every((i) => i.live && !i.killed && now - i.changedAt >= SETTLED_MS);
  }

  async tick(): Promise<void> {
    const wall = Date.now();
    const dt = wall - this.lastTick;
    this.lastTick = wall;
    if (this.world.proxy.control.outageStatus().active) this.reachableSince = wall;
    const ready = this.serviceReady(wall);
    const { slot, unix } = this.world.chain.ledger.tick();
    const now = Number(unix);
    const { settlement } = this.world.config;

    const current = new Set<string>();
    const events: number[] = [];
    for (const record of this.records) {
      const taker = escrowAt(this.world, record.takerEscrow);
      const maker = escrowAt(this.world, record.makerEscrow);
      for (const escrow of [taker, maker]) {
        if (escrow?.status === 'locked') {
          events.push(Number(escrow.expiry), Number(escrow.expiry) + EXPIRY_MARGIN_SECONDS + 1);
        }
      }
      if (!taker && record.wantsLock) events.push(record.lockDeadline);

      // The service's fair chance to land a lock it was handed.
      if (record.lockHandedOverAt !== null && !taker && ready) {
        if (slot <= record.lockLastValidBlockHeight && now <= record.lockDeadline) record.lockChanceMs += dt;
      }

      const open = (what: Obligation['what']) => {
        const key = `${record.tradeId}:${what}`;
        current.add(key);
        const obligation = this.open.get(key) ?? {
          tradeId: record.tradeId,
          what,
          openMs: 0,
          firstSeenAt: wall,
        };
        if (ready) obligation.openMs += dt;
        this.open.set(key, obligation);
      };
      if (taker?.status === 'locked' && maker?.status === 'redeemed') open('maker_redeem');
      const lastMakerLock =
        Number(taker?.expiry ?? 0) - settlement.safetyMarginSeconds - settlement.minRedeemWindowSeconds;
      if (taker?.status === 'locked' && !maker && now <= lastMakerLock) open('maker_lock');
      if ((record.wantsRedeem || record.redeemRequested) && maker?.status === 'locked') open('taker_redeem');
      if (record.wantsLock && !taker && now <= record.lockDeadline) open('taker_lock');
    }
    for (const key of [...this.open.keys()]) if (!current.has(key)) this.open.delete(key);

    if (!this.warpsOn || !ready || this.warping) return;
    const patience = this.plan.reactionSeconds * 1000;
    // While an overdue obligation is still open, half the pace: the service keeps its chance to catch up.
    const overdueOpen = [...this.open.values()].some((o) => o.openMs >= patience);
    const every = this.settling ? Math.min(500, this.plan.warpEveryMs) : this.plan.warpEveryMs;
    if (wall - this.lastWarp < every * (overdueOpen ? 2 : 1)) return;
    const fresh = [...this.open.values()].filter((o) => o.openMs < patience);
    if (fresh.length > 0) {
      this.stats.heldTicks++;
      this.stats.heldBy = fresh.map(
        (o) => `${o.tradeId.slice(0, 8)} ${o.what} ${Math.round(o.openMs / 1000)} s`,
      );
      return;
    }
    this.stats.heldBy = [];
    for (const o of this.open.values()) {
      if (!this.stats.overdue.some((d) => d.tradeId === o.tradeId && d.what === o.what)) {
        this.stats.overdue.push({ ...o });
      }
    }
    const next = events.filter((t) => t >= now).sort((a, b) => a - b)[0];
    if (next === undefined) return;
    const most = this.settling ? 3 * this.plan.warpStepSeconds : this.plan.warpStepSeconds;
    const step = Math.max(1, Math.min(most, next - now + 2));
    this.warping = true;
    try {
      await this.world.proxy.control.warp(step);
      this.world.note('warp', `${step} s`);
      this.stats.warps++;
      this.stats.warpedSeconds += step;
      this.lastWarp = Date.now();
    } finally {
      this.warping = false;
    }
  }
}
