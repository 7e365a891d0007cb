// The commitments of the embedded chain: what a read at `confirmed` or `finalized` sees while the tip moves
// on, when a write is told to the listeners of each commitment, and what a rollback (a fork) takes back.
// A chain that keeps real time (ChainTiming) keeps each transaction's accounts as they were before it until
// the transaction is final: a read at a commitment takes, per account, the state before the first
// transaction that commitment does not see yet, else the current one. An instant chain keeps nothing and
// tells every commitment at once, as it always did.
import type { StoredAccount } from './store.ts';
import type { ChainTiming, CommitmentLevel } from './time.ts';

/** What an executed transaction wrote (or a rollback restored), told to the listeners of a commitment. */
export interface LedgerWrite {
  /** The transaction; null when a rollback restored the accounts (a fork took transactions back). */
  signature: string | null;
  slot: number;
  /** The writable accounts it changed (of a failed transaction: the fee payer), closed ones included. */
  addresses: string[];
}

export type WriteListener = (write: LedgerWrite) => void;

/** A transaction not final yet: what it wrote, and the accounts as they were before it. */
interface Landed {
  signature: string;
  slot: number;
  before: ReadonlyMap<string, StoredAccount | null>;
  write: LedgerWrite;
}

/** What a rollback took back: the transactions, newest last, and each account's state before them. */
export interface RolledBack {
  signatures: string[];
  restored: Map<string, StoredAccount | null>;
}

export class Commitments {
  /** Transactions not final yet, in landing order (so in slot order). */
  private readonly recent: Landed[] = [];
  private readonly byAddress = new Map<string, Landed[]>();
  /** recent[confirmedNext] is the first not yet told at confirmed. */
  private confirmedNext = 0;
  /** The unix time each recent slot began at (the Clock sysvar a read behind the tip shows). */
  private readonly unixBySlot: { slot: number; unix: bigint }[] = [];
  private readonly listeners: Record<CommitmentLevel, Set<WriteListener>> = {
    processed: new Set(),
    confirmed: new Set(),
    finalized: new Set(),
  };

  /**
   * `floor`: every slot at or below it is final — the last slot a transaction had landed in when the chain
   * opened (-1: none), since a chain that restarts finalizes what had landed (the before-states it kept
   * were in memory).
   */
  constructor(
    readonly timing: ChainTiming | null,
    private readonly tip: () => number,
    private readonly floor: number,
  ) {}

  /**
   * The last slot a commitment sees: the tip, less its lag on a chain that keeps real time (below 0 while
   * the chain is younger than the lag: nothing is seen there yet).
   */
  slotAt(level: CommitmentLevel): number {
    const tip = this.tip();
    if (this.timing === null || level === 'processed') return tip;
    const lag = level === 'confirmed' ? this.timing.confirmationSlots : this.timing.finalizationSlots;
    return Math.min(tip, Math.max(this.floor, tip - lag));
  }

  /** The strongest commitment that sees a transaction of this slot. */
  levelOf(slot: number): CommitmentLevel {
    if (slot <= this.slotAt('finalized')) return 'finalized';
    return slot <= this.slotAt('confirmed') ? 'confirmed' : 'processed';
  }

  /** Whether each transaction's before-state must be kept (only a chain whose commitments lag reads behind the tip). */
  get keepsHistory(): boolean {
    return this.timing !== null;
  }

  onWrite(listener: WriteListener, level: CommitmentLevel): () => void {
    this.listeners[level].add(listener);
    return () => {
      this.listeners[level].delete(listener);
    };
  }

  /** A transaction landed (durably): told at processed now, at each later commitment once it sees it. */
  landed(write: LedgerWrite, before: ReadonlyMap<string, StoredAccount | null> | null): void {
    if (this.timing === null || before === null) {
      for (const level of ['processed', 'confirmed', 'finalized'] as const) this.tell(level, write);
      return;
    }
    const entry: Landed = { signature: write.signature ?? '', slot: write.slot, before, write };
    this.recent.push(entry);
    for (const address of before.keys()) {
      const list = this.byAddress.get(address);
      if (list) list.push(entry);
      else this.byAddress.set(address, [entry]);
    }
    this.tell('processed', write);
    this.advance();
  }

  /** Tells what the commitments came to see since last asked, and forgets what is final. */
  advance(): void {
    if (this.timing === null) return;
    const confirmed = this.slotAt('confirmed');
    for (let next = this.recent[this.confirmedNext]; next && next.slot <= confirmed; ) {
      this.confirmedNext++;
      this.tell('confirmed', next.write);
      next = this.recent[this.confirmedNext];
    }
    const finalized = this.slotAt('finalized');
    for (let first = this.recent[0]; first && first.slot <= finalized; first = this.recent[0]) {
      this.recent.shift();
      this.confirmedNext = Math.max(0, this.confirmedNext - 1);
      for (const address of first.before.keys()) {
        const list = this.byAddress.get(address);
        list?.shift();
        if (list?.length === 0) this.byAddress.delete(address);
      }
      this.tell('finalized', first.write);
    }
    while (this.unixBySlot.length > 1 && (this.unixBySlot[1]?.slot ?? Infinity) <= finalized) {
      this.unixBySlot.shift();
    }
  }

  /** The account as the commitment sees it: before the first transaction it does not see yet, else now. */
  accountAt(
    address: string,
    level: CommitmentLevel,
    current: () => StoredAccount | null,
  ): StoredAccount | null {
    if (level === 'processed') return current();
    const seen = this.slotAt(level);
    const unseen = this.byAddress.get(address)?.find((entry) => entry.slot > seen);
    return unseen ? (unseen.before.get(address) ?? null) : current();
  }

  /** Notes the unix time a slot began at, as the Clock sysvar showed it. */
  recordUnix(slot: number, unix: bigint): void {
    const last = this.unixBySlot.at(-1);
    if (last === undefined || slot > last.slot) this.unixBySlot.push({ slot, unix });
  }

  /** The Clock's unix time at a slot behind the tip (the latest noted at or before it; else the oldest). */
  unixAt(slot: number): bigint | null {
    let found: bigint | null = this.unixBySlot[0]?.unix ?? null;
    for (const entry of this.unixBySlot) {
      if (entry.slot > slot) break;
      found = entry.unix;
    }
    return found;
  }

  /**
   * Takes back every transaction from `fromSlot` on (all of them not final: the caller checked), newest
   * first: answers them and each account's state before the oldest of them. The caller restores those
   * states, then calls rolledBack() to tell the listeners.
   */
  rollback(fromSlot: number): RolledBack & { confirmedAddresses: string[] } {
    // What the commitments see by now is told first: the rollback is then told to whoever heard of it.
    this.advance();
    const signatures: string[] = [];
    const restored = new Map<string, StoredAccount | null>();
    const confirmedAddresses = new Set<string>();
    for (let last = this.recent.at(-1); last && last.slot >= fromSlot; last = this.recent.at(-1)) {
      this.recent.pop();
      signatures.unshift(last.signature);
      if (this.recent.length < this.confirmedNext) {
        this.confirmedNext = this.recent.length;
        for (const address of last.write.addresses) confirmedAddresses.add(address);
      }
      for (const [address, account] of last.before) {
        restored.set(address, account);
        const list = this.byAddress.get(address);
        list?.pop();
        if (list?.length === 0) this.byAddress.delete(address);
      }
    }
    return { signatures, restored, confirmedAddresses: [...confirmedAddresses] };
  }

  /** Tells processed (every restored account) and confirmed (those it had seen change) of a rollback. */
  rolledBack(slot: number, restored: readonly string[], confirmedAddresses: readonly string[]): void {
    if (restored.length > 0) this.tell('processed', { signature: null, slot, addresses: [...restored] });
    if (confirmedAddresses.length > 0) {
      this.tell('confirmed', {
        signature: null,
        slot: this.slotAt('confirmed'),
        addresses: [...confirmedAddresses],
      });
    }
  }

  private tell(level: CommitmentLevel, write: LedgerWrite): void {
    for (const listener of this.listeners[level]) {
      try {
        listener(write);
      } catch {
        // The transaction is durable and landed whatever a listener does; its failure stays its own.
      }
    }
  }
}
