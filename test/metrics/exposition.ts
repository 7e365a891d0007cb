// A strict reader of the Prometheus text format 0.0.4, for tests: every line must parse, every sample must
// belong to a family declared by # TYPE before it, no series may repeat, and histograms must be whole
// (cumulative buckets ending in +Inf, equal to _count). Throws on anything else.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<Family['type'], string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

export function parseExposition(text: string): Map<string, Family> {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  const helps = new Map<string, string>();
  for (const [index, line] of text.split('\n').entries()) {
    const at = `line ${index + 1}: ${line}`;
    if (line === '') continue;
    if (line.startsWith('# HELP ')) {
      const [name, ...rest] = line.slice(7).split(' ');
      if (!name || !NAME.test(name)) throw new Error(`bad HELP name, ${at}`);
      if (helps.has(name)) throw new Error(`HELP repeated, ${at}`);
      helps.set(name, unescapeHelp(rest.join(' ')));
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const [name, type, extra] = line.slice(7).split(' ');
      if (!name || !NAME.test(name) || !type || !TYPES.has(type) || extra !== undefined)
        throw new Error(`bad TYPE, ${at}`);
      if (families.has(name)) throw new Error(`TYPE repeated, ${at}`);
      families.set(name, { name, type: type as Family['type'], help: helps.get(name) ?? '', samples: [] });
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = parseSample(line, at);
    const family = familyOf(sample.name, families);
    if (!family) throw new Error(`sample of an undeclared family, ${at}`);
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seen.has(key)) throw new Error(`series repeated, ${at}`);
    seen.add(key);
    family.samples.push(sample);
  }
  for (const family of families.values()) {
    if (family.type === 'histogram') checkHistogram(family);
    if (!helps.has(family.name)) throw new Error(`${family.name} has no HELP`);
  }
  return families;
}

function familyOf(sampleName: string, families: Map<string, Family>): Family | undefined {
  for (const family of families.values()) {
    for (const suffix of SUFFIXES[family.type]) {
      if (sampleName === family.name + suffix) return family;
    }
  }
  return undefined;
}

function parseSample(line: string, at: string): Sample {
  const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)( -?\d+)?$/.exec(line);
  if (!match) throw new Error(`not a sample, ${at}`);
  const [, name, labelText, valueText] = match as unknown as [string, string, string | undefined, string];
  return { name, labels: labelText ? parseLabels(labelText, at) : {}, value: parseValue(valueText, at) };
}

function parseLabels(text: string, at: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 1;
  while (i < text.length - 1) {
    const eq = text.indexOf('=', i);
    const name = text.slice(i, eq);
    if (eq < 0 || !LABEL_NAME.test(name) || text[eq + 1] !== '"') throw new Error(`bad label, ${at}`);
    if (name in labels) throw new Error(`label repeated, ${at}`);
    let value = '';
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\\') {
        const next = text[++j];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`bad escape in a label value, ${at}`);
      } else value += text[j];
    }
    if (text[j] !== '"') throw new Error(`unterminated label value, ${at}`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (i !== text.length - 1) throw new Error(`bad label list, ${at}`);
  }
  return labels;
}

/** A float as Go's ParseFloat reads it (Prometheus does): NaN and infinities in any case (prom-client writes Nan). */
function parseValue(text: string, at: string): number {
  if (/^\+?inf(inity)?$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-inf(inity)?$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (/^nan$/i.test(text)) return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value, ${at}`);
  return Number(text);
}

const unescapeHelp = (text: string) => text.replace(/\\(n|\\)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));

/** Buckets per series cumulative and ending in +Inf, which equals _count. */
function checkHistogram(family: Family): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  const keyOf = (labels: Record<string, string>) =>
    JSON.stringify(
      Object.entries(labels)
        .filter(([k]) => k !== 'le')
        .sort(),
    );
  for (const sample of family.samples) {
    const entry = series.get(keyOf(sample.labels)) ?? { buckets: [] };
    series.set(keyOf(sample.labels), entry);
    if (sample.name.endsWith('_bucket')) {
      const le = sample.labels.le;
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      entry.buckets.push([le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), sample.value]);
    } else if (sample.name.endsWith('_count')) entry.count = sample.value;
  }
  for (const [key, { buckets, count }] of series) {
    const last = buckets.at(-1);
    if (!last || last[0] !== Number.POSITIVE_INFINITY || last[1] !== count)
      throw new Error(`${family.name}${key}: the +Inf bucket is not _count`);
    for (let i = 1; i < buckets.length; i++) {
      const [le, value] = buckets[i] as [number, number];
      const [prevLe, prevValue] = buckets[i - 1] as [number, number];
      if (le <= prevLe || value < prevValue) throw new Error(`${family.name}${key}: buckets not cumulative`);
    }
  }
}

/** The value of the one sample with exactly these labels (a subset match must be unique), else undefined. */
export function sampleValue(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const family = familyOf(name, families);
  const matches = (family?.samples ?? []).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (matches.length > 1)
    throw new Error(`${name} ${JSON.stringify(labels)} matches ${matches.length} series`);
  return matches[0]?.value;
}
