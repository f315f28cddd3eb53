import type { FastifyRequest } from 'fastify';
import type { StaffPrincipal } from '../../domain/accounts/staff.js';

declare module 'fastify' {
  interface FastifyRequest {
    staff: StaffPrincipal | null;
  }
}

/** The staff principal of an internal route (the internal API's hook has always set it). */
export function requireStaff(request: FastifyRequest): StaffPrincipal {
  if (!request.staff) throw new Error('staff hook did not run');
  return request.staff;
}
