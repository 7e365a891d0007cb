// The service's V8 inspector, for row 4: a full garbage collection before each memory sample, so RSS
// shows what the service retains and not how much garbage V8 happened to leave uncollected (which at a
// few thousand trades outweighs the trades themselves).
import WebSocket from 'ws';

export class Inspector {
  private nextId = 0;

  private constructor(private readonly socket: WebSocket) {}

  /** Connects to the inspector a process opened with --inspect=127.0.0.1:<port>. */
  static async connect(port: number): Promise<Inspector> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
      webSocketDebuggerUrl: string;
    }[];
    const url = targets[0]?.webSocketDebuggerUrl;
    if (url === undefined) throw new Error(`no inspector target on port ${port}`);
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new Inspector(socket);
  }

  /** Sends one protocol command and waits for its answer. */
  private call(method: string): Promise<void> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const onMessage = (data: WebSocket.RawData) => {
        const message = JSON.parse(String(data)) as { id?: number; error?: { message: string } };
        if (message.id !== id) return;
        this.socket.off('message', onMessage);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve();
      };
      this.socket.on('message', onMessage);
      this.socket.send(JSON.stringify({ id, method }));
    });
  }

  /** A full, compacting collection (twice: the first one's finalizers can free more). */
  async collectGarbage(): Promise<void> {
    await this.call('HeapProfiler.collectGarbage');
    await this.call('HeapProfiler.collectGarbage');
  }

  close(): void {
    this.socket.close();
  }
}
