import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceMetrics } from './metrics.js';

export interface MetricsServer {
  /** host:port it listens on (port 0 picks a free one). */
  readonly address: AddressInfo;
  close(): Promise<void>;
}

/**
 * GET /metrics on a listener of its own, apart from the public port: the series name routes,
 * queues and limits an outsider has no business seeing, so it is bound to loopback by default
 * and left to the network (or a scraper on the host) to reach. Plain node:http, no Fastify:
 * one route, nothing to validate, and no hooks that would count the scrapes themselves.
 */
export async function startMetricsServer(options: { metrics: ServiceMetrics; port: number; host: string; log?: { warn(object: object, message: string): void } }): Promise<MetricsServer> {
  const { metrics } = options;
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at /metrics\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('Method not allowed\n');
      return;
    }
    metrics.scrape().then(
      (text) => {
        response.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        options.log?.warn({ err: error }, 'metrics scrape failed');
        response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Metrics could not be collected\n');
      },
    );
  });
  // A scraper keeps its connection open between scrapes; close() must not wait for it.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    address: server.address() as AddressInfo,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
