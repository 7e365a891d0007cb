// Big-endian fixed-width fields as every Gateway message lays them out (u32, u64, u256, bytes32), written
// into and read from one byte array by offset. Range errors are GatewayFormatErrors, never silent wraps.

import { formatFail } from './errors.ts';

export const BYTES32 = 32;
const U64_MAX = (1n << 64n) - 1n;
const U256_MAX = (1n << 256n) - 1n;

/** A fresh 32-byte array of zeros: the "none" of an address field (destination caller, hook target). */
export const zeroBytes32 = (): Uint8Array => new Uint8Array(BYTES32);

export const isZero = (bytes: Uint8Array): boolean => bytes.every((b) => b === 0);

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Writes fields at fixed offsets of a buffer of known size. */
export class FieldWriter {
  readonly bytes: Uint8Array;
  private readonly view: DataView;

  constructor(length: number) {
    this.bytes = new Uint8Array(length);
    this.view = new DataView(this.bytes.buffer);
  }

  u32(offset: number, value: number, field: string): void {
    if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff) {
      formatFail('out_of_range', `${field} ${value} is not a u32`);
    }
    this.view.setUint32(offset, value, false);
  }

  u64(offset: number, value: bigint, field: string): void {
    if (value < 0n || value > U64_MAX) formatFail('out_of_range', `${field} ${value} is not a u64`);
    this.view.setBigUint64(offset, value, false);
  }

  u256(offset: number, value: bigint, field: string): void {
    if (value < 0n || value > U256_MAX) formatFail('out_of_range', `${field} ${value} is not a u256`);
    for (let i = 0; i < 4; i++) {
      this.view.setBigUint64(offset + 8 * i, (value >> BigInt(64 * (3 - i))) & U64_MAX, false);
    }
  }

  bytes32(offset: number, value: Uint8Array, field: string): void {
    if (value.length !== BYTES32) formatFail('out_of_range', `${field} is ${value.length} bytes, not 32`);
    this.bytes.set(value, offset);
  }

  raw(offset: number, value: Uint8Array): void {
    this.bytes.set(value, offset);
  }
}

/** Reads fields at fixed offsets; the caller has checked the length first. Copies, never views. */
export class FieldReader {
  private readonly view: DataView;

  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  u32(offset: number): number {
    return this.view.getUint32(offset, false);
  }

  u64(offset: number): bigint {
    return this.view.getBigUint64(offset, false);
  }

  u256(offset: number): bigint {
    let value = 0n;
    for (let i = 0; i < 4; i++) value = (value << 64n) | this.view.getBigUint64(offset + 8 * i, false);
    return value;
  }

  bytes32(offset: number): Uint8Array {
    return this.bytes.slice(offset, offset + BYTES32);
  }

  slice(offset: number, length: number): Uint8Array {
    return this.bytes.slice(offset, offset + length);
  }
}
