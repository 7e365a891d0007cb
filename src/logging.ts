// pino settings: JSON lines with request ids, readable when stdout is a terminal, secrets redacted.
import type { FastifyServerOptions } from 'fastify';

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

export function loggerOptions(): FastifyServerOptions['logger'] {
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
      : {}),
  };
}
