// The service's log destination on a full disk: a line stdout refuses (ENOSPC, stdout redirected to a file on
// that disk) is kept, never thrown — pino's own destination throws it out of its write callback, an uncaught
// exception that shut the service down (test/e2e/disk-full.test.ts runs the service so) — and is written, in
// order, once the disk takes it again.
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { logDestination } from '../../src/logging.ts';
import { mountedSmallFs, type SmallFs, smallFsUnavailable } from '../support/small-fs.ts';

const unavailable = smallFsUnavailable();

async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  for (const deadline = Date.now() + ms; !check(); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(unavailable !== null)(
  `the log destination on a full disk${unavailable === null ? '' : ` (skipped: ${unavailable})`}`,
  () => {
    let fs: SmallFs;
    let fd: number;
    beforeAll(() => {
      fs = mountedSmallFs(1);
      fd = openSync(join(fs.path, 'service.log'), 'a');
    });
    afterAll(() => {
      closeSync(fd);
      fs?.unmount();
    });

    test('keeps the lines the disk refuses, throws nothing, and writes them once there is room', async () => {
      const stream = logDestination(fd);
      const refused: string[] = [];
      stream.on('error', (error: NodeJS.ErrnoException) => refused.push(String(error.code)));
      const log = pino({ base: null }, stream);
      log.info('before');
      await until('the first line written', () => readFileSync(join(fs.path, 'service.log'), 'utf8') !== '');
      fs.fill();
      // More than the log file's last page holds (its free part is the file's, full disk or not).
      for (let i = 0; i < 50; i++) log.info({ i, pad: 'x'.repeat(500) }, 'while full');
      await until('the disk to refuse a line', () => refused.length > 0);
      expect(refused[0]).toBe('ENOSPC');
      fs.unfill();
      log.info('after');
      const text = () => readFileSync(join(fs.path, 'service.log'), 'utf8');
      await until('the kept lines written', () => text().includes('"msg":"after"'));
      const lines = text().trim().split('\n');
      expect(lines.filter((line) => line.includes('while full'))).toHaveLength(50);
      expect(lines.map((line) => JSON.parse(line).msg)).toEqual([
        'before',
        ...Array(50).fill('while full'),
        'after',
      ]);
    });
  },
);
