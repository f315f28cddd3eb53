/** The shapes and rules of the OAuth clients screen, as plain functions the components share. */

import type { CertificateDetails, OAuthAuthorizationServerMetadata, OAuthClient } from '@svc/identity-client/types';

export type { CertificateDetails, OAuthClient };

/** The API refuses a sixth active client (409); the screen says so before anyone tries. */
export const MAX_ACTIVE_CLIENTS = 5;
/** A certificate this close to its end is marked, so the partner rotates it before tokens stop. */
export const EXPIRES_SOON_DAYS = 30;
const DAY_MS = 86_400_000;

export type Validity = 'valid' | 'expiresSoon' | 'expired' | 'notYetValid';

export function certificateValidity(notBefore: string, notAfter: string, now = Date.now()): Validity {
  if (Date.parse(notAfter) <= now) return 'expired';
  if (Date.parse(notBefore) > now) return 'notYetValid';
  return Date.parse(notAfter) - now <= EXPIRES_SOON_DAYS * DAY_MS ? 'expiresSoon' : 'valid';
}

export function activeClientCount(clients: readonly OAuthClient[]): number {
  return clients.filter((client) => client.isActive).length;
}

/** 'ab12cd34…ef56ab78': enough to tell certificates apart at a glance; the full value is in the title and the copy button. */
export function shortThumbprint(thumbprint: string): string {
  return thumbprint.length > 20 ? `${thumbprint.slice(0, 8)}…${thumbprint.slice(-8)}` : thumbprint;
}

export type PemProblem = 'privateKey' | 'notCertificate' | undefined;

/**
 * Caught in the browser before anything is sent: a private key must never leave the partner's
 * machine, not even to be refused by the server.
 */
export function pemProblem(pem: string): PemProblem {
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) return 'privateKey';
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) return 'notCertificate';
  return undefined;
}

/** The mutual-TLS token endpoint (RFC 8705 §5 alias when the server has one). */
export function tokenEndpointOf(metadata: OAuthAuthorizationServerMetadata | undefined, fallbackOrigin: string): string {
  return metadata?.mtls_endpoint_aliases?.token_endpoint ?? metadata?.token_endpoint ?? `${fallbackOrigin}/api/partner/v1/oauth/token`;
}

/** The token request for one client, as a partner's engineer runs it first (the key stays theirs: client.key). */
export function curlTokenRequest(tokenEndpoint: string, clientId: string): string {
  return [`curl --cert client.crt --key client.key \\`, `  -d grant_type=client_credentials \\`, `  -d client_id=${clientId} \\`, `  ${tokenEndpoint}`].join('\n');
}
