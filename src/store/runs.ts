// Runs: one start of one service process each, as the store records them. Whether a run owns its trades
// implicitly (one instance) or by a lease (several) is the engine's shape (port.ts), which src/cluster/ alone
// drives; this is what both shapes answer, and the write the storage watch probes the disk with.
import type { RunRecord } from './records.ts';

export type RunWrite =
  /**
   * A write that changes nothing anyone reads (the run's row of store_probes): while the disk is full, the
   * storage watch (storage-full.ts) asks with it whether the store takes writes again.
   */
  { kind: 'probe'; runId: string; at: string };

export interface RunsRepository {
  /** Marks the run stopped (and ends its lease, where it has one): its unclosed trades are free at once. */
  stopRun(runId: string, stoppedAt: string): Promise<void>;
  /**
   * Marks stopped (lease ended) every other unstopped run that advertised `url`, and answers how many: a
   * run calls it once it listens at url, which proves their processes are gone — a live one, even frozen,
   * would still hold the address. So a crashed instance restarted in place takes its trades back at once
   * instead of a lease later. (ADVERTISE_URL must be unique per instance; the fence keeps even a
   * misconfigured pair safe.)
   */
  retireRuns(url: string, runId: string, stoppedAt: string): Promise<number>;
  /** Every run of every instance, oldest first. */
  listRuns(): Promise<RunRecord[]>;
}
