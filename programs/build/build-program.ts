// Builds the on-chain programs (programs/htlc/htlc.so, programs/amm/amm.so, programs/gateway-minter/
// gateway_minter.so, programs/gateway-wallet/gateway_wallet.so): clang-14 compiles each
// program's C to a BPF relocatable object, then our own packager (sbpf-link.ts) writes the SBPF v0
// shared object.
//   npm run build:program                rebuild every program and write the committed .so files
//   npm run check:program                rebuild each into a temp file; exit 1 if any differs from its committed .so
//   … -- --program amm                   only the named program (repeatable)

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { linkSbpf } from './sbpf-link.ts';
import { runWhenInvoked } from './script.ts';

export const CLANG = 'clang-14';
export const CLANG_FLAGS = [
  '-target',
  'bpf',
  '-mcpu=v1',
  '-O2',
  '-fno-builtin',
  '-ffreestanding',
  '-Wall',
  '-Werror',
];

export interface ProgramSource {
  /** The folder under programs/ and the stem of its .c and .so. */
  name: string;
  dir: string;
  source: string;
  output: string;
}

const programsDir = fileURLToPath(new URL('../', import.meta.url));

/** A program in programs/<folder>/<stem>.c; the stem is the folder's name with '-' as '_' (gateway-minter). */
const program = (name: string): ProgramSource => {
  const dir = join(programsDir, name);
  const stem = name.replaceAll('-', '_');
  return { name, dir, source: join(dir, `${stem}.c`), output: join(dir, `${stem}.so`) };
};

/** Every program the repository commits a binary of (shared headers live in programs/common/). */
export const PROGRAMS: readonly ProgramSource[] = [
  program('htlc'),
  program('amm'),
  program('gateway-minter'),
  program('gateway-wallet'),
];

export function clangVersion(): string {
  try {
    return execFileSync(CLANG, ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? '';
  } catch {
    throw new Error(
      `${CLANG} not found. Install it with: apt-get install -y clang-14 (Debian bookworm: apt-get install -y clang)`,
    );
  }
}

/** Compiles and packages one program; returns the .so bytes. */
export function buildProgram(source: ProgramSource = PROGRAMS[0] as ProgramSource): {
  so: Uint8Array;
  version: string;
  syscalls: string[];
} {
  const version = clangVersion();
  const dir = mkdtempSync(join(tmpdir(), `${source.name}-build-`));
  try {
    const object = join(dir, `${source.name}.o`);
    // Compile from the program folder with a relative name so nothing machine-specific enters the object.
    execFileSync(CLANG, [...CLANG_FLAGS, '-c', basename(source.source), '-o', object], {
      cwd: source.dir,
      stdio: 'inherit',
    });
    const report = linkSbpf(new Uint8Array(readFileSync(object)));
    return { so: report.so, version, syscalls: report.syscalls };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Rebuilds and compares with the committed binary; answers whether they are the same bytes. */
function check(source: ProgramSource, so: Uint8Array): boolean {
  const relative = `programs/${source.name}/${basename(source.output)}`;
  let committed: Buffer;
  try {
    committed = readFileSync(source.output);
  } catch {
    console.error(`${relative} is missing: run \`npm run build:program\` and commit the result.`);
    return false;
  }
  if (!committed.equals(Buffer.from(so))) {
    console.error(
      `${relative} is stale: rebuilt ${so.length} bytes differ from the committed ${committed.length}.`,
    );
    console.error('Run `npm run build:program` and commit the result.');
    return false;
  }
  console.log(`${relative} matches the source (${so.length} bytes)`);
  return true;
}

function main() {
  const { values } = parseArgs({
    options: { check: { type: 'boolean', default: false }, program: { type: 'string', multiple: true } },
  });
  const names = values.program ?? PROGRAMS.map((p) => p.name);
  const selected = names.map((name) => {
    const found = PROGRAMS.find((p) => p.name === name);
    if (!found) throw new Error(`no program ${name} (have ${PROGRAMS.map((p) => p.name).join(', ')})`);
    return found;
  });
  console.log(`compiler: ${clangVersion()}`);
  let ok = true;
  for (const source of selected) {
    const { so, syscalls } = buildProgram(source);
    console.log(`${source.name} syscalls: ${syscalls.join(', ')}`);
    if (values.check) {
      ok = check(source, so) && ok;
      continue;
    }
    writeFileSync(source.output, so);
    console.log(`wrote ${source.output} (${so.length} bytes)`);
  }
  if (!ok) process.exitCode = 1;
}

runWhenInvoked(import.meta.url, main);
