import { Writable } from 'node:stream';
import pino from 'pino';
import { expect, test } from 'vitest';
import { REDACTED_PATHS } from '../../src/logging.ts';

test('secrets never reach a log line', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = pino({ redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
  const secret = 'ab'.repeat(32);
  log.info(
    {
      trade: { secret_hash: secret, preimage: secret, secretHash: secret },
      req: { headers: { authorization: `Bearer ${secret}` } },
    },
    'x',
  );
  expect(lines.join('')).not.toContain(secret);
  expect(lines.join('')).toContain('[redacted]');
});
