import { createHash } from 'node:crypto';
import { ValidationError } from '@svc/problem-json';

/**
 * Where a keyset page of the case list starts: just after the last case of the previous page
 * (its createdAt in microseconds, as stored, and its id), the page number that page will have,
 * and a fingerprint of the filters it was issued for. Opaque to clients: base64url JSON.
 */
export interface CaseListPosition {
  createdAtMicros: bigint;
  id: string;
  page: number;
}

export interface CaseListFilters {
  tenantId: string;
  status?: string | undefined;
  search?: string | undefined;
}

const VERSION = 1;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MICROS = /^\d{1,19}$/;

/** Short and stable: a cursor must not be replayed with other filters (or by another tenant), where its position means nothing. */
function filtersFingerprint(filters: CaseListFilters): string {
  return createHash('sha256')
    .update(JSON.stringify([filters.tenantId, filters.status ?? null, filters.search ?? null]))
    .digest('base64url')
    .slice(0, 12);
}

export function encodeCaseListCursor(position: CaseListPosition, filters: CaseListFilters): string {
  const body = { v: VERSION, t: position.createdAtMicros.toString(), i: position.id, p: position.page, f: filtersFingerprint(filters) };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

const invalid = (message: string) => new ValidationError(`cursor ${message}.`, [{ path: 'cursor', message }]);

/** The position a cursor names; 400 for anything this API did not issue for these filters. */
export function decodeCaseListCursor(cursor: string, filters: CaseListFilters): CaseListPosition {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('is not a cursor this API issued (pass nextCursor from a previous page as it is)');
  }
  const { v, t, i, p, f } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const wellFormed = v === VERSION && typeof t === 'string' && MICROS.test(t) && typeof i === 'string' && UUID.test(i) && Number.isSafeInteger(p) && (p as number) >= 2;
  if (!wellFormed) throw invalid('is not a cursor this API issued (pass nextCursor from a previous page as it is)');
  if (f !== filtersFingerprint(filters)) throw invalid('was issued for other filters: pass the same status and search as the request that returned it, with the same credentials');
  return { createdAtMicros: BigInt(t), id: i, page: p as number };
}
