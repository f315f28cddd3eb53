import { expect } from 'vitest';
import { withoutUnusedSchemas } from '@svc/service-kit';

export interface DocumentedOperation {
  method: string;
  path: string;
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
}

interface Document {
  info: { license?: { name: string } };
  servers?: { url: string }[];
  paths: Record<string, Record<string, Omit<DocumentedOperation, 'method' | 'path'>>>;
  components?: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/**
 * What `redocly lint` (recommended rules) asks of every operation, checked on the served
 * document so a route added without it fails its service's tests, not only CI's lint step:
 * a unique camelCase operationId, tags, a declared security (possibly []), a 4xx answer;
 * and of the document: a licence, servers, no unused schema. Returns the operations.
 */
export function expectLintReadyOpenApi(document: Document): DocumentedOperation[] {
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => ({ ...operation, method, path })),
  );
  expect(operations.length).toBeGreaterThan(0);
  for (const operation of operations) {
    const name = `${operation.method.toUpperCase()} ${operation.path}`;
    expect(operation.operationId, name).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(operation.tags?.length, name).toBeGreaterThan(0);
    expect(Array.isArray(operation.security), `${name} declares its security`).toBe(true);
    expect(Object.keys(operation.responses).some((status) => /^4(\d\d|XX)$/.test(status)), `${name} documents a 4xx`).toBe(true);
    for (const requirement of operation.security ?? []) {
      for (const scheme of Object.keys(requirement)) expect(document.components?.securitySchemes, `${name}: scheme ${scheme}`).toHaveProperty(scheme);
    }
  }
  const ids = operations.map((operation) => operation.operationId);
  expect(new Set(ids).size, 'operationIds are unique').toBe(ids.length);
  expect(document.info.license?.name).toBeTruthy();
  expect(document.servers?.length).toBeGreaterThan(0);
  expect(Object.keys(document.components?.schemas ?? {}).sort()).toEqual(Object.keys(withoutUnusedSchemas(document).components?.schemas ?? {}).sort());
  return operations;
}
