// Packager: turns clang's relocatable BPF object (ELF64 ET_REL) into the SBPF v0 shared object the
// Solana loader accepts, because ld.lld cannot link BPF objects for this. The output layout and the
// relocation rules are the ones recorded in notes/onchain-program-with-stock-clang.md:
//   - every placed section has virtual address == file offset; .text then .rodata in one R+X PT_LOAD;
//   - R_BPF_64_64 on lddw: resolved here to the absolute address 0x1_0000_0000 + target offset;
//   - R_BPF_64_32 on a call to a function of the object: resolved here to a pc-relative immediate;
//   - R_BPF_64_32 on a call to an undefined symbol (a syscall): immediate -1 plus a dynamic
//     R_BPF_64_32 relocation against an undefined GLOBAL NOTYPE .dynsym entry of that name.
// Pure function of its input bytes, so the build is deterministic.

export const EM_BPF = 247;
/** Where the loader maps the ELF bytes; lddw immediates hold absolute addresses in this region. */
export const MM_PROGRAM_START = 0x1_0000_0000n;

export const R_BPF_64_64 = 1;
export const R_BPF_64_32 = 10;

const ET_REL = 1;
const ET_DYN = 3;
const SHT_PROGBITS = 1;
const SHT_SYMTAB = 2;
const SHT_STRTAB = 3;
const SHT_NOBITS = 8;
const SHT_REL = 9;
const SHT_DYNAMIC = 6;
const SHT_DYNSYM = 11;
const SHF_WRITE = 0x1;
const SHF_ALLOC = 0x2;
const SHF_EXECINSTR = 0x4;
const SHN_UNDEF = 0;
const STT_NOTYPE = 0;
const STT_FUNC = 2;
const STB_GLOBAL = 1;
const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const PF_X = 1;
const PF_W = 2;
const PF_R = 4;
const DT_NULL = 0;
const DT_STRTAB = 5;
const DT_SYMTAB = 6;
const DT_STRSZ = 10;
const DT_SYMENT = 11;
const DT_REL = 17;
const DT_RELSZ = 18;
const DT_RELENT = 19;
const DT_TEXTREL = 22;
const DT_FLAGS = 30;
const DF_TEXTREL = 4;

const OPCODE_LDDW = 0x18;
const OPCODE_CALL = 0x85;

/** The syscalls the loader knows; an undefined symbol outside this list is a link error (e.g. memcpy). */
export const KNOWN_SYSCALLS: readonly string[] = [
  'abort',
  'sol_panic_',
  'sol_log_',
  'sol_log_64_',
  'sol_log_compute_units_',
  'sol_log_pubkey',
  'sol_log_data',
  'sol_create_program_address',
  'sol_try_find_program_address',
  'sol_sha256',
  'sol_keccak256',
  'sol_blake3',
  'sol_secp256k1_recover',
  'sol_get_clock_sysvar',
  'sol_get_rent_sysvar',
  'sol_get_epoch_schedule_sysvar',
  'sol_memcpy_',
  'sol_memmove_',
  'sol_memset_',
  'sol_memcmp_',
  'sol_invoke_signed_c',
  'sol_invoke_signed_rust',
  'sol_set_return_data',
  'sol_get_return_data',
  'sol_get_stack_height',
  'sol_remaining_compute_units',
];

export class SbpfLinkError extends Error {
  override name = 'SbpfLinkError';
}

interface Section {
  index: number;
  name: string;
  type: number;
  flags: bigint;
  offset: number;
  size: number;
  link: number;
  info: number;
  align: number;
  entsize: number;
}

interface SymbolEntry {
  name: string;
  info: number;
  shndx: number;
  value: number;
}

interface ObjectFile {
  bytes: Uint8Array;
  view: DataView;
  sections: Section[];
  symbols: SymbolEntry[];
}

const align = (n: number, to: number) => (to <= 1 ? n : Math.ceil(n / to) * to);

function cString(bytes: Uint8Array, offset: number): string {
  let end = offset;
  while (end < bytes.length && bytes[end] !== 0) end++;
  return new TextDecoder().decode(bytes.subarray(offset, end));
}

/** Reads the parts of an ELF64 little-endian BPF relocatable object the packager needs. */
export function readObject(bytes: Uint8Array): ObjectFile {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 64 || view.getUint32(0, false) !== 0x7f454c46)
    throw new SbpfLinkError('not an ELF file');
  if (bytes[4] !== 2 || bytes[5] !== 1) throw new SbpfLinkError('expected ELF64 little-endian');
  if (view.getUint16(16, true) !== ET_REL) throw new SbpfLinkError('expected a relocatable object (ET_REL)');
  if (view.getUint16(18, true) !== EM_BPF) throw new SbpfLinkError('expected e_machine EM_BPF (247)');
  const shoff = Number(view.getBigUint64(40, true));
  const shentsize = view.getUint16(58, true);
  const shnum = view.getUint16(60, true);
  const shstrndx = view.getUint16(62, true);
  const raw: Omit<Section, 'name'>[] & { nameOffset?: number }[] = [];
  const nameOffsets: number[] = [];
  for (let i = 0; i < shnum; i++) {
    const base = shoff + i * shentsize;
    nameOffsets.push(view.getUint32(base, true));
    raw.push({
      index: i,
      type: view.getUint32(base + 4, true),
      flags: view.getBigUint64(base + 8, true),
      offset: Number(view.getBigUint64(base + 24, true)),
      size: Number(view.getBigUint64(base + 32, true)),
      link: view.getUint32(base + 40, true),
      info: view.getUint32(base + 44, true),
      align: Number(view.getBigUint64(base + 48, true)),
      entsize: Number(view.getBigUint64(base + 56, true)),
    });
  }
  const shstr = raw[shstrndx];
  if (!shstr) throw new SbpfLinkError('missing section name table');
  const sections: Section[] = raw.map((s, i) => ({
    ...s,
    name: cString(bytes, shstr.offset + (nameOffsets[i] ?? 0)),
  }));
  const symtab = sections.find((s) => s.type === SHT_SYMTAB);
  const symbols: SymbolEntry[] = [];
  if (symtab) {
    const strtab = sections[symtab.link];
    if (!strtab) throw new SbpfLinkError('symbol table without string table');
    for (let off = symtab.offset; off < symtab.offset + symtab.size; off += 24) {
      symbols.push({
        name: cString(bytes, strtab.offset + view.getUint32(off, true)),
        info: view.getUint8(off + 4),
        shndx: view.getUint16(off + 6, true),
        value: Number(view.getBigUint64(off + 8, true)),
      });
    }
  }
  return { bytes, view, sections, symbols };
}

const isAlloc = (s: Section) => (s.flags & BigInt(SHF_ALLOC)) !== 0n;
const isExec = (s: Section) => (s.flags & BigInt(SHF_EXECINSTR)) !== 0n;
const isWrite = (s: Section) => (s.flags & BigInt(SHF_WRITE)) !== 0n;

/** Growable little-endian byte buffer for the output image. */
class Image {
  bytes = new Uint8Array(1 << 16);
  length = 0;
  private ensure(n: number) {
    if (n <= this.bytes.length) return;
    let size = this.bytes.length;
    while (size < n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes);
    this.bytes = next;
  }
  padTo(offset: number) {
    this.ensure(offset);
    this.length = Math.max(this.length, offset);
  }
  put(offset: number, data: Uint8Array) {
    this.padTo(offset + data.length);
    this.bytes.set(data, offset);
  }
  view() {
    return new DataView(this.bytes.buffer, 0, this.length);
  }
  result() {
    return this.bytes.slice(0, this.length);
  }
}

function u16(v: DataView, o: number, x: number) {
  v.setUint16(o, x, true);
}
function u32(v: DataView, o: number, x: number) {
  v.setUint32(o, x >>> 0, true);
}
function u64(v: DataView, o: number, x: number | bigint) {
  v.setBigUint64(o, BigInt(x), true);
}

export interface LinkOptions {
  /** Symbol whose address becomes e_entry. */
  entrypoint?: string;
  /** Undefined symbols allowed as syscalls. */
  syscalls?: readonly string[];
}

export interface LinkReport {
  so: Uint8Array;
  entry: number;
  textSize: number;
  rodataSize: number;
  syscalls: string[];
}

/** Links one BPF relocatable object into an SBPF v0 shared object. */
export function linkSbpf(object: Uint8Array, options: LinkOptions = {}): LinkReport {
  const entryName = options.entrypoint ?? 'entrypoint';
  const allowed = new Set(options.syscalls ?? KNOWN_SYSCALLS);
  const obj = readObject(object);
  refuseWritableData(obj);
  const { texts, rodatas } = loadableSections(obj);

  // ELF header, 3 program headers, then .text, .rodata, the dynamic part, section headers.
  const layout = layOutLoadable(texts, rodatas);
  const image = new Image();
  copyLoadable(image, obj, layout, [...texts, ...rodatas]);
  const { syscalls, dynRelocs } = relocate(image, obj, layout, allowed);
  const entry = entryAddress(obj, layout, entryName);
  const dynamic = writeDynamicPart(image, layout.rodataEnd, entryName, entry, syscalls, dynRelocs);
  const sectionHeaders = writeSectionHeaders(image, layout, dynamic);
  writeProgramHeaders(image, layout, dynamic);
  writeElfHeader(image, entry, sectionHeaders);

  return {
    so: image.result(),
    entry,
    textSize: layout.textEnd - layout.textStart,
    rodataSize: layout.rodataEnd - layout.rodataStart,
    syscalls,
  };
}

/** No writable globals: SBPF v0 has nowhere to put them. */
function refuseWritableData(obj: ObjectFile): void {
  for (const s of obj.sections) {
    if (isAlloc(s) && isWrite(s) && s.size > 0) {
      throw new SbpfLinkError(
        `writable section ${s.name} is not supported (no writable globals; use static const)`,
      );
    }
  }
}

/** The sections that end up in the R+X segment: code, then read-only data. */
function loadableSections(obj: ObjectFile): { texts: Section[]; rodatas: Section[] } {
  const texts = obj.sections.filter((s) => isAlloc(s) && isExec(s) && s.type === SHT_PROGBITS && s.size > 0);
  const rodatas = obj.sections.filter(
    (s) =>
      isAlloc(s) &&
      !isExec(s) &&
      !isWrite(s) &&
      (s.type === SHT_PROGBITS || s.type === SHT_NOBITS) &&
      s.size > 0,
  );
  if (texts.length === 0) throw new SbpfLinkError('object has no code');
  return { texts, rodatas };
}

const PROGRAM_HEADERS = 3;

interface Layout {
  /** Object section index -> output offset (== vaddr). */
  placed: Map<number, number>;
  textStart: number;
  textEnd: number;
  hasRodata: boolean;
  rodataStart: number;
  rodataEnd: number;
}

/** Places .text after the headers and .rodata after it, each section at its alignment. */
function layOutLoadable(texts: Section[], rodatas: Section[]): Layout {
  const placed = new Map<number, number>();
  let cursor = align(64 + PROGRAM_HEADERS * 56, 8);
  const textStart = cursor;
  for (const s of texts) {
    cursor = align(cursor, Math.max(8, s.align));
    placed.set(s.index, cursor);
    cursor += s.size;
  }
  const textEnd = cursor;
  const rodataStart = align(cursor, 8);
  cursor = rodataStart;
  for (const s of rodatas) {
    cursor = align(cursor, Math.max(1, s.align));
    placed.set(s.index, cursor);
    cursor += s.size;
  }
  const hasRodata = rodatas.length > 0;
  const rodataEnd = hasRodata ? cursor : rodataStart;
  return { placed, textStart, textEnd, hasRodata, rodataStart, rodataEnd };
}

function copyLoadable(image: Image, obj: ObjectFile, layout: Layout, sections: Section[]): void {
  for (const s of sections) {
    const at = layout.placed.get(s.index) ?? 0;
    if (s.type === SHT_NOBITS) image.padTo(at + s.size);
    else image.put(at, obj.bytes.subarray(s.offset, s.offset + s.size));
  }
  image.padTo(layout.rodataEnd);
}

interface DynamicRelocation {
  offset: number;
  syscall: string;
}

function addressOf(layout: Layout, sym: SymbolEntry): number {
  const base = layout.placed.get(sym.shndx);
  if (base === undefined)
    throw new SbpfLinkError(`symbol ${sym.name || `#${sym.shndx}`} is in an unplaced section`);
  return base + sym.value;
}

/** Resolves every relocation of the code in place; a call to a syscall leaves a dynamic relocation. */
function relocate(
  image: Image,
  obj: ObjectFile,
  layout: Layout,
  allowed: ReadonlySet<string>,
): { syscalls: string[]; dynRelocs: DynamicRelocation[] } {
  const syscalls: string[] = [];
  const dynRelocs: DynamicRelocation[] = [];
  for (const rel of obj.sections.filter((s) => s.type === SHT_REL)) {
    const target = obj.sections[rel.info];
    if (!target || !isAlloc(target)) continue; // e.g. relocations of debug sections
    if (!isExec(target)) {
      throw new SbpfLinkError(
        `relocations in ${target.name} (data relocations, e.g. pointer tables) are not supported`,
      );
    }
    const targetOut = layout.placed.get(target.index);
    if (targetOut === undefined) continue;
    for (let off = rel.offset; off < rel.offset + rel.size; off += 16) {
      const rOffset = Number(obj.view.getBigUint64(off, true));
      const rInfo = obj.view.getBigUint64(off + 8, true);
      const type = Number(rInfo & 0xffffffffn);
      const sym = obj.symbols[Number(rInfo >> 32n)];
      if (!sym) throw new SbpfLinkError(`relocation at ${rOffset} names a missing symbol`);
      const at = targetOut + rOffset;
      const v = image.view();
      if (type === R_BPF_64_64) {
        resolveLddw(v, at, sym, layout);
      } else if (type === R_BPF_64_32) {
        if (v.getUint8(at) !== OPCODE_CALL) throw new SbpfLinkError(`R_BPF_64_32 at ${at} is not on a call`);
        if (sym.shndx !== SHN_UNDEF) resolveLocalCall(v, at, sym, layout);
        else {
          leaveSyscall(v, at, sym, allowed);
          if (!syscalls.includes(sym.name)) syscalls.push(sym.name);
          dynRelocs.push({ offset: at, syscall: sym.name });
        }
      } else {
        throw new SbpfLinkError(`unsupported relocation type ${type} at ${at} (symbol ${sym.name})`);
      }
    }
  }
  return { syscalls, dynRelocs };
}

/** R_BPF_64_64: the lddw's two immediates become the absolute address of the symbol plus the addend. */
function resolveLddw(v: DataView, at: number, sym: SymbolEntry, layout: Layout): void {
  if (v.getUint8(at) !== OPCODE_LDDW) throw new SbpfLinkError(`R_BPF_64_64 at ${at} is not on an lddw`);
  if (sym.shndx === SHN_UNDEF) throw new SbpfLinkError(`lddw of undefined symbol ${sym.name}`);
  const addend = BigInt(v.getUint32(at + 4, true)) | (BigInt(v.getUint32(at + 12, true)) << 32n);
  const address = MM_PROGRAM_START + BigInt(addressOf(layout, sym)) + addend;
  u32(v, at + 4, Number(address & 0xffffffffn));
  u32(v, at + 12, Number(address >> 32n));
}

/** R_BPF_64_32 on a call to a function of the object: a pc-relative immediate. */
function resolveLocalCall(v: DataView, at: number, sym: SymbolEntry, layout: Layout): void {
  // LLVM 14 REL form: the immediate encodes (target slot - 1) relative to the symbol.
  const imm = v.getInt32(at + 4, true);
  const targetAddress = addressOf(layout, sym) + (imm + 1) * 8;
  const relative = (targetAddress - (at + 8)) / 8;
  if (!Number.isInteger(relative)) throw new SbpfLinkError(`misaligned call target at ${at}`);
  v.setInt32(at + 4, relative, true);
}

/** R_BPF_64_32 on a call to an undefined symbol: immediate -1, for the loader to resolve as a syscall. */
function leaveSyscall(v: DataView, at: number, sym: SymbolEntry, allowed: ReadonlySet<string>): void {
  if (!allowed.has(sym.name)) {
    throw new SbpfLinkError(
      `call to undefined ${sym.name}: not a known syscall (avoid struct copies/libc; map memcpy to sol_memcpy_)`,
    );
  }
  u32(v, at + 4, 0xffffffff);
}

function entryAddress(obj: ObjectFile, layout: Layout, entryName: string): number {
  const entrySym = obj.symbols.find((s) => s.name === entryName && s.shndx !== SHN_UNDEF);
  if (!entrySym) throw new SbpfLinkError(`no ${entryName} symbol`);
  const entry = addressOf(layout, entrySym);
  if (entry < layout.textStart || entry >= layout.textEnd)
    throw new SbpfLinkError(`${entryName} is not in .text`);
  return entry;
}

interface DynamicSymbol {
  name: number;
  info: number;
  shndx: number;
  value: number;
}

/** Where the dynamic part's four tables sit, after .rodata. */
interface DynamicPart {
  hasRel: boolean;
  dynamicOffset: number;
  dynamicSize: number;
  dynsymOffset: number;
  dynsymSize: number;
  dynstrOffset: number;
  dynstrSize: number;
  relDynOffset: number;
  relDynSize: number;
  dynamicEnd: number;
}

/** The null symbol, the entrypoint, then one undefined symbol per syscall, and their string table. */
function dynamicSymbols(entryName: string, entry: number, syscalls: string[]) {
  const dynstrParts: string[] = [''];
  const strOffset = (name: string) => {
    let off = 0;
    for (const p of dynstrParts) {
      if (p === name) return off;
      off += new TextEncoder().encode(p).length + 1;
    }
    dynstrParts.push(name);
    return off;
  };
  const textIndex = 1; // output section index of .text
  const dynsyms: DynamicSymbol[] = [
    { name: 0, info: 0, shndx: 0, value: 0 },
    { name: strOffset(entryName), info: (STB_GLOBAL << 4) | STT_FUNC, shndx: textIndex, value: entry },
  ];
  const syscallSymbol = new Map<string, number>();
  for (const name of syscalls) {
    syscallSymbol.set(name, dynsyms.length);
    dynsyms.push({ name: strOffset(name), info: (STB_GLOBAL << 4) | STT_NOTYPE, shndx: SHN_UNDEF, value: 0 });
  }
  const dynstr = new TextEncoder().encode(`${dynstrParts.join('\0')}\0`);
  return { dynsyms, syscallSymbol, dynstr };
}

/** Writes .dynamic, .dynsym, .dynstr and .rel.dyn after .rodata. */
function writeDynamicPart(
  image: Image,
  rodataEnd: number,
  entryName: string,
  entry: number,
  syscalls: string[],
  dynRelocs: DynamicRelocation[],
): DynamicPart {
  const { dynsyms, syscallSymbol, dynstr } = dynamicSymbols(entryName, entry, syscalls);
  const hasRel = dynRelocs.length > 0;
  const dynamicOffset = align(rodataEnd, 8);
  const dynamicSize = (hasRel ? 10 : 6) * 16;
  const dynsymOffset = dynamicOffset + dynamicSize;
  const dynsymSize = dynsyms.length * 24;
  const dynstrOffset = dynsymOffset + dynsymSize;
  const relDynOffset = align(dynstrOffset + dynstr.length, 8);
  const relDynSize = dynRelocs.length * 16;
  const dynamicEnd = hasRel ? relDynOffset + relDynSize : dynstrOffset + dynstr.length;
  const part: DynamicPart = {
    hasRel,
    dynamicOffset,
    dynamicSize,
    dynsymOffset,
    dynsymSize,
    dynstrOffset,
    dynstrSize: dynstr.length,
    relDynOffset,
    relDynSize,
    dynamicEnd,
  };
  image.padTo(dynamicEnd);
  writeDynamicTable(image.view(), part);
  writeDynamicSymbols(image.view(), dynsymOffset, dynsyms);
  image.put(dynstrOffset, dynstr);
  const v = image.view();
  dynRelocs.forEach((r, i) => {
    const o = relDynOffset + i * 16;
    u64(v, o, r.offset);
    u64(v, o + 8, (BigInt(syscallSymbol.get(r.syscall) ?? 0) << 32n) | BigInt(R_BPF_64_32));
  });
  return part;
}

function writeDynamicTable(v: DataView, part: DynamicPart): void {
  const dyn: [number, number][] = [
    [DT_FLAGS, DF_TEXTREL],
    ...(part.hasRel
      ? ([
          [DT_REL, part.relDynOffset],
          [DT_RELSZ, part.relDynSize],
          [DT_RELENT, 16],
        ] as [number, number][])
      : []),
    [DT_SYMTAB, part.dynsymOffset],
    [DT_SYMENT, 24],
    [DT_STRTAB, part.dynstrOffset],
    [DT_STRSZ, part.dynstrSize],
    ...(part.hasRel ? ([[DT_TEXTREL, 0]] as [number, number][]) : []),
    [DT_NULL, 0],
  ];
  if (dyn.length * 16 !== part.dynamicSize) throw new SbpfLinkError('internal: dynamic table size');
  dyn.forEach(([tag, val], i) => {
    u64(v, part.dynamicOffset + i * 16, tag);
    u64(v, part.dynamicOffset + i * 16 + 8, val);
  });
}

function writeDynamicSymbols(v: DataView, dynsymOffset: number, dynsyms: DynamicSymbol[]): void {
  dynsyms.forEach((s, i) => {
    const o = dynsymOffset + i * 24;
    u32(v, o, s.name);
    v.setUint8(o + 4, s.info);
    v.setUint8(o + 5, 0);
    u16(v, o + 6, s.shndx);
    u64(v, o + 8, s.value);
    u64(v, o + 16, 0);
  });
}

interface OutSection {
  name: string;
  type: number;
  flags: number;
  offset: number;
  size: number;
  link?: number;
  info?: number;
  align: number;
  entsize?: number;
  alloc: boolean;
}

/** The output's sections after the null one: .text, .rodata if any, then the dynamic part's. */
function outputSections(layout: Layout, dynamic: DynamicPart): OutSection[] {
  const out: OutSection[] = [
    {
      name: '.text',
      type: SHT_PROGBITS,
      flags: SHF_ALLOC | SHF_EXECINSTR,
      offset: layout.textStart,
      size: layout.textEnd - layout.textStart,
      align: 8,
      alloc: true,
    },
  ];
  if (layout.hasRodata) {
    out.push({
      name: '.rodata',
      type: SHT_PROGBITS,
      flags: SHF_ALLOC,
      offset: layout.rodataStart,
      size: layout.rodataEnd - layout.rodataStart,
      align: 8,
      alloc: true,
    });
  }
  const dynamicIdx = out.length + 1;
  const dynsymIdx = dynamicIdx + 1;
  const dynstrIdx = dynamicIdx + 2;
  out.push(
    {
      name: '.dynamic',
      type: SHT_DYNAMIC,
      flags: SHF_ALLOC | SHF_WRITE,
      offset: dynamic.dynamicOffset,
      size: dynamic.dynamicSize,
      link: dynstrIdx,
      align: 8,
      entsize: 16,
      alloc: true,
    },
    {
      name: '.dynsym',
      type: SHT_DYNSYM,
      flags: SHF_ALLOC,
      offset: dynamic.dynsymOffset,
      size: dynamic.dynsymSize,
      link: dynstrIdx,
      info: 1,
      align: 8,
      entsize: 24,
      alloc: true,
    },
    {
      name: '.dynstr',
      type: SHT_STRTAB,
      flags: SHF_ALLOC,
      offset: dynamic.dynstrOffset,
      size: dynamic.dynstrSize,
      align: 1,
      alloc: true,
    },
  );
  if (dynamic.hasRel) {
    out.push({
      name: '.rel.dyn',
      type: SHT_REL,
      flags: SHF_ALLOC,
      offset: dynamic.relDynOffset,
      size: dynamic.relDynSize,
      link: dynsymIdx,
      align: 8,
      entsize: 16,
      alloc: true,
    });
  }
  return out;
}

/** Writes .shstrtab after the dynamic part, then the section header table; returns where it is. */
function writeSectionHeaders(
  image: Image,
  layout: Layout,
  dynamic: DynamicPart,
): { shoff: number; shnum: number } {
  const out = outputSections(layout, dynamic);
  const shstrNames = ['', ...out.map((s) => s.name), '.shstrtab'];
  const shstrtab = new TextEncoder().encode(`${shstrNames.join('\0')}\0`);
  const shstrtabOffset = dynamic.dynamicEnd;
  out.push({
    name: '.shstrtab',
    type: SHT_STRTAB,
    flags: 0,
    offset: shstrtabOffset,
    size: shstrtab.length,
    align: 1,
    alloc: false,
  });
  image.put(shstrtabOffset, shstrtab);
  const shoff = align(shstrtabOffset + shstrtab.length, 8);
  const shnum = out.length + 1;
  image.padTo(shoff + shnum * 64);
  const v = image.view();
  let nameCursor = 1;
  out.forEach((s, i) => {
    const o = shoff + (i + 1) * 64;
    u32(v, o, nameCursor);
    nameCursor += new TextEncoder().encode(s.name).length + 1;
    u32(v, o + 4, s.type);
    u64(v, o + 8, s.flags);
    u64(v, o + 16, s.alloc ? s.offset : 0);
    u64(v, o + 24, s.offset);
    u64(v, o + 32, s.size);
    u32(v, o + 40, s.link ?? 0);
    u32(v, o + 44, s.info ?? 0);
    u64(v, o + 48, s.align);
    u64(v, o + 56, s.entsize ?? 0);
  });
  return { shoff, shnum };
}

/** The code and read-only data as one R+X segment, the dynamic part as an R+W one, and PT_DYNAMIC. */
function writeProgramHeaders(image: Image, layout: Layout, dynamic: DynamicPart): void {
  const phdrs: [number, number, number, number][] = [
    [PT_LOAD, PF_R | PF_X, layout.textStart, layout.rodataEnd - layout.textStart],
    [PT_LOAD, PF_R | PF_W, dynamic.dynamicOffset, dynamic.dynamicEnd - dynamic.dynamicOffset],
    [PT_DYNAMIC, PF_R | PF_W, dynamic.dynamicOffset, dynamic.dynamicSize],
  ];
  const v = image.view();
  phdrs.forEach(([type, flags, offset, size], i) => {
    const o = 64 + i * 56;
    u32(v, o, type);
    u32(v, o + 4, flags);
    u64(v, o + 8, offset);
    u64(v, o + 16, offset);
    u64(v, o + 24, offset);
    u64(v, o + 32, size);
    u64(v, o + 40, size);
    u64(v, o + 48, type === PT_LOAD ? 0x1000 : 8);
  });
}

function writeElfHeader(
  image: Image,
  entry: number,
  { shoff, shnum }: { shoff: number; shnum: number },
): void {
  image.put(0, new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
  const v = image.view();
  u16(v, 16, ET_DYN);
  u16(v, 18, EM_BPF);
  u32(v, 20, 1);
  u64(v, 24, entry);
  u64(v, 32, 64);
  u64(v, 40, shoff);
  u32(v, 48, 0);
  u16(v, 52, 64);
  u16(v, 54, 56);
  u16(v, 56, PROGRAM_HEADERS);
  u16(v, 58, 64);
  u16(v, 60, shnum);
  u16(v, 62, shnum - 1);
}
