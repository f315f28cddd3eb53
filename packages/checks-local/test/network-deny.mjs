/**
 * Preload for this package's tests: any network use throws, so a model or library that quietly
 * downloads something (tesseract.js falls back to a CDN when it has no local path) fails the
 * test instead of passing on a machine that happens to be online.
 *
 * The main thread loads it with `--import` (vitest.config.ts). Worker threads ignore `--import`
 * preloads but run `--require` ones, and Node 20.19+ can require this ES module (it has no
 * top-level await): so every Worker is started with `--require=<this file>` added to its
 * execArgv, and the wasm engines are guarded where they really run (tesseract.js recognises in a
 * worker thread). test/network-deny.test.ts proves both.
 *
 * It patches the shared builtin objects (net.Socket.prototype.connect, dns, http(s).request,
 * globalThis.fetch), which also covers tls, undici and everything built on them. Only TCP to the
 * literal loopback addresses 127.0.0.1 and ::1 is allowed (the server tests listen there); names
 * are never resolved, so even `localhost` is refused, and unix sockets are refused too.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import workerThreads from 'node:worker_threads';

export const NETWORK_BLOCKED = 'NETWORK BLOCKED by test/network-deny.mjs';
const LOOPBACK = new Set(['127.0.0.1', '::1', '[::1]']);
const GUARD_FLAG = Symbol.for('checks-local.network-deny');
const DNS_FUNCTIONS = ['lookup', 'lookupService', 'resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCaa', 'resolveCname', 'resolveMx', 'resolveNaptr', 'resolveNs', 'resolvePtr', 'resolveSoa', 'resolveSrv', 'resolveTxt', 'reverse'];

function blocked(what) {
  return new Error(`${NETWORK_BLOCKED}: ${what}`);
}

/** What a net.Socket#connect call targets: a host and port, or a unix socket / named pipe path. */
function connectTarget(args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (first !== null && typeof first === 'object') {
    if (typeof first.path === 'string') return { path: first.path };
    return { host: first.host ?? 'localhost', port: first.port };
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { path: first };
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: first };
}

function requestHost(target) {
  if (typeof target === 'string' || target instanceof URL) return new URL(target).hostname;
  return (target && (target.hostname ?? target.host)) ?? 'localhost';
}

function guardSockets() {
  const originalConnect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(...args) {
    const target = connectTarget(args);
    if ('path' in target) throw blocked(`socket path ${target.path}`);
    if (!LOOPBACK.has(target.host)) throw blocked(`connect to ${target.host}:${target.port}`);
    return originalConnect.apply(this, args);
  };
}

/** dns.lookup('127.0.0.1') asks no server (listen() calls it): only names are refused. */
function isLiteralLookup(name, host) {
  return name === 'lookup' && typeof host === 'string' && net.isIP(host) !== 0;
}

function guardDns() {
  for (const name of DNS_FUNCTIONS) {
    const original = dns[name];
    if (typeof original === 'function') {
      dns[name] = function guardedDns(...args) {
        if (isLiteralLookup(name, args[0])) return original.apply(this, args);
        throw blocked(`dns.${name}(${String(args[0])})`);
      };
    }
    const originalPromise = dns.promises[name];
    if (typeof originalPromise === 'function') {
      dns.promises[name] = async function guardedDnsPromise(...args) {
        if (isLiteralLookup(name, args[0])) return originalPromise.apply(this, args);
        throw blocked(`dns.promises.${name}(${String(args[0])})`);
      };
    }
  }
  if (typeof dns.Resolver === 'function') {
    for (const name of DNS_FUNCTIONS) {
      if (typeof dns.Resolver.prototype[name] === 'function') {
        dns.Resolver.prototype[name] = function guardedResolve(...args) {
          throw blocked(`Resolver.${name}(${String(args[0])})`);
        };
      }
    }
  }
}

function guardHttp() {
  for (const [label, module] of [['http', http], ['https', https]]) {
    for (const name of ['request', 'get']) {
      const original = module[name];
      module[name] = function guardedRequest(...args) {
        const host = requestHost(args[0]);
        if (!LOOPBACK.has(host)) throw blocked(`${label}.${name} to ${host}`);
        return original.apply(this, args);
      };
    }
  }
}

function guardFetch() {
  const originalFetch = globalThis.fetch;
  if (typeof originalFetch !== 'function') return;
  globalThis.fetch = async function guardedFetch(input, init) {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    if (!(url.protocol === 'http:' || url.protocol === 'https:') || !LOOPBACK.has(url.hostname)) throw blocked(`fetch ${url.protocol}//${url.hostname}`);
    return originalFetch.call(this, input, init);
  };
}

/** Every Worker starts with this file preloaded, even one given its own execArgv. */
function guardWorkers() {
  const OriginalWorker = workerThreads.Worker;
  const preload = `--require=${fileURLToPath(import.meta.url)}`;
  class GuardedWorker extends OriginalWorker {
    constructor(filename, options = {}) {
      const execArgv = [...(options.execArgv ?? process.execArgv)];
      if (!execArgv.includes(preload)) execArgv.push(preload);
      super(filename, { ...options, execArgv });
    }
  }
  workerThreads.Worker = GuardedWorker;
}

if (!globalThis[GUARD_FLAG]) {
  globalThis[GUARD_FLAG] = { thread: workerThreads.isMainThread ? 'main' : `worker ${workerThreads.threadId}` };
  guardSockets();
  guardDns();
  guardHttp();
  guardFetch();
  guardWorkers();
  // ESM named imports (`import { Worker } from 'node:worker_threads'`) see the patches only after this.
  syncBuiltinESMExports();
}

