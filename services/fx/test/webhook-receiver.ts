import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  body: Record<string, unknown>;
}

/**
 * A real HTTP receiver on loopback that records every POST and answers with `status`. stop() and
 * start() again keep its port, so a webhook registered with its URL meets an outage and a recovery.
 */
export async function startReceiver() {
  const received: ReceivedWebhook[] = [];
  const state = { status: 200 };
  let server: Server;
  let port = 0;
  const listen = async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const rawBody = Buffer.concat(chunks);
        received.push({ headers: request.headers, rawBody, body: JSON.parse(rawBody.toString('utf8')) as Record<string, unknown> });
        response.writeHead(state.status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };
  // Kept-alive sockets would keep the port answering after close(): drop them too.
  const close = () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections()));
  await listen();
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    respondWith(status: number) {
      state.status = status;
    },
    stop: close,
    start: listen,
    close,
  };
}
