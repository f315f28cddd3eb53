import { createHash, timingSafeEqual } from 'node:crypto';
import { UnauthenticatedError } from '@svc/problem-json';
import type { FastifyRequest } from 'fastify';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** onRequest hook for admin routes (before body validation): X-Admin-Token compared in constant time (digests have equal length). */
export function requireAdminToken(adminToken: string) {
  const expected = digest(adminToken);
  return async (request: FastifyRequest): Promise<void> => {
    const presented = request.headers['x-admin-token'];
    if (typeof presented !== 'string' || !timingSafeEqual(digest(presented), expected)) {
      throw new UnauthenticatedError('The X-Admin-Token header is missing or wrong.');
    }
  };
}
