// What every row gets: the run's settings, a scratch folder, and a place for the notes printed under the table.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Line } from './report.ts';

/** Connections of the closed-loop HTTP rows: the load every recorded figure was measured under. */
export const CONNECTIONS = 10;

export interface BenchContext {
  /** BENCH_SECONDS: length of each timed window. */
  seconds: number;
  /** BENCH_TRADES: pending trades of the memory/restart and chain-calls rows. */
  trades: number;
  /** A fresh folder under the run's scratch folder. */
  dir(name: string): string;
  note(text: string): void;
}

export function benchContext(settings: {
  seconds: number;
  trades: number;
  work: string;
  notes: string[];
}): BenchContext {
  return {
    seconds: settings.seconds,
    trades: settings.trades,
    dir(name) {
      const path = join(settings.work, name);
      mkdirSync(path, { recursive: true });
      return path;
    },
    note: (text) => settings.notes.push(text),
  };
}

export interface Row {
  id: string;
  title: string;
  run(ctx: BenchContext): Promise<Line[]>;
}
