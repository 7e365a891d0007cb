// The embedded chain's time: slots that follow wall time (SLOT_MS each by default, never skipped, so a slot
// is also a block height), unix time that never goes back, moved forward on demand (advanceClock), and
// blockhashes derived from the chain's seed that stay valid for BLOCKHASH_VALIDITY blocks, like a cluster's.
// Where it stands is kept in the chain store's meta, so a restart resumes it. A chain that keeps real time
// (ChainTiming) also lags its commitments behind the tip: confirmed a few slots, finalized some thirty.
import { createHash } from 'node:crypto';
import { encodeBase58 } from '../../vocabulary/base58.ts';
import type { ChainStore } from './store.ts';

export const SLOT_MS = 400;
/** Like a cluster: a blockhash is usable for 150 blocks after the one it names. */
export const BLOCKHASH_VALIDITY = 150;

/** The commitments a read can ask for, weakest first. */
export const COMMITMENTS = ['processed', 'confirmed', 'finalized'] as const;
export type CommitmentLevel = (typeof COMMITMENTS)[number];

/**
 * A chain that keeps real time: slots of `slotMs`, a transaction confirmed `confirmationSlots` after the slot
 * it landed in and finalized `finalizationSlots` after it. Without one (null) the chain is instant: every
 * commitment sees a transaction the moment it lands.
 */
export interface ChainTiming {
  slotMs: number;
  confirmationSlots: number;
  finalizationSlots: number;
}

/** A cluster's usual lags: a slot every 400 ms, confirmed two slots on, finalized thirty-two on (~13 s). */
export const DEFAULT_TIMING: ChainTiming = { slotMs: SLOT_MS, confirmationSlots: 2, finalizationSlots: 32 };

/** What the chain derives from its seed (blockhashes, the faucet, its own keys): sha256(seed, label, n). */
export type SeedHash = (label: string, n?: number) => Buffer;

export function seedHash(seed: Buffer): SeedHash {
  return (label, n) => {
    const h = createHash('sha256').update(seed).update(label);
    if (n !== undefined) {
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(BigInt(n));
      h.update(b);
    }
    return h.digest();
  };
}

export class ChainTime {
  private readonly genesisMs: number;
  private timeOffsetS: bigint;
  private slotOffset: number;
  private lastSlot: number;
  private lastUnix: bigint;
  private readonly issued = new Map<string, number>();

  constructor(
    store: ChainStore,
    private readonly wallMs: () => number,
    private readonly hash: SeedHash,
    /** How long a slot lasts (a chain's data dir keeps its slots whatever this was before: never back). */
    readonly slotMs = SLOT_MS,
  ) {
    this.genesisMs = Number(store.meta('genesis_ms'));
    this.timeOffsetS = BigInt(store.meta('time_offset_s') ?? '0');
    this.slotOffset = Number(store.meta('slot_offset') ?? '0');
    this.lastSlot = Math.max(store.maxSlot() ?? 0, Number(store.meta('last_slot') ?? '0'));
    this.lastUnix = BigInt(store.meta('last_unix') ?? '0');
  }

  /** The slot (= block height: no slot is ever skipped) the chain is at now. */
  slot(): number {
    const s = Math.floor((this.wallMs() - this.genesisMs) / this.slotMs) + this.slotOffset;
    if (s > this.lastSlot) this.lastSlot = s;
    return this.lastSlot;
  }

  unixTime(): bigint {
    const u = BigInt(Math.floor(this.wallMs() / 1000)) + this.timeOffsetS;
    if (u > this.lastUnix) this.lastUnix = u;
    return this.lastUnix;
  }

  blockhashAt(slot: number): string {
    return encodeBase58(this.hash('blockhash', slot));
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number; slot: number } {
    const slot = this.slot();
    const blockhash = this.blockhashAt(slot);
    if (!this.issued.has(blockhash)) {
      this.issued.set(blockhash, slot);
      if (this.issued.size > 4 * BLOCKHASH_VALIDITY) {
        for (const [h, s] of this.issued) if (s + BLOCKHASH_VALIDITY < slot) this.issued.delete(h);
      }
    }
    return { blockhash, lastValidBlockHeight: slot + BLOCKHASH_VALIDITY, slot };
  }

  /** The milliseconds until the next slot begins (a chain keeping real time wakes then). */
  msToNextSlot(): number {
    const elapsed = this.wallMs() - this.genesisMs;
    return this.slotMs - (((elapsed % this.slotMs) + this.slotMs) % this.slotMs);
  }

  /**
   * The slot a blockhash names when it is still valid at the given block height (default: now), or null
   * when it is unknown there (newer than that height) or expired.
   */
  blockhashSlot(blockhash: string, height = this.slot()): number | null {
    const known = this.issued.get(blockhash);
    if (known !== undefined) return known <= height && known + BLOCKHASH_VALIDITY >= height ? known : null;
    // Issued before a restart: recompute the window (151 hashes, well under a millisecond).
    for (let s = height; s >= Math.max(0, height - BLOCKHASH_VALIDITY); s--) {
      if (this.blockhashAt(s) === blockhash) return s;
    }
    return null;
  }

  /** Moves chain time forward; slots move with it, so blockhashes older than the jump expire. */
  advance(seconds: number): void {
    if (!Number.isFinite(seconds) || seconds < 0) throw new Error('advanceClock: seconds must be ≥ 0');
    const whole = Math.floor(seconds);
    this.timeOffsetS += BigInt(whole);
    this.slotOffset += Math.floor((whole * 1000) / this.slotMs);
  }

  /** The latest slot and time handed out, as the store keeps them with every transaction. */
  lastMeta(): Record<'last_slot' | 'last_unix', string> {
    return { last_slot: String(this.lastSlot), last_unix: this.lastUnix.toString() };
  }

  /** Everything the store keeps of where time stands, after advance. */
  meta(): Record<'time_offset_s' | 'slot_offset' | 'last_slot' | 'last_unix', string> {
    return {
      time_offset_s: this.timeOffsetS.toString(),
      slot_offset: String(this.slotOffset),
      ...this.lastMeta(),
    };
  }
}
