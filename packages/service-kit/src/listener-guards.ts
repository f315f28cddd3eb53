import type { IncomingMessage, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { rawProblemResponse, RequestTimeoutError, replyWithProblem, ShuttingDownError, type ProblemError } from '@svc/problem-json';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { emptyAsUndefined } from './blank-values.js';

const milliseconds = (fallback: number, min: number, max: number) =>
  z.preprocess(
    emptyAsUndefined,
    z.coerce.number({ error: 'must be a number of milliseconds' }).int('must be a whole number of milliseconds').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`).default(fallback),
  );

/**
 * How long the public listener waits for a client, the same names in every service. The
 * defaults let a phone on a slow network send a 50 MB video (10 min at about 85 KB/s) while a
 * client that stops sending is cut after 30 s of silence, whatever it declared.
 */
export function listenerVariables() {
  return {
    /** From connecting to the end of the request headers. */
    HTTP_HEADERS_TIMEOUT_MS: milliseconds(20_000, 100, 600_000),
    /** An idle keep-alive connection between requests; above the usual 60 s of load balancers, so they close first. */
    HTTP_KEEP_ALIVE_TIMEOUT_MS: milliseconds(72_000, 100, 600_000),
    /** A whole request, headers and body, however steadily it arrives. */
    HTTP_REQUEST_TIMEOUT_MS: milliseconds(600_000, 1_000, 3_600_000),
    /** No byte received (or, once answering, none the client read) for this long: the request is cut. */
    HTTP_SILENCE_TIMEOUT_MS: milliseconds(30_000, 100, 600_000),
    /** After SIGTERM, uploads still arriving get this long before they are cut with a 503. */
    SHUTDOWN_GRACE_MS: milliseconds(2_000, 0, 60_000),
  };
}

export interface ListenerTimeouts {
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  requestTimeoutMs: number;
  silenceTimeoutMs: number;
  shutdownGraceMs: number;
}

export const DEFAULT_LISTENER_TIMEOUTS: ListenerTimeouts = Object.freeze({
  headersTimeoutMs: 20_000,
  keepAliveTimeoutMs: 72_000,
  requestTimeoutMs: 600_000,
  silenceTimeoutMs: 30_000,
  shutdownGraceMs: 2_000,
});

export type ListenerEnvironment = { [Name in keyof ReturnType<typeof listenerVariables>]: number };

/** A config that declares no listener variables (a test's, a tool's) gets the defaults. */
export function listenerTimeoutsOf(config: Partial<ListenerEnvironment>): ListenerTimeouts {
  return {
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS ?? DEFAULT_LISTENER_TIMEOUTS.headersTimeoutMs,
    keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? DEFAULT_LISTENER_TIMEOUTS.keepAliveTimeoutMs,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS ?? DEFAULT_LISTENER_TIMEOUTS.requestTimeoutMs,
    silenceTimeoutMs: config.HTTP_SILENCE_TIMEOUT_MS ?? DEFAULT_LISTENER_TIMEOUTS.silenceTimeoutMs,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS ?? DEFAULT_LISTENER_TIMEOUTS.shutdownGraceMs,
  };
}

/** Node refuses a headers timeout above the request timeout. */
export function requireHeadersWithinRequestTimeout(value: Partial<ListenerEnvironment>, context: z.core.$RefinementCtx): void {
  if (value.HTTP_HEADERS_TIMEOUT_MS !== undefined && value.HTTP_REQUEST_TIMEOUT_MS !== undefined && value.HTTP_HEADERS_TIMEOUT_MS > value.HTTP_REQUEST_TIMEOUT_MS) {
    context.addIssue({ code: 'custom', path: ['HTTP_HEADERS_TIMEOUT_MS'], message: `must not exceed HTTP_REQUEST_TIMEOUT_MS (${value.HTTP_REQUEST_TIMEOUT_MS})` });
  }
}

/**
 * Node's own limits, for http.createServer / https.createServer. Node checks the headers and
 * request deadlines on a timer (30 s by default): a tighter one keeps the cut close to the limit.
 */
export function nodeServerOptions(timeouts: ListenerTimeouts): ServerOptions {
  return {
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(timeouts.headersTimeoutMs / 4))),
  };
}

/** One request on the listener, from its headers to its response's end. */
interface Exchange {
  request: FastifyRequest;
  reply: FastifyReply;
  /** Made when first asked for (a handler reading the body, or a cut): most requests never need one. */
  controller: AbortController | null;
  /** A handler reading the body itself listens to the signal and answers; otherwise the guard answers. */
  watched: boolean;
}

const exchangesByRequest = new WeakMap<IncomingMessage, Exchange>();

const controllerOf = (exchange: Exchange): AbortController => (exchange.controller ??= new AbortController());

/** Whether the request's headers announce a body (a length above 0, or chunks). */
const declaresBody = (raw: IncomingMessage): boolean => {
  const length = raw.headers['content-length'];
  return (length !== undefined && length !== '0') || raw.headers['transfer-encoding'] !== undefined;
};

/**
 * Aborted when the server gives up on this request's body (silence, shutdown), with the problem
 * to answer as its reason. A handler streaming the body itself (an upload) passes it to its
 * pipeline, so its files are removed and it answers the problem through the usual error handler.
 */
export function bodyAbortSignal(request: FastifyRequest): AbortSignal {
  const exchange = exchangesByRequest.get(request.raw);
  if (!exchange) return new AbortController().signal;
  exchange.watched = true;
  return controllerOf(exchange).signal;
}

/** The requests whose bodies are still arriving (how many uploads a shutdown would cut, for instance). */
export interface ListenerGuards {
  receivingBodies(): number;
}

/**
 * Cuts what the Node limits cannot see: a client that declared a body and went quiet (the socket
 * timeout, which Node would answer by dropping the connection without a word), and, on close,
 * bodies still arriving after the grace. Each is answered with a problem when it can be.
 */
export function installListenerGuards(app: FastifyInstance, timeouts: ListenerTimeouts): ListenerGuards {
  const bySocket = new WeakMap<Socket, Exchange>();
  const open = new Set<Exchange>();

  // Every request passes here: a bodiless one (most) costs one WeakMap entry. Only a request
  // whose body is still to arrive is tracked for shutdown and can get an abort signal.
  app.addHook('onRequest', (request, reply, done) => {
    const exchange: Exchange = { request, reply, controller: null, watched: false };
    const socket = request.raw.socket;
    bySocket.set(socket, exchange);
    if (declaresBody(request.raw)) {
      exchangesByRequest.set(request.raw, exchange);
      open.add(exchange);
      reply.raw.once('close', () => open.delete(exchange));
    }
    done();
  });

  function cutBody(exchange: Exchange, problem: ProblemError): void {
    const socket = exchange.request.raw.socket;
    if (exchange.reply.raw.headersSent) {
      socket.destroy();
      return;
    }
    controllerOf(exchange).abort(problem);
    if (!exchange.watched) replyWithProblem(problem, exchange.request, exchange.reply);
    // The answer carries Connection: close; should it not get out, the connection goes anyway.
    const backstop = setTimeout(() => socket.destroy(), 1_000);
    backstop.unref();
    socket.once('close', () => clearTimeout(backstop));
  }

  app.server.on('timeout', (socket: Socket) => {
    const exchange = bySocket.get(socket);
    if (!exchange || exchange.reply.raw.writableFinished) {
      // A first request whose headers stopped arriving is told why; an idle keep-alive connection just closes.
      if (!exchange && socket.bytesRead > 0 && socket.writable) socket.end(rawProblemResponse(new RequestTimeoutError(`The request headers stopped arriving for ${timeouts.silenceTimeoutMs / 1000} s.`)));
      socket.destroySoon();
      return;
    }
    if (!exchange.request.raw.complete) {
      cutBody(exchange, new RequestTimeoutError(`No data was received for ${timeouts.silenceTimeoutMs / 1000} s; the request was cut. Send the body without pauses.`));
      return;
    }
    // The client stopped reading our answer.
    if (exchange.reply.raw.headersSent) socket.destroy();
    // Otherwise the request is whole and the handler is working: that silence is ours, not the client's.
  });

  app.addHook('preClose', async () => {
    const receiving = () => [...open].filter((exchange) => !exchange.request.raw.complete);
    const deadline = Date.now() + timeouts.shutdownGraceMs;
    while (receiving().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const exchange of receiving()) cutBody(exchange, new ShuttingDownError());
  });

  return { receivingBodies: () => [...open].filter((exchange) => !exchange.request.raw.complete).length };
}
