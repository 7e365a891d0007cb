// pino settings: JSON lines with request ids, readable when stdout is a terminal, secrets redacted; a line
// that cannot be written is dropped, never the process.
import type { FastifyServerOptions } from 'fastify';
import pino from 'pino';

/** Anything that can move money or unlock an escrow never reaches a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.preimage',
  '*.secret_hash',
  '*.secretHash',
  '*.secretKey',
  '*.operator_token',
  '*.access_token',
];

/** Lines kept in memory while stdout refuses them; past this, new ones are dropped. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/**
 * stdout as pino writes to it, through a stream a failed write cannot stop. pino's own throws the write's
 * error out of its callback (an uncaught exception: the service shuts down), and stdout redirected to a file
 * on a full disk fails every write with ENOSPC — the maker must not miss a redeem because a log line could
 * not be written. Lines are kept (up to 4 MiB, newer ones dropped past that) and written once stdout takes
 * them again.
 */
export function logDestination(fd: number = process.stdout.fd): ReturnType<typeof pino.destination> {
  const stream = pino.destination({ dest: fd, sync: false, maxLength: MAX_BUFFERED_BYTES });
  // Nowhere to say it: stderr is as likely on the same disk, and its writes throw.
  stream.on('error', () => {});
  return stream;
}

export function loggerOptions(stream?: pino.DestinationStream): FastifyServerOptions['logger'] {
  return {
    level: process.env.LOG_LEVEL ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req(request: { method: string; url: string; id: string; ip?: string }) {
        // The operator token may ride in the query string (SSE, the visualiser): never log it.
        return {
          id: request.id,
          method: request.method,
          url: request.url.replace(/([?&]access_token=)[^&]*/g, '$1[redacted]'),
          ip: request.ip,
        };
      },
    },
    ...(process.stdout.isTTY
      ? {
          transport: {
            target: 'pino-pretty',
            options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
          },
        }
      : { stream: stream ?? logDestination() }),
  };
}
