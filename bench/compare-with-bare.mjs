// Shared by the service benches: a service route against a bare Fastify route serving the same
// body, in the same process and run, on loopback, so the ratio cancels out the machine.
// autocannon and Fastify are passed in: they are the calling service's dependencies, not the root's.

/**
 * Warms up, then measures the bare route and the service route for `seconds` each with 10
 * connections. Returns requests per second of both, the service's non-2xx count and p99.
 */
export async function compareWithBare({ autocannon, Fastify, url, headers = {}, seconds }) {
  const run = (target, requestHeaders = {}) => autocannon({ url: target, headers: requestHeaders, connections: 10, duration: seconds });
  const body = await (await fetch(url, { headers })).text();
  const bare = Fastify({ logger: false });
  bare.get('/bare', async (_request, reply) => reply.type('application/json').send(body));
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareUrl = `http://127.0.0.1:${bare.server.address().port}/bare`;
  try {
    await run(bareUrl); // warm-up, both sides share the machine equally afterwards
    const bareResult = await run(bareUrl);
    const serviceResult = await run(url, headers);
    return {
      seconds,
      connections: 10,
      bareRequestsPerSecond: bareResult.requests.average,
      serviceRequestsPerSecond: serviceResult.requests.average,
      serviceNon2xx: serviceResult.non2xx,
      serviceLatencyP99Ms: serviceResult.latency.p99,
      ratio: Number((serviceResult.requests.average / bareResult.requests.average).toFixed(3)),
    };
  } finally {
    await bare.close();
  }
}
