import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

type OpenApiObject = NonNullable<FastifyDynamicSwaggerOptions['openapi']>;
type SwaggerSecuritySchemes = NonNullable<NonNullable<OpenApiObject['components']>['securitySchemes']>;
/** OpenAPI 3.1's mutualTLS scheme, missing from @fastify/swagger's (3.0-era) types. */
export interface MutualTlsSecurityScheme {
  type: 'mutualTLS';
  description?: string;
}
type SecuritySchemes = Record<string, SwaggerSecuritySchemes[string] | MutualTlsSecurityScheme>;

export interface OpenApiDocumentOptions {
  title: string;
  version: string;
  description: string;
  securitySchemes?: SecuritySchemes;
  /** Default: the relative `/`, i.e. wherever the document itself is served from. */
  servers?: { url: string; description?: string }[];
  /** Default: PROPRIETARY_LICENSE (the services are not published under an open licence). */
  license?: { name: string; identifier?: string; url?: string };
  /** Routes under these paths are left out: they belong to another document (registerOpenApiDocument). */
  excludedPrefixes?: readonly string[];
}

/** A document of its own for the routes under one path (an operators' API apart from the partners'). */
export interface ScopedOpenApiDocumentOptions extends OpenApiDocumentOptions {
  /** Only the routes under this path are listed. */
  includedPrefix: string;
  /** The app decorator @fastify/swagger installs for this document; unique per app. */
  decorator: string;
}

/** SPDX has no "proprietary"; a LicenseRef- is the SPDX way of naming a licence of one's own. */
export const PROPRIETARY_LICENSE = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };

const isUnder = (url: string, prefix: string) => url === prefix || url.startsWith(`${prefix}/`);

function swaggerOptions(options: OpenApiDocumentOptions, lists: (url: string) => boolean): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, version: options.version, description: options.description, license: options.license ?? PROPRIETARY_LICENSE },
      servers: options.servers ?? [{ url: '/', description: 'The server this document is served from' }],
      components: { securitySchemes: (options.securitySchemes ?? {}) as SwaggerSecuritySchemes },
    },
    // Which document a route belongs to follows from its path, so a route cannot land in the
    // wrong one by a forgotten flag.
    transform: (input) => (lists(input.url) ? jsonSchemaTransform(input) : { schema: { hide: true }, url: input.url }),
    // The zod provider emits every registered schema (and an "…Input" twin of each) whether a
    // route uses it or not; unused components are noise to readers and a lint warning.
    transformObject: (input) => {
      const document = jsonSchemaTransformObject(input);
      return withOptionalBodies(withoutUnusedSchemas(document as OpenApiDocument));
    },
  };
}

/**
 * OpenAPI generated from the routes' zod schemas, served at /docs (UI) and
 * /docs/json. Register before the routes so every route is collected.
 */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiDocumentOptions): Promise<void> {
  const excluded = options.excludedPrefixes ?? [];
  await app.register(swagger, swaggerOptions(options, (url) => !excluded.some((prefix) => isUnder(url, prefix))));
  await app.register(swaggerUi, { routePrefix: '/docs' });
}

/**
 * A second document, of the routes under `includedPrefix` only, not served anywhere: the
 * caller serves what the returned function builds, behind whatever authentication it needs.
 * Register before the routes, like registerOpenApi.
 */
export async function registerOpenApiDocument(app: FastifyInstance, options: ScopedOpenApiDocumentOptions): Promise<() => unknown> {
  await app.register(swagger, { ...swaggerOptions(options, (url) => isUnder(url, options.includedPrefix)), decorator: options.decorator });
  return () => (app as unknown as Record<string, () => unknown>)[options.decorator]!();
}

interface OpenApiDocument {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown> };
}

const SCHEMA_REF = '#/components/schemas/';

function collectSchemaRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectSchemaRefs(item, into);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, member] of Object.entries(value)) {
      if (key === '$ref' && typeof member === 'string' && member.startsWith(SCHEMA_REF)) into.add(decodeURIComponent(member.slice(SCHEMA_REF.length)));
      else collectSchemaRefs(member, into);
    }
  }
}

/** Keeps the component schemas reachable from the paths (directly or through other schemas). */
export function withoutUnusedSchemas<T extends OpenApiDocument>(document: T): T {
  const schemas = document.components?.schemas;
  if (!schemas) return document;
  const { components, ...rest } = document;
  const { schemas: _all, ...otherComponents } = components ?? {};
  const reachable = new Set<string>();
  collectSchemaRefs([rest, otherComponents], reachable);
  const pending = [...reachable];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const found = new Set<string>();
    collectSchemaRefs(schemas[name], found);
    for (const reference of found) {
      if (!reachable.has(reference)) {
        reachable.add(reference);
        pending.push(reference);
      }
    }
  }
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => reachable.has(name)));
  return { ...document, components: { ...components, schemas: kept } };
}

interface MediaType {
  schema?: { anyOf?: unknown[] };
}
interface Operation {
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
}

const isNullSchema = (schema: unknown) => (schema as { type?: unknown } | null)?.type === 'null';

/**
 * A zod body that is `.nullish()` (Fastify hands a request without a body over as null) means
 * "the body may be left out": @fastify/swagger marks every body required, so such bodies are
 * documented as optional, with their object schema, and clients may call without one.
 */
export function withOptionalBodies<T extends { paths?: Record<string, Record<string, unknown>> }>(document: T): T {
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem) as Operation[]) {
      const body = operation?.requestBody;
      const media = body?.content?.['application/json'];
      const variants = media?.schema?.anyOf;
      if (!body || !media || !Array.isArray(variants) || variants.length !== 2 || !variants.some(isNullSchema)) continue;
      media.schema = variants.find((variant) => !isNullSchema(variant)) as MediaType['schema'];
      body.required = false;
    }
  }
  return document;
}
