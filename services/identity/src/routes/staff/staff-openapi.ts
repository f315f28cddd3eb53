import { registerOpenApiDocument, type ServiceApp } from '@svc/service-kit';
import { CONSOLE_COOKIE, INTERNAL_BASE_PATH } from './internal-review.js';

/**
 * The operators' API (everything under /api/internal/v1) in a document of its own: the partner
 * document at /docs leaves that path out, so partners' docs and client never show operator routes.
 * Register before the routes. Returns what builds the document; internalReviewRoutes serves it at
 * /api/internal/v1/openapi.json, behind the staff session like every route it lists.
 */
export function registerStaffOpenApi(app: ServiceApp, version: string): Promise<() => unknown> {
  return registerOpenApiDocument(app, {
    decorator: 'staffOpenApi',
    includedPrefix: INTERNAL_BASE_PATH,
    title: 'Identity Verification Staff API',
    version,
    description:
      "The operators' internal API behind the reviewers' console: staff sign-in and second factors, the manual review queue, case review with claims, the review history and evidence for review. Staff accounts come from the `staff:create` CLI; not part of the partner API.",
    securitySchemes: {
      staffSession: { type: 'http', scheme: 'bearer', description: `Staff session svc_ss_… from POST ${INTERNAL_BASE_PATH}/login` },
      consoleCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: CONSOLE_COOKIE,
        description: "The same staff session, as the cookie the login sets; a write it authorises must come from this service's own pages",
      },
    },
  });
}
