// The packager, without a compiler: a hand-assembled relocatable object exercises every relocation
// rule and runs in litesvm; the committed program's layout is checked field by field. Byte-for-byte
// reproduction of programs/htlc/htlc.so from the C source needs clang-14 and lives in
// `npm run check:program` (CI), so this suite stays independent of clang.

import { address } from '@solana/kit';
import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { KNOWN_SYSCALLS, linkSbpf, SbpfLinkError } from '../../programs/build/sbpf-link.ts';
import { loadHtlcProgram } from '../../src/chain/htlc/index.ts';
import { HtlcChain } from './harness.ts';

// --- A tiny ELF64 relocatable writer, enough for a few sections, symbols and REL relocations.

interface ObjSection {
  name: string;
  type: number;
  flags: number;
  data: Uint8Array;
  link?: number;
  info?: number;
  entsize?: number;
  align?: number;
}
interface ObjSymbol {
  name: string;
  info: number;
  shndx: number;
  value?: number;
}

function writeObject(
  sections: ObjSection[],
  symbols: ObjSymbol[],
  relocs: Record<string, [number, number, number][]>,
): Uint8Array {
  const enc = new TextEncoder();
  const strtab: number[] = [0];
  const symData = new Uint8Array((symbols.length + 1) * 24);
  const sv = new DataView(symData.buffer);
  symbols.forEach((s, i) => {
    const o = (i + 1) * 24;
    sv.setUint32(o, s.name ? strtab.length : 0, true);
    if (s.name) strtab.push(...enc.encode(s.name), 0);
    sv.setUint8(o + 4, s.info);
    sv.setUint16(o + 6, s.shndx, true);
    sv.setBigUint64(o + 8, BigInt(s.value ?? 0), true);
  });
  const all: ObjSection[] = [...sections];
  for (const [target, list] of Object.entries(relocs)) {
    const data = new Uint8Array(list.length * 16);
    const dv = new DataView(data.buffer);
    list.forEach(([offset, sym, type], i) => {
      dv.setBigUint64(i * 16, BigInt(offset), true);
      dv.setBigUint64(i * 16 + 8, (BigInt(sym) << 32n) | BigInt(type), true);
    });
    const info = sections.findIndex((s) => s.name === target) + 1;
    all.push({
      name: `.rel${target}`,
      type: 9,
      flags: 0,
      data,
      link: sections.length + Object.keys(relocs).length + 1,
      info,
      entsize: 16,
    });
  }
  const symtabIndex = all.length + 1;
  all.push({
    name: '.symtab',
    type: 2,
    flags: 0,
    data: symData,
    link: symtabIndex + 1,
    info: 1,
    entsize: 24,
  });
  all.push({ name: '.strtab', type: 3, flags: 0, data: new Uint8Array(strtab) });
  const shstr: number[] = [0];
  const nameOffsets = all.map((s) => {
    const off = shstr.length;
    shstr.push(...enc.encode(s.name), 0);
    return off;
  });
  const shstrName = shstr.length;
  shstr.push(...enc.encode('.shstrtab'), 0);
  all.push({ name: '.shstrtab', type: 3, flags: 0, data: new Uint8Array(shstr) });
  nameOffsets.push(shstrName);

  let cursor = 64;
  const offsets = all.map((s) => {
    cursor = Math.ceil(cursor / 8) * 8;
    const at = cursor;
    cursor += s.data.length;
    return at;
  });
  const shoff = Math.ceil(cursor / 8) * 8;
  const out = new Uint8Array(shoff + (all.length + 1) * 64);
  const v = new DataView(out.buffer);
  out.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1], 0);
  v.setUint16(16, 1, true);
  v.setUint16(18, 247, true);
  v.setUint32(20, 1, true);
  v.setBigUint64(40, BigInt(shoff), true);
  v.setUint16(52, 64, true);
  v.setUint16(58, 64, true);
  v.setUint16(60, all.length + 1, true);
  v.setUint16(62, all.length, true);
  all.forEach((s, i) => {
    out.set(s.data, offsets[i] ?? 0);
    const o = shoff + (i + 1) * 64;
    v.setUint32(o, nameOffsets[i] ?? 0, true);
    v.setUint32(o + 4, s.type, true);
    v.setBigUint64(o + 8, BigInt(s.flags), true);
    v.setBigUint64(o + 24, BigInt(offsets[i] ?? 0), true);
    v.setBigUint64(o + 32, BigInt(s.data.length), true);
    v.setUint32(o + 40, s.link ?? 0, true);
    v.setUint32(o + 44, s.info ?? 0, true);
    v.setBigUint64(o + 48, BigInt(s.align ?? 8), true);
    v.setBigUint64(o + 56, BigInt(s.entsize ?? 0), true);
  });
  return out;
}

function insn(opcode: number, dst: number, src: number, off: number, imm: number): number[] {
  const b = new Uint8Array(8);
  const v = new DataView(b.buffer);
  v.setUint8(0, opcode);
  v.setUint8(1, (src << 4) | dst);
  v.setInt16(2, off, true);
  v.setInt32(4, imm, true);
  return [...b];
}

const STT_SECTION = 3;
const GLOBAL_FUNC = (1 << 4) | 2;
const GLOBAL_NOTYPE = 1 << 4;

/**
 * entrypoint: lddw r1, "hello" (R_BPF_64_64 against .rodata); r2 = 5; call sol_log_ (syscall);
 * call helper (R_BPF_64_32 against the .text section symbol); exit. helper: r0 = 42; exit.
 * The program therefore logs "hello" and fails with Custom(42) — only if all three relocations work.
 */
function helloObject(options: { syscall?: string; writable?: boolean } = {}): Uint8Array {
  const text = new Uint8Array([
    ...insn(0x18, 1, 0, 0, 0), // lddw r1, .rodata + 0
    ...insn(0x00, 0, 0, 0, 0),
    ...insn(0xb7, 2, 0, 0, 5), // mov64 r2, 5
    ...insn(0x85, 0, 0, 0, -1), // call sol_log_
    ...insn(0x85, 0, 0, 0, 48 / 8 - 1), // call helper (LLVM 14 REL form: slot - 1)
    ...insn(0x95, 0, 0, 0, 0), // exit
    ...insn(0xb7, 0, 0, 0, 42), // helper: mov64 r0, 42
    ...insn(0x95, 0, 0, 0, 0), // exit
  ]);
  const sections: ObjSection[] = [
    { name: '.text', type: 1, flags: 0x6, data: text },
    { name: '.rodata', type: 1, flags: 0x2, data: new TextEncoder().encode('hello') },
  ];
  if (options.writable) sections.push({ name: '.data', type: 1, flags: 0x3, data: new Uint8Array(8) });
  return writeObject(
    sections,
    [
      { name: '', info: STT_SECTION, shndx: 1 },
      { name: '', info: STT_SECTION, shndx: 2 },
      { name: 'entrypoint', info: GLOBAL_FUNC, shndx: 1, value: 0 },
      { name: options.syscall ?? 'sol_log_', info: GLOBAL_NOTYPE, shndx: 0 },
    ],
    {
      '.text': [
        [0, 2, 1],
        [24, 4, 10],
        [32, 1, 10],
      ],
    },
  );
}

describe('sbpf packager', () => {
  it('links lddw, syscall and local-call relocations into a program litesvm runs', () => {
    const { so, syscalls } = linkSbpf(helloObject());
    expect(syscalls).toEqual(['sol_log_']);
    const chain = new HtlcChain();
    const programId = PublicKey.unique();
    chain.svm.addProgram(address(programId.toBase58()), so);
    const payer = chain.wallet();
    const outcome = chain.send(
      [new TransactionInstruction({ programId, keys: [], data: Buffer.alloc(0) })],
      [payer],
    );
    expect(outcome.logs).toContain('Program log: hello');
    expect(outcome.error).toBe('Custom(42)');
  });

  it('is deterministic', () => {
    expect(Buffer.from(linkSbpf(helloObject()).so)).toEqual(Buffer.from(linkSbpf(helloObject()).so));
  });

  it('refuses calls to functions that are not syscalls, naming the fix', () => {
    expect(() => linkSbpf(helloObject({ syscall: 'memcpy' }))).toThrow(/memcpy.*not a known syscall/);
  });

  it('refuses writable globals', () => {
    expect(() => linkSbpf(helloObject({ writable: true }))).toThrow(SbpfLinkError);
  });

  it('the committed htlc.so has the layout the loader accepts', () => {
    const so = loadHtlcProgram();
    const v = new DataView(so.buffer, so.byteOffset, so.byteLength);
    expect(v.getUint32(0, false)).toBe(0x7f454c46);
    expect(v.getUint16(16, true)).toBe(3); // ET_DYN
    expect(v.getUint16(18, true)).toBe(247); // EM_BPF
    expect(v.getUint32(48, true)).toBe(0); // e_flags: SBPF v0
    const shoff = Number(v.getBigUint64(40, true));
    const shnum = v.getUint16(60, true);
    const shstr = shoff + v.getUint16(62, true) * 64;
    const shstrOffset = Number(v.getBigUint64(shstr + 24, true));
    const names: string[] = [];
    let text = { addr: 0, offset: 0, size: 0 };
    for (let i = 1; i < shnum; i++) {
      const o = shoff + i * 64;
      let end = shstrOffset + v.getUint32(o, true);
      const start = end;
      while (so[end] !== 0) end++;
      const name = new TextDecoder().decode(so.subarray(start, end));
      names.push(name);
      const addr = Number(v.getBigUint64(o + 16, true));
      const offset = Number(v.getBigUint64(o + 24, true));
      if (name !== '.shstrtab') expect(addr, `${name} vaddr == offset`).toBe(offset);
      if (name === '.text') text = { addr, offset, size: Number(v.getBigUint64(o + 32, true)) };
    }
    expect(names).toEqual(['.text', '.rodata', '.dynamic', '.dynsym', '.dynstr', '.rel.dyn', '.shstrtab']);
    const entry = Number(v.getBigUint64(24, true));
    expect(entry).toBeGreaterThanOrEqual(text.addr);
    expect(entry).toBeLessThan(text.addr + text.size);
    const dynstr = new TextDecoder().decode(so).match(/sol_[a-z0-9_]+/g) ?? [];
    for (const name of dynstr) expect(KNOWN_SYSCALLS).toContain(name);
  });
});
