// Loopback helpers shared by the scripts, the benches and the tests that start servers of their own.
import { createServer } from 'node:net';

/** Binds port on 127.0.0.1 (0: any) and answers the port bound and how to release it. */
function bind(port: number): Promise<{ port: number; release: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      if (typeof address !== 'object' || !address) return reject(new Error('no port'));
      resolve({ port: address.port, release: () => new Promise<void>((done) => server.close(() => done())) });
    });
  });
}

/** A TCP port free on 127.0.0.1 right now (bound, read and released). */
export async function freePort(): Promise<number> {
  const bound = await bind(0);
  await bound.release();
  return bound.port;
}

/**
 * A TCP port free on 127.0.0.1 right now whose next port is free too, for a server that takes port and
 * port + 1 (a Solana RPC and its websocket). An ephemeral port's neighbour is often some outgoing
 * connection's, so a pair is looked for, not assumed.
 */
export async function freePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = await bind(0);
    const second = await bind(first.port + 1).catch(() => null);
    await first.release();
    if (second) {
      await second.release();
      return first.port;
    }
  }
  throw new Error('no two free neighbouring ports on 127.0.0.1 in 50 tries');
}

/** Whether a GET of url answers 200 within 5 s (anything else, or nothing, is false). */
export async function answers200(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}
