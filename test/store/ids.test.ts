// Identifiers of quotes and trades: version 7 UUIDs, ordered by their creation time, random otherwise.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { timeOrderedUuid } from '../../src/store/index.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ms = fc.integer({ min: 0, max: 2 ** 48 - 1 });

describe('timeOrderedUuid', () => {
  test.prop([ms])('is a version 7, RFC 9562 variant UUID whose first 48 bits are the time', (nowMs) => {
    const id = timeOrderedUuid(nowMs);
    expect(id).toMatch(UUID_V7);
    expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(nowMs);
  });

  test.prop([ms, ms])('sorts as its creation times do, as a string', (a, b) => {
    fc.pre(a !== b);
    expect(timeOrderedUuid(a) < timeOrderedUuid(b)).toBe(a < b);
  });

  test('draws its other bits at random: no two alike within one millisecond', () => {
    const now = Date.now();
    const ids = new Set(Array.from({ length: 10_000 }, () => timeOrderedUuid(now)));
    expect(ids.size).toBe(10_000);
  });

  test('stamps the wall clock by default', () => {
    const before = Date.now();
    const id = timeOrderedUuid();
    const stamped = Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Date.now());
  });
});
