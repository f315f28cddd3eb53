import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

type SecuritySchemes = NonNullable<NonNullable<NonNullable<FastifyDynamicSwaggerOptions['openapi']>['components']>['securitySchemes']>;

/**
 * OpenAPI generated from the routes' zod schemas, served at /docs (UI) and
 * /docs/json. Register before the routes so every route is collected.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  info: { title: string; version: string; description: string },
  securitySchemes: SecuritySchemes = {},
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info,
      components: { securitySchemes },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
}
