// Builds programs/htlc/htlc.so: clang-14 compiles the C to a BPF relocatable object, then our own
// packager (sbpf-link.ts) writes the SBPF v0 shared object.
//   npm run build:program          rebuild and write the committed .so
//   npm run check:program          rebuild into a temp file; exit 1 if it differs from the committed .so

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { linkSbpf } from './sbpf-link.ts';

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

const programDir = fileURLToPath(new URL('../htlc/', import.meta.url));
export const SOURCE = join(programDir, 'htlc.c');
export const OUTPUT = join(programDir, 'htlc.so');

export function clangVersion(): string {
  try {
    return execFileSync(CLANG, ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? '';
  } catch {
    throw new Error(
      `${CLANG} not found. Install it with: apt-get install -y clang-14 (Debian bookworm: apt-get install -y clang)`,
    );
  }
}

/** Compiles and packages the program; returns the .so bytes. */
export function buildProgram(): { so: Uint8Array; version: string; syscalls: string[] } {
  const version = clangVersion();
  const dir = mkdtempSync(join(tmpdir(), 'htlc-build-'));
  try {
    const object = join(dir, 'htlc.o');
    // Compile from the program folder with a relative name so nothing machine-specific enters the object.
    execFileSync(CLANG, [...CLANG_FLAGS, '-c', 'htlc.c', '-o', object], {
      cwd: programDir,
      stdio: 'inherit',
    });
    const report = linkSbpf(new Uint8Array(readFileSync(object)));
    return { so: report.so, version, syscalls: report.syscalls };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function main() {
  const check = process.argv.includes('--check');
  const { so, version, syscalls } = buildProgram();
  console.log(`compiler: ${version}`);
  console.log(`syscalls: ${syscalls.join(', ')}`);
  if (!check) {
    writeFileSync(OUTPUT, so);
    console.log(`wrote ${OUTPUT} (${so.length} bytes)`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'htlc-check-'));
  try {
    const rebuilt = join(dir, 'htlc.so');
    writeFileSync(rebuilt, so);
    const committed = new Uint8Array(readFileSync(OUTPUT));
    if (Buffer.compare(Buffer.from(committed), Buffer.from(readFileSync(rebuilt))) !== 0) {
      console.error(
        `programs/htlc/htlc.so is stale: rebuilt ${so.length} bytes differ from the committed ${committed.length}.`,
      );
      console.error('Run `npm run build:program` and commit the result.');
      process.exitCode = 1;
      return;
    }
    console.log(`programs/htlc/htlc.so matches the source (${so.length} bytes)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
