// The repository explains itself: comments and documents point only at documents inside it, and every
// such pointer — a markdown link, a `docs/<name>.md#anchor` in a comment — leads somewhere that exists.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SOURCE_FOLDERS = ['src', 'machines', 'test', 'bench', 'scripts', 'programs', 'docs', 'ops'];
const TEXT = /\.(ts|mts|mjs|js|c|h|md|yml|yaml)$/;

function walk(folder: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(folder, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    return statSync(path).isDirectory() ? walk(path) : TEXT.test(name) ? [path] : [];
  });
}

const topLevel = readdirSync(ROOT)
  .filter((name) => /^[\w.-]+\.(ts|mts|mjs|md)$/.test(name))
  .map((name) => join(ROOT, name));
const files = [
  ...topLevel,
  join(ROOT, '.ci', 'run'),
  join(ROOT, 'packages', 'taker', 'README.md'),
  ...SOURCE_FOLDERS.flatMap((f) => walk(join(ROOT, f))),
].filter((path) => path !== import.meta.filename);
const read = (path: string) => readFileSync(path, 'utf8');

/** GitHub's heading anchors: lower case, punctuation but `_` and `-` dropped, spaces to hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    anchors.add(
      (heading as string)
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return anchors;
}

/** Where a reference leads, or why it does not. */
function check(target: string, anchor: string | undefined): string | null {
  let isFile: boolean;
  try {
    isFile = statSync(target).isFile();
  } catch {
    return 'no such file';
  }
  if (anchor === undefined || anchor === '' || !isFile || !target.endsWith('.md')) return null;
  return anchorsOf(read(target)).has(anchor) ? null : `no heading #${anchor}`;
}

describe('references stay inside the repository', () => {
  test('no comment or document cites the specification or interface files we were handed', () => {
    const outside = [
      /\bSPEC\b/,
      /\.\.\/shared\//,
      /\bthe seed(['’]s)?\s+(document|interface|envelope|AmountView|TokenAmount|routes?|fields?|kinds?|shape)/i,
      /\bseed\s+(envelope|AmountView|TokenAmount|TradeResponse|field|fields|kind|kinds|routes?|shape)\b/,
    ];
    const hits = files.flatMap((path) =>
      read(path)
        .split('\n')
        .flatMap((line, i) =>
          outside.some((pattern) => pattern.test(line))
            ? [`${relative(ROOT, path)}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(hits).toEqual([]);
  });

  test('every relative link of the README and docs/ leads to a file (and heading) that exists', () => {
    const markdown = files.filter((path) => path.endsWith('.md') && !path.includes(`${join(ROOT, 'test')}`));
    for (const doc of ['README.md', 'docs/operations.md', 'bench/README.md', 'packages/taker/README.md']) {
      expect(markdown).toContain(join(ROOT, doc));
    }
    const broken = markdown.flatMap((path) =>
      [...read(path).matchAll(/\]\(([^)\s]+)\)/g)].flatMap(([, link]) => {
        const href = link as string;
        if (/^[a-z]+:/i.test(href)) return [];
        const [file, anchor] = href.split('#');
        const target = file === '' ? path : resolve(dirname(path), file as string);
        const problem = check(target, anchor);
        return problem ? [`${relative(ROOT, path)} → ${href}: ${problem}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  test('every docs/<name>.md a comment names exists, with the heading it names', () => {
    const broken = files.flatMap((path) =>
      [...read(path).matchAll(/\bdocs\/([\w.-]+\.md)(?:#([\w-]+))?/g)].flatMap(([, name, anchor]) => {
        const problem = check(join(ROOT, 'docs', name as string), anchor);
        return problem
          ? [`${relative(ROOT, path)} → docs/${name}${anchor ? `#${anchor}` : ''}: ${problem}`]
          : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  test('every `npm run <script>` a document names is a script of the package it runs in', () => {
    const scriptsOf = (path: string) =>
      Object.keys((JSON.parse(read(path)) as { scripts?: Record<string, string> }).scripts ?? {});
    const root = scriptsOf(join(ROOT, 'package.json'));
    const taker = scriptsOf(join(ROOT, 'packages', 'taker', 'package.json'));
    const markdown = files.filter((path) => path.endsWith('.md') && !path.includes(`${join(ROOT, 'test')}`));
    const missing = markdown.flatMap((path) =>
      [...read(path).matchAll(/npm run ([\w:-]+)((?:[ \t]+-w[ \t]+\S+)?)/g)].flatMap(
        ([, name, workspace]) => {
          const scripts = workspace?.includes('@rfq-maker/taker') ? taker : root;
          return scripts.includes(name as string)
            ? []
            : [`${relative(ROOT, path)}: npm run ${name}${workspace}`];
        },
      ),
    );
    expect(missing).toEqual([]);
  });
});
