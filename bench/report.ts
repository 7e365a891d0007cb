// The bench's table: one line per figure, a target where the row has one, and a verdict.
export interface Target {
  op: '≥' | '≤';
  value: number;
  /** The measured value compared against the target. */
  actual: number;
  /** How the target reads in the table, e.g. "≥ 2,000/s". */
  text: string;
}

export interface Line {
  row: string;
  what: string;
  figure: string;
  target?: Target;
  /** A row that could not be measured fails without a target. */
  failed?: boolean;
}

export const met = (t: Target) => (t.op === '≥' ? t.actual >= t.value : t.actual <= t.value);

export const num = (x: number, digits = 0) =>
  Number.isFinite(x)
    ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';
export const ms = (x: number) => `${num(x, x < 10 ? 2 : x < 100 ? 1 : 0)} ms`;
export const ratio = (x: number) => `${num(x, x < 0.1 ? 3 : x < 10 ? 2 : 1)}×`;

export function at(op: Target['op'], value: number, actual: number, text: string): Target {
  return { op, value, actual, text: `${op} ${text}` };
}

export function verdict(line: Line): string {
  if (line.failed) return 'FAILED';
  if (!line.target) return '';
  return met(line.target) ? 'ok' : 'MISSED';
}

export function renderTable(lines: Line[]): string {
  const header = ['row', 'measure', 'figure', 'target', 'verdict'];
  const cells = lines.map((l) => [l.row, l.what, l.figure, l.target?.text ?? '', verdict(l)]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const fmt = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i] as number)).join(' | ')} |`;
  return [fmt(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(fmt)].join('\n');
}

export const failedLines = (lines: Line[]) => lines.filter((l) => l.failed || (l.target && !met(l.target)));
