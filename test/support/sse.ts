// An SSE client for tests, on a raw HTTP request over a real socket: frames as they arrive, comments,
// and the raw text for leak checks.
import { request as httpRequest, type IncomingMessage } from 'node:http';

export interface SseFrame {
  id: number;
  event: string;
  data: Json;
}
// biome-ignore lint/suspicious/noExplicitAny: event payloads are read field by field.
export type Json = any;

/** An SSE client on a raw HTTP request: frames as they arrive, and the raw text for leak checks. */
export function openSse(port: number, path: string, headers: Record<string, string> = {}) {
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  let text = '';
  let buffer = '';
  let response: IncomingMessage | undefined;
  let ended = false;
  const req = httpRequest({
    host: '127.0.0.1',
    port,
    path,
    headers: { accept: 'text/event-stream', ...headers },
  });
  const ready = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', (res) => {
      response = res;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        buffer += chunk;
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else {
              const at = line.indexOf(':');
              if (at > 0) fields[line.slice(0, at)] = line.slice(at + 1).trimStart();
            }
          }
          if (fields.data !== undefined) {
            frames.push({ id: Number(fields.id), event: fields.event ?? '', data: JSON.parse(fields.data) });
          }
          cut = buffer.indexOf('\n\n');
        }
      });
      res.on('end', () => {
        ended = true;
      });
      resolve(res);
    });
    req.on('error', reject);
  });
  req.end();
  return {
    frames,
    comments,
    ready,
    get text() {
      return text;
    },
    get ended() {
      return ended;
    },
    get status() {
      return response?.statusCode;
    },
    headers: () => response?.headers ?? {},
    async until(done: () => boolean, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!done()) {
        if (Date.now() > until)
          throw new Error(`timed out with ${frames.length} frames: ${text.slice(-500)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => req.destroy(),
  };
}
