// A WebSocket server listening on host:port, for the dev chain's pubsub and the fault proxy's websocket side:
// resolved once it listens; closed and rejected if it cannot (the port taken, say).
import { WebSocketServer } from 'ws';

export async function listenWebSocket(host: string, port: number): Promise<WebSocketServer> {
  const wss = new WebSocketServer({ host, port });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', reject);
  }).catch((e) => {
    wss.close();
    throw e;
  });
  return wss;
}
