import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

// Node's webcrypto, typed apart from the DOM's Crypto that browser-test files bring into this program.
x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export interface TestCertificate {
  certPem: string;
  keyPem: string;
  der: Buffer;
  /** Lowercase hex SHA-256 of the DER. */
  thumbprint: string;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;
let serial = 1;

function pem(label: string, der: ArrayBuffer): string {
  const body = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

/** A real self-signed X.509 certificate with its key, as partners make with openssl. */
export async function makeCertificate(options: { cn?: string; notBefore?: Date; notAfter?: Date; dnsNames?: string[] } = {}): Promise<TestCertificate> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const now = Date.now();
  const extensions: x509.Extension[] = [];
  if (options.dnsNames) {
    extensions.push(new x509.SubjectAlternativeNameExtension([...options.dnsNames.map((value) => ({ type: 'dns' as const, value })), { type: 'ip', value: '127.0.0.1' }]));
  }
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    // Encoded in this order (C first), as openssl req -subj '/C=SY/O=…/CN=…' does.
    name: `C=SY, O=Test Partner, CN=${options.cn ?? 'partner-client'}`,
    notBefore: options.notBefore ?? new Date(now - DAY),
    notAfter: options.notAfter ?? new Date(now + 30 * DAY),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions,
  });
  const der = Buffer.from(certificate.rawData);
  const { createHash } = await import('node:crypto');
  return {
    certPem: certificate.toString('pem'),
    keyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
    der,
    thumbprint: createHash('sha256').update(der).digest('hex'),
  };
}
