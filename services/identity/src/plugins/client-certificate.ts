import type { TLSSocket } from 'node:tls';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { parseEscapedPemCertificate, parseRfc9440Certificate, parseThumbprintHeader, thumbprintOfDer } from '../domain/access/certificates.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Lowercase hex SHA-256 of the client certificate the caller presented, or null.
     * Computed when asked: only authenticating routes pay for it.
     */
    clientCertificateThumbprint(): string | null;
  }
}

export interface ClientCertificateOptions {
  /** True when the immediate peer is a trusted TLS-terminating proxy. */
  isTrustedProxy: (address: string | undefined) => boolean;
  /** Header carrying the URL-escaped PEM (nginx $ssl_client_escaped_cert). */
  escapedPemHeader: string;
}

function peerCertificateThumbprint(request: FastifyRequest): string | null {
  const socket = request.raw.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function') return null;
  const peer = socket.getPeerCertificate();
  return peer && peer.raw ? thumbprintOfDer(peer.raw) : null;
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? undefined : value; // a repeated header is ambiguous: ignored
}

/**
 * Where the certificate comes from: the TLS handshake itself (direct mTLS), or headers set
 * by a trusted proxy that terminated TLS. From any other peer the headers are ignored, so
 * they cannot be spoofed. When a proxy sends several forms and they disagree, none is believed.
 */
function thumbprintFromProxy(request: FastifyRequest, options: ClientCertificateOptions): string | null {
  if (!options.isTrustedProxy(request.raw.socket.remoteAddress)) return null;
  const candidates: (string | null)[] = [];
  const thumbprint = headerValue(request, 'x-client-cert-thumbprint');
  if (thumbprint !== undefined) candidates.push(parseThumbprintHeader(thumbprint));
  const rfc9440 = headerValue(request, 'client-cert');
  if (rfc9440 !== undefined) candidates.push(thumbprintOfRfc9440(rfc9440));
  const pem = headerValue(request, options.escapedPemHeader);
  if (pem !== undefined && pem !== '') candidates.push(thumbprintOfEscapedPem(pem));
  const [first] = candidates;
  if (!first || candidates.some((candidate) => candidate !== first)) return null;
  return first;
}

function mapDer(der: Buffer | null): string | null {
  return der ? thumbprintOfDer(der) : null;
}

/**
 * A partner sends the same certificate on every request, and parsing it (X509Certificate) was
 * the largest single cost of an authenticated request: remember the thumbprint per header
 * value. Bounded; the oldest entries go first.
 */
function memoised(compute: (value: string) => string | null, maxEntries = 1000): (value: string) => string | null {
  const memo = new Map<string, string | null>();
  return (value) => {
    const known = memo.get(value);
    if (known !== undefined || memo.has(value)) return known ?? null;
    const computed = compute(value);
    if (memo.size >= maxEntries) memo.delete(memo.keys().next().value!);
    memo.set(value, computed);
    return computed;
  };
}

const thumbprintOfRfc9440 = memoised((value) => mapDer(parseRfc9440Certificate(value)));
const thumbprintOfEscapedPem = memoised((value) => mapDer(parseEscapedPemCertificate(value)));

const clientCertificate: FastifyPluginAsync<ClientCertificateOptions> = async (app, options) => {
  app.decorateRequest('clientCertificateThumbprint', function (this: FastifyRequest) {
    return peerCertificateThumbprint(this) ?? thumbprintFromProxy(this, options);
  });
};

export const clientCertificatePlugin = fp(clientCertificate, { name: 'identity-client-certificate' });
