// The answers' JSON: bigints are written as exact integers, everything else as JSON.stringify writes it.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { stringifyJson } from '../../src/http/json.ts';

/** What the serializer must write, spelled out by walking the value (its earlier, slower implementation). */
function reference(value: unknown): string {
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value))
        return `[${value.map((item) => (item === undefined ? 'null' : reference(item))).join(',')}]`;
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      const parts: string[] = [];
      for (const [key, item] of Object.entries(value)) {
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        parts.push(`${JSON.stringify(key)}:${reference(item)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      return 'null';
  }
}

const { value: answerLike } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.bigInt(),
    fc.string({ unit: 'binary' }),
    // Strings made to look like a tagged bigint, without the process's random tag.
    fc.bigInt().map((n) => `\u0000${'0'.repeat(32)}:${n}`),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string(), tie('value'), { maxKeys: 4 }),
  ),
}));

describe('stringifyJson', () => {
  test('writes int64 values exactly, also above 2^53 and below zero', () => {
    expect(stringifyJson({ raw: 2n ** 63n - 1n, loss: -(2n ** 60n), small: 7n })).toBe(
      '{"raw":9223372036854775807,"loss":-1152921504606846976,"small":7}',
    );
  });

  test('leaves out undefined properties and writes dates as ISO strings', () => {
    expect(stringifyJson({ a: undefined, at: new Date(0), list: [undefined, 1n] })).toBe(
      '{"at":"1970-01-01T00:00:00.000Z","list":[null,1]}',
    );
    expect(stringifyJson(undefined)).toBe('null');
  });

  test.prop([answerLike])('writes what walking the value writes, whatever the strings hold', (value) => {
    expect(stringifyJson(value)).toBe(reference(value));
  });
});
