// Base58 (Bitcoin alphabet) for keys and signatures, in 16-bit limbs of plain numbers: five digits per
// pass (58^5 < 2^30, so limb arithmetic stays exact below 2^53). The bs58 package that web3.js uses is
// quadratic in byte-sized steps; a settlement start encodes and decodes a dozen keys, and this is a
// several times cheaper way to do exactly the same.

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;
const CHUNK = 58 ** 5;
const CHUNK_DIGITS = 5;

export function encodeBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // Big-endian 16-bit limbs of the number after the leading zero bytes.
  const length = bytes.length - zeros;
  const limbs: number[] = [];
  for (let i = length % 2 === 1 ? -1 : 0; i < length; i += 2) {
    const high = i < 0 ? 0 : (bytes[zeros + i] as number);
    limbs.push(high * 256 + (bytes[zeros + i + 1] as number));
  }
  let out = '';
  let start = 0;
  while (start < limbs.length) {
    // One pass: limbs ← limbs ÷ 58^5, remainder → five digits.
    let remainder = 0;
    for (let i = start; i < limbs.length; i++) {
      const value = remainder * 65536 + (limbs[i] as number);
      const quotient = Math.floor(value / CHUNK);
      remainder = value - quotient * CHUNK;
      limbs[i] = quotient;
    }
    while (start < limbs.length && limbs[start] === 0) start++;
    for (let d = 0; d < CHUNK_DIGITS; d++) {
      if (start >= limbs.length && remainder === 0) break;
      const digit = remainder % 58;
      remainder = (remainder - digit) / 58;
      out = ALPHABET[digit] + out;
    }
  }
  return '1'.repeat(zeros) + out;
}

/** Throws on a character outside the alphabet. */
export function decodeBase58(text: string): Uint8Array {
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49) zeros++; // '1'
  // Little-endian 16-bit limbs, grown as needed.
  const limbs: number[] = [];
  const multiplyAdd = (factor: number, addend: number) => {
    let carry = addend;
    for (let i = 0; i < limbs.length; i++) {
      const value = (limbs[i] as number) * factor + carry;
      carry = Math.floor(value / 65536);
      limbs[i] = value - carry * 65536;
    }
    while (carry > 0) {
      limbs.push(carry % 65536);
      carry = Math.floor(carry / 65536);
    }
  };
  let i = zeros;
  while (i < text.length) {
    const take = Math.min(CHUNK_DIGITS, text.length - i);
    let chunk = 0;
    for (let k = 0; k < take; k++) {
      const code = text.charCodeAt(i + k);
      const digit = code < 128 ? (DIGIT[code] as number) : -1;
      if (digit < 0) throw new Error(`not base58: ${JSON.stringify(text[i + k])}`);
      chunk = chunk * 58 + digit;
    }
    multiplyAdd(58 ** take, chunk);
    i += take;
  }
  const body: number[] = [];
  for (let k = limbs.length - 1; k >= 0; k--) {
    const limb = limbs[k] as number;
    body.push(limb >> 8, limb & 255);
  }
  let skip = 0;
  while (skip < body.length && body[skip] === 0) skip++;
  const out = new Uint8Array(zeros + body.length - skip);
  out.set(body.slice(skip), zeros);
  return out;
}
