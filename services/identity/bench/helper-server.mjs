// What the bench's helper servers (webhook-receiver.mjs, instant-inference-server.mjs) share: each
// is a plain node:http server in a process of its own that a bench starts and reads its port from.
// `serveForParent(server)` listens on a free loopback port, prints {"port":…} as the first stdout
// line, and stops the server on SIGTERM/SIGINT and when stdin closes (the parent that started it
// has gone away): open connections are closed, and the process exits within 2 s whatever they do.
export function serveForParent(server) {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.close(() => process.exit(0));
    server.closeAllConnections();
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // Flowing, so that its end is seen; a server that reads stdin adds its own 'data' listener.
  process.stdin.resume();
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
}
