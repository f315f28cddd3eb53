// The soak's load balancer: a round-robin HTTP proxy in a process of its own (plain node:http),
// spreading requests over the API instances of one service. An upstream that refuses or drops the
// connection answers 502 (the next request goes to the next instance) with X-Soak-Front: upstream-error,
// so the harness counts connection errors apart from 5xx the services themselves sent.
// Usage: node soak/front.mjs <upstream origin>...  (prints {"port":…} first)
import { request as httpRequest, createServer } from 'node:http';
import { serveForParent } from '../services/identity/bench/helper-server.mjs';

const upstreams = process.argv.slice(2).map((origin) => new URL(origin));
let next = 0;

const server = createServer((request, response) => {
  const upstream = upstreams[next++ % upstreams.length];
  const headers = { ...request.headers, 'x-forwarded-for': request.socket.remoteAddress ?? '127.0.0.1' };
  const outgoing = httpRequest({ host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers }, (incoming) => {
    response.writeHead(incoming.statusCode ?? 502, incoming.headers);
    incoming.pipe(response);
    incoming.once('error', () => response.destroy());
    // An upstream killed mid-answer (a live stream) ends the client's response too, so it reconnects.
    incoming.once('close', () => incoming.complete || response.destroy());
  });
  outgoing.once('error', () => {
    if (response.headersSent) {
      response.destroy();
      return;
    }
    response.writeHead(502, { 'x-soak-front': 'upstream-error', 'content-type': 'text/plain' });
    response.end('upstream connection error');
  });
  request.pipe(outgoing);
});
server.keepAliveTimeout = 10_000;
serveForParent(server);
