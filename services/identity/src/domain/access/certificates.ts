import { createHash, X509Certificate } from 'node:crypto';
import { ValidationError } from '@svc/problem-json';

export interface RegisteredCertificate {
  /** Lowercase hex SHA-256 of the DER (the spec's certificateThumbprint). */
  thumbprint: string;
  subjectDn: string;
  notBefore: Date;
  notAfter: Date;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

function invalid(message: string): ValidationError {
  return new ValidationError(message, [{ path: 'certificatePem', message }]);
}

/** RFC 4514 order and escaping (most specific RDN first), as `openssl x509 -nameopt RFC2253` prints it. */
function rfc4514(subject: string): string {
  return subject
    .split('\n')
    .filter((line) => line.length > 0)
    .reverse()
    .map((line) => {
      const separator = line.indexOf('=');
      const value = line.slice(separator + 1).replace(/([,+"\\<>;])/g, '\\$1');
      return `${line.slice(0, separator)}=${value}`;
    })
    .join(',');
}

/**
 * Parses the certificatePem of a client registration: exactly one certificate, currently
 * valid, never a private key (a key pasted by mistake is refused and not stored or echoed).
 */
export function parseRegistrationCertificate(pem: string, now: Date): RegisteredCertificate {
  const blocks = [...pem.matchAll(PEM_BLOCK)];
  if (blocks.some(([, label]) => label?.includes('PRIVATE KEY')) || /PRIVATE KEY-----/.test(pem)) {
    throw invalid('certificatePem contains a private key. Send only the certificate (-----BEGIN CERTIFICATE-----); keep the private key secret, and replace it if it was shared.');
  }
  const certificates = blocks.filter(([, label]) => label === 'CERTIFICATE');
  if (certificates.length === 0) throw invalid('certificatePem must be an X.509 certificate in PEM form (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----).');
  if (certificates.length > 1) throw invalid('certificatePem must hold exactly one certificate, the client certificate itself, not a chain.');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certificates[0]![0]);
  } catch {
    throw invalid('certificatePem is not a parseable X.509 certificate.');
  }
  const notBefore = new Date(certificate.validFrom);
  const notAfter = new Date(certificate.validTo);
  if (Number.isNaN(notBefore.getTime()) || Number.isNaN(notAfter.getTime())) throw invalid('certificatePem has an unreadable validity period.');
  if (notAfter.getTime() <= now.getTime()) throw invalid(`The certificate expired at ${notAfter.toISOString()}.`);
  if (notBefore.getTime() > now.getTime()) throw invalid(`The certificate is not valid before ${notBefore.toISOString()}.`);
  return { thumbprint: thumbprintOfDer(certificate.raw), subjectDn: rfc4514(certificate.subject), notBefore, notAfter };
}

export function thumbprintOfDer(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex');
}

/** RFC 8705 §3.1 `x5t#S256`: the same SHA-256 digest, base64url without padding. */
export function x5tS256(hexThumbprint: string): string {
  return Buffer.from(hexThumbprint, 'hex').toString('base64url');
}

/** `X-Client-Cert-Thumbprint`: 64 hex digits, any case, colons tolerated; null when malformed. */
export function parseThumbprintHeader(value: string): string | null {
  const hex = value.trim().replace(/:/g, '').toLowerCase();
  return /^[0-9a-f]{64}$/.test(hex) ? hex : null;
}

/** RFC 9440 `Client-Cert`: a structured-field byte sequence, `:<base64 DER>:`. */
export function parseRfc9440Certificate(value: string): Buffer | null {
  const match = /^:([A-Za-z0-9+/]+={0,2}):$/.exec(value.trim());
  return match?.[1] ? derIfCertificate(Buffer.from(match[1], 'base64')) : null;
}

/** nginx `$ssl_client_escaped_cert`: the PEM, URL-escaped. */
export function parseEscapedPemCertificate(value: string): Buffer | null {
  let pem: string;
  try {
    pem = decodeURIComponent(value.trim());
  } catch {
    return null;
  }
  const block = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(pem);
  if (!block) return null;
  try {
    return new X509Certificate(block[0]).raw;
  } catch {
    return null;
  }
}

function derIfCertificate(der: Buffer): Buffer | null {
  try {
    return new X509Certificate(der).raw;
  } catch {
    return null;
  }
}
