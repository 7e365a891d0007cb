// Single fields of the config file read into values, and the error that names a bad one: every check of
// the config fails with a ConfigError naming its field, so a bad value stops the process with that name.
import { isIP } from 'node:net';
import { type Price, parsePrice } from '../money/index.ts';
import { decodeBase58 } from '../vocabulary/index.ts';

export class ConfigError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`config ${field}: ${problem}`);
    this.name = 'ConfigError';
  }
}

/** Each proxy is an address, a CIDR range, or one of proxy-addr's names for the special ranges. */
export function checkTrustProxy(value: boolean | readonly string[]): boolean | readonly string[] {
  if (typeof value === 'boolean') return value;
  value.forEach((entry, i) => {
    if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return;
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    const bits = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !prefixOk || rest.length > 0) {
      throw new ConfigError(
        `http.trust_proxy[${i}]`,
        'not an IP address, a CIDR range, or loopback/linklocal/uniquelocal',
      );
    }
  });
  return value;
}

/** Named operator tokens: each name and each token once, none the same as operator_token. */
export function checkOperatorTokens(
  single: string | null,
  named: readonly { name: string; token: string }[],
): { name: string; token: string }[] {
  const names = new Set<string>(single === null ? [] : ['operator']);
  const tokens = new Set<string>(single === null ? [] : [single]);
  named.forEach(({ name, token }, i) => {
    if (names.has(name)) throw new ConfigError(`http.operator_tokens[${i}].name`, `'${name}' is taken`);
    if (tokens.has(token)) throw new ConfigError(`http.operator_tokens[${i}].token`, 'used twice');
    names.add(name);
    tokens.add(token);
  });
  return named.map(({ name, token }) => ({ name, token }));
}

export function checkAddress(address: string | null, field: string): string | null {
  if (address === null) return null;
  let bytes: Uint8Array;
  try {
    bytes = decodeBase58(address);
  } catch {
    throw new ConfigError(field, 'not base58');
  }
  if (bytes.length !== 32) throw new ConfigError(field, 'not a 32-byte address');
  return address;
}

/** A decimal USD price, exact. */
export function decimalPrice(text: string, field: string): Price {
  try {
    return parsePrice(text);
  } catch (error) {
    throw new ConfigError(field, (error as Error).message);
  }
}

/** A JSON pointer (/pairs/0/input) as the config's field name (pairs[0].input). */
export function pointerToField(pointer: string): string {
  if (pointer === '') return '(root)';
  return pointer
    .slice(1)
    .split('/')
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
}
