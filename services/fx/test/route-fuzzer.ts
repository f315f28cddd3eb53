/**
 * Property-based fuzzing of every route an app documents: the operations are read from its own
 * OpenAPI document (`app.swagger()`), so a new route is fuzzed without anyone listing it. Each
 * request mixes values that follow the route's schema (so validation passes and the domain code
 * runs) with hostile ones (exponent numbers, NaN-like strings, unicode, huge and deeply nested
 * values, wrong types), and the property is that no answer is a 5xx.
 *
 * Shared by both services' fuzz tests. It lives here rather than in @svc/service-kit because
 * fast-check is a devDependency of the services only, and adding it to a package needs an install.
 */
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { fuzzUploadRoute, type UploadFuzzSpec } from './upload-fuzzer.js';

// OpenAPI is read loosely: only the handful of keywords the generators use.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type JsonSchema = Record<string, any>;

export interface FuzzOperation {
  method: string;
  /** OpenAPI path, with `{name}` parameters. */
  path: string;
  /** Security scheme names the operation accepts (any one of the alternatives); empty = public. */
  security: string[];
  parameters: { in: 'path' | 'query' | 'header'; name: string; schema: JsonSchema }[];
  /** Request body schema by content type. */
  bodies: Record<string, JsonSchema>;
}

export interface RouteCredentials {
  /** Headers that authenticate the request (the fuzzer sends them on most runs). */
  headers: Record<string, string>;
  /** Values of existing things per path parameter name, so a run can reach a real record. */
  pathValues?: Record<string, string[]>;
}

export interface FuzzOptions {
  /** Called once per operation, before its runs: fresh credentials (a run may log out or revoke). */
  credentialsFor(operation: FuzzOperation): Promise<RouteCredentials>;
  /** Routes the document hides (internal ones), fuzzed without a schema. */
  hiddenOperations?: FuzzOperation[];
  /** Known-good strings by field name (currency codes…), so schema-following values pass the domain's own checks too. */
  hints?: StringHints;
  runsPerRoute: number;
  seed: number;
  /** Only operations whose `METHOD path` contains this (reproducing one failure). */
  only?: string;
  /** Before each request (e.g. move a manual clock so per-minute limits never answer first). */
  beforeRequest?: () => void;
  /** Multipart upload routes, fuzzed also with whole, cut, oversized and stalled bodies (upload-fuzzer.ts). */
  uploads?: UploadFuzzSpec[];
}

export interface FuzzFailure {
  operation: string;
  seed: number;
  counterexamplePath: string | null;
  detail: string;
}

interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

/** A number written into JSON as its own text: 1e400, -0, 30 digits (JSON.stringify cannot). */
class RawJson {
  constructor(readonly text: string) {}
}

const RAW_NUMBERS = ['1e400', '-1e400', '1e-400', '1e21', '1e+300', '-0', '123456789012345678901234567890', '0.000000004', '5e-324', '1.7976931348623157e308', '9007199254740993'].map((text) => new RawJson(text));
const EXTREME_NUMBERS = [0, -1, 1, 0.1, 1e21, -1e21, 1e300, Number.MAX_VALUE, Number.MIN_VALUE, Number.MAX_SAFE_INTEGER + 2, -Number.MAX_SAFE_INTEGER, 2 ** 31, 2 ** 63, 1e12, 1e12 + 1, 0.00000001, 0.000000009];
const NUMBER_LIKE_TEXT = ['NaN', 'Infinity', '-Infinity', '1e21', '1e+300', '-0', '0x10', '1_000', ' 1 ', '', '١٢٣', '1.', '.5', '+1', '00001', '123456789012345678901234567890', 'null', 'true', '[]', '{}'];
const PRINTABLE = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 40 });

const hostileNumber: fc.Arbitrary<unknown> = fc.oneof(fc.constantFrom(...EXTREME_NUMBERS, ...RAW_NUMBERS), fc.double(), fc.integer());
const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NUMBER_LIKE_TEXT) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\uD800', '\u202E', '../../etc/passwd', "' OR 1=1 --", '%00', '__proto__', 'constructor', '😀'.repeat(300)) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 200_000 }).map((length) => 'x'.repeat(length)) },
);
const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(hostileNumber, hostileString, fc.boolean(), fc.constant(null));

/** Nesting: arrays where objects are expected and back, up to a few levels, plus one very deep value. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: hostileScalar },
  {
    weight: 3,
    arbitrary: fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, hostileScalar, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.oneof(PRINTABLE, fc.constantFrom('__proto__', 'constructor')), tie('value'), { maxKeys: 3 })),
    })).value,
  },
  { weight: 1, arbitrary: fc.constantFrom(5_000, 50_000).map((depth) => new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`)) },
);

/** JSON text, writing RawJson values verbatim. */
function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([key, entry]) => `${JSON.stringify(key)}:${toJsonText(entry)}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

function resolve(schema: JsonSchema | undefined, document: JsonSchema): JsonSchema {
  const reference = schema?.$ref as string | undefined;
  if (!reference) return schema ?? {};
  const name = reference.split('/').pop() ?? '';
  return resolve(document.components?.schemas?.[name] as JsonSchema | undefined, document);
}

function conformingString(schema: JsonSchema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString());
    case 'date':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10));
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl();
  }
  const minLength = Math.min(Number(schema.minLength ?? 0), 200);
  return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(Number(schema.maxLength ?? 20), 20)) });
}

function conformingNumber(schema: JsonSchema, hostile: boolean): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : -1e6;
  const max = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : 1e6;
  // Hostile generation also tries just outside the range.
  const edges = hostile ? fc.constantFrom(min, max, min - 1, max + 1, min / 2, max * (1 + Number.EPSILON)) : fc.constantFrom(min, max);
  if (schema.type === 'integer') return fc.oneof(edges, fc.integer({ min: Math.max(Math.ceil(min), -(2 ** 31)), max: Math.min(Math.floor(max), 2 ** 31) }));
  return fc.oneof(edges, fc.double({ min, max, noNaN: true }));
}

/** Known-good strings by property or parameter name (a currency code, a symbol): what no schema can say. */
export type StringHints = Record<string, string[]>;

interface Generation {
  document: JsonSchema;
  hints: StringHints;
  /** Whether any level may be swapped for a hostile value; off, the value follows the schema throughout. */
  hostile: boolean;
}

/**
 * A value shaped like `schema`; in hostile generation each level may be the odd one out (a wrong
 * type, an extreme number, an extra key), so a deep field is tested behind valid outer ones.
 */
function valueFor(schemaOrReference: JsonSchema | undefined, generation: Generation, depth = 0, name?: string): fc.Arbitrary<unknown> {
  const schema = resolve(schemaOrReference, generation.document);
  const alternatives = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as JsonSchema[] | undefined;
  const hinted = name === undefined ? undefined : generation.hints[name];
  let conforming: fc.Arbitrary<unknown>;
  if (depth > 6) conforming = hostileScalar;
  else if (Array.isArray(schema.enum)) conforming = fc.constantFrom(...(schema.enum as unknown[]));
  else if ('const' in schema) conforming = fc.constant(schema.const);
  else if (alternatives?.length) conforming = fc.oneof(...alternatives.map((alternative) => valueFor(alternative, generation, depth + 1, name)));
  else if (schema.type === 'string') conforming = hinted?.length ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...hinted) }, { weight: 1, arbitrary: conformingString(schema) }) : conformingString(schema);
  else if (schema.type === 'number' || schema.type === 'integer') conforming = conformingNumber(schema, generation.hostile);
  else if (schema.type === 'boolean') conforming = fc.boolean();
  else if (schema.type === 'null') conforming = fc.constant(null);
  else if (schema.type === 'array') {
    const minLength = Math.min(Number(schema.minItems ?? 0), 5);
    conforming = fc.array(valueFor(schema.items as JsonSchema, generation, depth + 1, name), { minLength, maxLength: minLength + 3 });
  } else if (schema.type === 'object' || schema.properties) {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const shape = Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, valueFor(property, generation, depth + 1, key)]));
    const record = fc.record(shape, { requiredKeys: (schema.required ?? []) as string[] });
    // Now and then a key the schema does not know.
    conforming = generation.hostile ? fc.oneof({ weight: 6, arbitrary: record }, { weight: 1, arbitrary: fc.tuple(record, PRINTABLE, hostileValue).map(([value, key, extra]) => ({ ...value, [key]: extra })) }) : record;
  } else conforming = hostileValue;
  return generation.hostile ? fc.oneof({ weight: 6, arbitrary: conforming }, { weight: 1, arbitrary: hostileValue }) : conforming;
}

/** Half the requests follow the schema throughout (to reach the domain code), half carry hostile parts. */
function eitherGeneration<Value>(document: JsonSchema, hints: StringHints, build: (generation: Generation) => fc.Arbitrary<Value>): fc.Arbitrary<Value> {
  return fc.oneof(build({ document, hints, hostile: false }), build({ document, hints, hostile: true }));
}

/** Text for a path, query or header value: a conforming value's text, or a hostile one. */
function textFor(schema: JsonSchema, generation: Generation, name: string): fc.Arbitrary<string> {
  return valueFor(schema, generation, 0, name).map((value) => (value instanceof RawJson ? value.text : typeof value === 'string' ? value : toJsonText(value)));
}

/** encodeURIComponent throws on a lone surrogate half, which a client could never send in a URL. */
const pathSegment = (text: string) => encodeURIComponent(text.replace(/[\uD800-\uDFFF]/gu, '\uFFFD'));
const headerSafe = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 8_000);

/** Bodies no schema describes: malformed JSON, wrong content types, broken multipart (the upload route). */
const MULTIPART = 'multipart/form-data; boundary=XyZ';
const oddBodies: fc.Arbitrary<{ contentType: string | undefined; payload: string }> = fc.oneof(
  fc.constantFrom(
    { contentType: 'application/json', payload: '' },
    { contentType: 'application/json', payload: '{"a":' },
    { contentType: 'application/json', payload: '{"__proto__":{"x":1},"constructor":{"prototype":{}}}' },
    { contentType: 'application/json', payload: `"${'\\u0000'.repeat(10)}"` },
    { contentType: 'text/plain', payload: 'hello' },
    { contentType: 'application/x-www-form-urlencoded', payload: 'a=1&a=2&b[c]=%ZZ' },
    { contentType: MULTIPART, payload: '' },
    { contentType: MULTIPART, payload: '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n\r\n\xff\xd8\xff' },
    { contentType: MULTIPART, payload: '--XyZ\r\nContent-Disposition: form-data; name="evidenceType"\r\n\r\nSelfie\r\n--XyZ--\r\n' },
    { contentType: 'multipart/form-data', payload: '--\r\n\r\n' },
    { contentType: 'multipart/form-data; boundary=', payload: 'garbage' },
    { contentType: undefined, payload: '{}' },
  ),
  hostileValue.map((value) => ({ contentType: 'application/json', payload: toJsonText(value) })),
);

function bodyFor(operation: FuzzOperation, generation: Generation): fc.Arbitrary<{ contentType: string | undefined; payload: string } | null> {
  const typed = Object.entries(operation.bodies).map(([contentType, schema]) =>
    valueFor(schema, generation).map((value) => ({
      contentType,
      payload:
        contentType === 'application/x-www-form-urlencoded' && value !== null && typeof value === 'object' && !Array.isArray(value)
          ? new URLSearchParams(Object.entries(value).map(([key, entry]): [string, string] => [key, typeof entry === 'string' ? entry : toJsonText(entry)])).toString()
          : toJsonText(value),
    })),
  );
  if (!generation.hostile) return typed.length > 0 ? fc.oneof(...typed) : fc.constant(null);
  if (typed.length > 0) return fc.oneof({ weight: 4, arbitrary: fc.oneof(...typed) }, { weight: 1, arbitrary: oddBodies });
  // No documented body: mostly none, sometimes junk (the multipart upload route is one of these).
  return fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: oddBodies });
}

/** `arbitrary` one time in `oneIn`, null otherwise (never when oneIn is 0). fc.option's freq is the other way round. */
function sometimes<Value>(arbitrary: fc.Arbitrary<Value>, oneIn: number): fc.Arbitrary<Value | null> {
  return oneIn > 0 ? fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary }) : fc.constant(null);
}

function requestFor(operation: FuzzOperation, credentials: RouteCredentials, generation: Generation): fc.Arbitrary<FuzzRequest> {
  const { hostile } = generation;
  const pathParameters = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
  const schemaOf = (where: string, name: string) => operation.parameters.find((parameter) => parameter.in === where && parameter.name === name)?.schema ?? { type: 'string' };
  const pathValues = fc.tuple(
    ...pathParameters.map((name) => {
      const known = credentials.pathValues?.[name] ?? [];
      // Hostile runs also send parameters over the router's 100-character limit (a 414, answered as a problem).
      const overLong = hostile ? [{ weight: 1, arbitrary: fc.integer({ min: 101, max: 4_000 }).map((length) => 'p'.repeat(length)) }] : [];
      return fc.oneof(...(known.length ? [{ weight: 3, arbitrary: fc.constantFrom(...known) }] : []), { weight: 2, arbitrary: textFor(schemaOf('path', name), generation, name) }, ...overLong);
    }),
  );
  const queryParameters = operation.parameters.filter((parameter) => parameter.in === 'query');
  // Hostile queries may repeat a parameter (it arrives as an array) or add an unknown one.
  const queryValue = (parameter: FuzzOperation['parameters'][number]) =>
    hostile ? fc.oneof({ weight: 5, arbitrary: textFor(parameter.schema, generation, parameter.name) }, { weight: 1, arbitrary: fc.array(textFor(parameter.schema, generation, parameter.name), { minLength: 2, maxLength: 2 }) }) : textFor(parameter.schema, generation, parameter.name);
  // A parameter is left out one time in three; the hostile extras below come one time in `oneIn`.
  const query = fc.tuple(fc.tuple(...queryParameters.map((parameter) => fc.option(queryValue(parameter), { freq: 3 }))), sometimes(fc.tuple(PRINTABLE, hostileString), hostile ? 5 : 0));
  const headerParameters = operation.parameters.filter((parameter) => parameter.in === 'header');
  const headers = fc.record({
    parameters: fc.tuple(...headerParameters.map((parameter) => fc.option(textFor(parameter.schema, generation, parameter.name), { freq: 3 }))),
    authenticated: hostile ? fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }) : fc.constant(true),
    garbledAuthorization: sometimes(PRINTABLE, hostile ? 10 : 0),
    acceptLanguage: sometimes(PRINTABLE, hostile ? 4 : 0),
    ifNoneMatch: sometimes(PRINTABLE, hostile ? 6 : 0),
  });
  return fc.tuple(pathValues, query, headers, bodyFor(operation, generation)).map(([values, [queryValues, extraQuery], header, body]) => {
    let index = 0;
    const path = operation.path.replace(/\{[^}]+\}/g, () => pathSegment(values[index++] ?? ''));
    const search = new URLSearchParams();
    queryParameters.forEach((parameter, position) => {
      const value = queryValues[position];
      for (const entry of value === null || value === undefined ? [] : Array.isArray(value) ? value : [value]) search.append(parameter.name, entry);
    });
    if (extraQuery) search.append(extraQuery[0], extraQuery[1]);
    const headers: Record<string, string> = header.authenticated ? { ...credentials.headers } : {};
    headerParameters.forEach((parameter, position) => {
      const value = header.parameters[position];
      if (value !== null && value !== undefined) headers[parameter.name] = headerSafe(value);
    });
    if (header.garbledAuthorization !== null) headers.authorization = header.garbledAuthorization;
    if (header.acceptLanguage !== null) headers['accept-language'] = header.acceptLanguage;
    if (header.ifNoneMatch !== null) headers['if-none-match'] = header.ifNoneMatch;
    if (body?.contentType) headers['content-type'] = body.contentType;
    const queryText = search.toString();
    return { method: operation.method, url: queryText ? `${path}?${queryText}` : path, headers, ...(body ? { payload: body.payload } : {}) };
  });
}

/** Every operation of the app's OpenAPI document. */
export function documentedOperations(document: JsonSchema): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [path, methods] of Object.entries<JsonSchema>(document.paths ?? {})) {
    for (const [method, operation] of Object.entries<JsonSchema>(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      // An event stream never finishes, so app.inject would wait for ever; rates-stream.test.ts covers its bad input over real HTTP.
      if (operation.responses?.['200']?.content?.['text/event-stream']) continue;
      const security = ((operation.security ?? document.security ?? []) as Record<string, unknown>[]).flatMap((requirement) => Object.keys(requirement));
      const parameters = ((operation.parameters ?? []) as JsonSchema[]).map((parameter) => ({ in: parameter.in, name: parameter.name, schema: (parameter.schema ?? {}) as JsonSchema }));
      const bodies = Object.fromEntries(Object.entries<JsonSchema>(operation.requestBody?.content ?? {}).map(([contentType, content]) => [contentType, (content.schema ?? {}) as JsonSchema]));
      operations.push({ method: method.toUpperCase(), path, security: [...new Set(security)], parameters, bodies });
    }
  }
  return operations;
}

const shorten = (text: string | undefined, length = 600) => (text === undefined ? '(none)' : text.length > length ? `${text.slice(0, length)}… (${text.length} characters)` : text);

/** Stable per-route seed: the same base seed replays every route's runs. */
function routeSeed(seed: number, key: string): number {
  let hash = seed | 0;
  for (const character of key) hash = (Math.imul(hash, 31) + character.charCodeAt(0)) | 0;
  return hash;
}

/** Fuzzes every documented (and hidden) operation; returns one entry per operation that answered a 5xx. */
export async function fuzzEveryRoute(app: FastifyInstance, options: FuzzOptions): Promise<{ operations: string[]; failures: FuzzFailure[]; statuses: Record<string, Record<number, number>>; milliseconds: Record<string, number> }> {
  await app.ready();
  const document = app.swagger() as JsonSchema;
  const operations = [...documentedOperations(document), ...(options.hiddenOperations ?? [])].filter((operation) => !options.only || `${operation.method} ${operation.path}`.includes(options.only));
  const failures: FuzzFailure[] = [];
  // Answers per status and route: a route that only ever answers 401 or 400 was not really fuzzed.
  const statuses: Record<string, Record<number, number>> = {};
  const milliseconds: Record<string, number> = {};
  for (const operation of operations) {
    const key = `${operation.method} ${operation.path}`;
    const credentials = await options.credentialsFor(operation);
    const requests = eitherGeneration(document, options.hints ?? {}, (generation) => requestFor(operation, credentials, generation));
    const property = fc.asyncProperty(requests, async (request) => {
      options.beforeRequest?.();
      const response = await app.inject({ method: request.method as 'GET', url: request.url, headers: request.headers, ...(request.payload === undefined ? {} : { payload: request.payload }) });
      const counts = (statuses[key] ??= {});
      counts[response.statusCode] = (counts[response.statusCode] ?? 0) + 1;
      const answeredProblem = String(response.headers['content-type'] ?? '').startsWith('application/problem+json');
      if (response.statusCode >= 500 || (response.statusCode === 414 && !answeredProblem)) {
        throw new Error(`${request.method} ${shorten(request.url, 300)}\n  headers: ${shorten(JSON.stringify(request.headers), 300)}\n  body: ${shorten(request.payload)}\n  → ${response.statusCode} ${shorten(response.body, 300)}`);
      }
    });
    const seed = routeSeed(options.seed, key);
    const started = performance.now();
    const details = await fc.check(property, { seed, numRuns: options.runsPerRoute });
    milliseconds[key] = Math.round(performance.now() - started);
    if (details.failed) {
      const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      failures.push({ operation: key, seed, counterexamplePath: details.counterexamplePath, detail: error });
    }
    const upload = options.uploads?.find((spec) => spec.operation === key);
    if (upload) {
      const uploadsStarted = performance.now();
      try {
        statuses[`${key} uploads`] = await fuzzUploadRoute(app, upload, credentials.headers, { runs: options.runsPerRoute, seed });
        milliseconds[`${key} uploads`] = Math.round(performance.now() - uploadsStarted);
      } catch (error) {
        failures.push({ operation: `${key} uploads`, seed, counterexamplePath: null, detail: (error as Error).message });
      }
    }
  }
  return { operations: operations.map((operation) => `${operation.method} ${operation.path}`), failures, statuses, milliseconds };
}
