// The control plane: the desk's settings in force in this instance, changed live by an operator and kept
// the same on every instance. A change is validated as the config file is (settings.ts), made durable with
// its log entry (who, when, before, after) before it is answered, applied here at once, and heard by the
// other instances within the notification's latency (PostgreSQL LISTEN/NOTIFY; SQLite has one process). A
// restart loads the stored overrides over the config file: the file is the boot default, the overrides win.
//
// Invariants: the settings in force are always ones the config validation accepts, or — when the stored
// overrides together are not — the file's with the pauses kept (a pause is never lost); changes made
// through this instance are applied one at a time, each planned on the settings the one before left.
import type { Config, Pair } from '../config/index.ts';
import type { RuntimeLogger } from '../runtime/logger.ts';
import type { DeskChange, DeskOverride, DeskRepository, GroupCommit } from '../store/index.ts';
import type { Target } from './fields.ts';
import {
  type DeskSettings,
  livePairs,
  type Override,
  pausesOnly,
  planChange,
  resolveSettings,
  type SettingsView,
  viewOf,
} from './settings.ts';

/** How often the plane reads the log's head anyway, should a notification be lost (a dropped connection). */
const POLL_MS = 5_000;

export interface ControlPlaneOptions {
  boot: Config;
  store: DeskRepository;
  durable: Pick<GroupCommit, 'write'>;
  runId: string;
  log: RuntimeLogger;
  nowMs?: () => number;
}

/** Who changed the settings, and how far this instance has applied the log. */
export interface ControlView extends SettingsView {
  /** The overrides in force, each with the change that set it. */
  overrides: DeskOverride[];
  /** The log's newest change this instance applied (0: none). */
  applied_seq: number;
  /** Why the stored overrides are not all in force (only their pauses are), or null. */
  problem: string | null;
}

export type SettingsListener = (settings: DeskSettings, changes: readonly DeskChange[]) => void;

export class ControlPlane {
  private overrides: DeskOverride[] = [];
  private settings: DeskSettings;
  private pairs: Pair[];
  private appliedSeq = 0;
  private problem: string | null = null;
  private readonly listeners = new Set<SettingsListener>();
  /** Changes through this instance, one after the other. */
  private queue: Promise<unknown> = Promise.resolve();
  private stopWatching: (() => Promise<void>) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly nowMs: () => number;

  private constructor(private readonly options: ControlPlaneOptions) {
    this.settings = { config: options.boot, paused: false };
    this.pairs = livePairs(this.settings);
    this.nowMs = options.nowMs ?? Date.now;
  }

  /** The plane with the stored overrides in force. */
  static async open(options: ControlPlaneOptions): Promise<ControlPlane> {
    const plane = new ControlPlane(options);
    await plane.reload();
    return plane;
  }

  /** Hears other instances' changes (and reads the log's head every few seconds, in case one is missed). */
  async start(): Promise<void> {
    this.stopWatching = await this.options.store.watchDesk(() => void this.refresh());
    const tick = () => {
      this.timer = setTimeout(() => void this.refresh().finally(tick), POLL_MS);
      this.timer.unref?.();
    };
    tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.stopWatching?.();
    this.stopWatching = null;
  }

  /** Called with the settings each time they change here, whoever changed them. */
  onChange(listener: SettingsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get current(): DeskSettings {
    return this.settings;
  }

  /** The pairs as quotes and settlement starts see them now (every one paused while the desk is). */
  livePairs(): readonly Pair[] {
    return this.pairs;
  }

  /** Why new quotes and settlement starts of the pair are stopped: the desk's pause, its own, or none. */
  pauseOf(inputMint: string, outputMint: string): 'desk' | 'pair' | null {
    if (this.settings.paused) return 'desk';
    const pair = this.settings.config.pairs.find(
      (p) => p.input.mint === inputMint && p.output.mint === outputMint,
    );
    return pair?.paused ? 'pair' : null;
  }

  view(): ControlView {
    return {
      ...viewOf(this.settings),
      overrides: this.overrides,
      applied_seq: this.appliedSeq,
      problem: this.problem,
    };
  }

  /** The change log, newest first. */
  log(limit: number, beforeSeq?: number): Promise<DeskChange[]> {
    return this.options.store.deskChanges(limit, beforeSeq);
  }

  /**
   * Sets fields of a target (null: back to the config file's value) for `actor`: validated, durable with
   * its log entries, then in force here; answers the changes made (none when everything already was so).
   * Throws ControlError, changing nothing, when the target or a field is unknown or the result invalid.
   */
  change(target: Target, fields: Readonly<Record<string, unknown>>, actor: string): Promise<DeskChange[]> {
    const run = this.queue.then(() => this.changeNow(target, fields, actor));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async changeNow(
    target: Target,
    fields: Readonly<Record<string, unknown>>,
    actor: string,
  ): Promise<DeskChange[]> {
    // Planned on the latest stored state: another instance may have changed it a moment ago.
    await this.reload();
    const plan = planChange(
      this.options.boot,
      { overrides: this.overrides, settings: this.settings },
      target,
      fields,
    );
    if (plan.changes.length === 0) return [];
    const at = new Date(this.nowMs()).toISOString();
    await this.options.durable.write({
      kind: 'changeDesk',
      changes: plan.changes.map((c) => ({ ...c, at, actor, runId: this.options.runId })),
    });
    const made = (await this.reload()).filter(
      (c) => c.runId === this.options.runId && c.at === at && c.actor === actor,
    );
    this.options.log.info(
      {
        actor,
        changes: made.map((c) => ({ target: c.target, field: c.field, before: c.before, after: c.after })),
      },
      'desk settings changed',
    );
    return made;
  }

  /** Reads the log's head; reloads when it moved (another instance's change). */
  private async refresh(): Promise<void> {
    try {
      const [head] = await this.options.store.deskChanges(1);
      if ((head?.seq ?? 0) !== this.appliedSeq) await this.reload();
    } catch (error) {
      this.options.log.warn({ err: (error as Error).message }, 'could not read the desk settings');
    }
  }

  /** The stored overrides put in force; answers the changes logged since the last reload. */
  private async reload(): Promise<DeskChange[]> {
    // The head first: a change committed between the two reads leaves the overrides newer than the head
    // read, and the next refresh reloads them (the other order could miss it for good).
    const [head] = await this.options.store.deskChanges(1);
    const headSeq = head?.seq ?? 0;
    if (headSeq === this.appliedSeq) return [];
    const overrides = await this.options.store.deskOverrides();
    const since =
      headSeq > this.appliedSeq
        ? (await this.options.store.deskChanges(headSeq - this.appliedSeq)).reverse()
        : [];
    // In the order they were set, so a later override of a band wins over an earlier band_bps.
    const ordered: Override[] = [...overrides].sort((a, b) => a.seq - b.seq);
    let settings: DeskSettings;
    try {
      settings = resolveSettings(this.options.boot, ordered);
      this.problem = null;
    } catch (error) {
      this.problem = `the stored overrides are not valid together (${(error as Error).message}): only their pauses are in force`;
      this.options.log.error({ err: (error as Error).message }, 'desk overrides invalid; keeping the pauses');
      settings = resolveSettings(this.options.boot, pausesOnly(ordered));
    }
    this.overrides = overrides;
    this.appliedSeq = headSeq;
    this.apply(settings, since);
    return since;
  }

  private apply(settings: DeskSettings, changes: readonly DeskChange[]): void {
    this.settings = settings;
    this.pairs = livePairs(settings);
    for (const listener of this.listeners) {
      try {
        listener(settings, changes);
      } catch (error) {
        this.options.log.error({ err: (error as Error).message }, 'a desk settings listener failed');
      }
    }
  }
}
