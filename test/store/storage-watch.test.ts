// The storage watch: full from the first commit that failed for lack of space until one succeeds a hold after
// the last that failed, probing meanwhile; its listeners hear of the first commit that succeeds after a failure.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { StorageFull, StorageWatch } from '../../src/store/index.ts';

const full = () => new StorageFull('sqlite', 'SQLITE_FULL', 'the disk is full');

describe('the storage watch', () => {
  let probes: number;
  let watch: StorageWatch;

  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
    probes = 0;
    watch = new StorageWatch({
      probe: async () => {
        probes++;
      },
      probeMs: 1_000,
      holdMs: 5_000,
    });
  });
  afterEach(() => {
    watch.stop();
    vi.useRealTimers();
  });

  test('only a lack of space makes the store full; other failures do not', () => {
    watch.failed(new Error('connection reset'));
    expect(watch.full).toBe(false);
    expect(watch.detail).toBe('writes succeed');
    watch.failed(full());
    expect(watch.full).toBe(true);
    expect(watch.detail).toContain('writes fail for lack of space since');
    expect(watch.detail).toContain('the disk is full');
  });

  test('while full it probes; it stays full through a success within the hold, and clears at one after it', () => {
    watch.failed(full());
    vi.advanceTimersByTime(3_000);
    expect(probes).toBe(3);
    watch.committed();
    expect(watch.full).toBe(true);
    expect(watch.fullSeconds).toBe(3);
    // Another failure restarts the hold.
    vi.advanceTimersByTime(1_000);
    watch.failed(full());
    vi.advanceTimersByTime(4_000);
    watch.committed();
    expect(watch.full).toBe(true);
    vi.advanceTimersByTime(1_000);
    watch.committed();
    expect(watch.full).toBe(false);
    expect(watch.fullSeconds).toBe(0);
    // No probe once clear.
    const probed = probes;
    vi.advanceTimersByTime(10_000);
    expect(probes).toBe(probed);
  });

  test('its listeners hear of the first success after a failure, at once and once', () => {
    let heard = 0;
    const stop = watch.onWritable(() => heard++);
    watch.committed();
    expect(heard).toBe(0);
    watch.failed(full());
    watch.committed();
    watch.committed();
    expect(heard).toBe(1);
    expect(watch.full).toBe(true);
    watch.failed(full());
    watch.committed();
    expect(heard).toBe(2);
    stop();
    watch.failed(full());
    watch.committed();
    expect(heard).toBe(2);
  });
});
