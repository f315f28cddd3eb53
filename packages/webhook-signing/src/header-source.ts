/** Node's `IncomingHttpHeaders` (lower-case keys) or a fetch `Headers`. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/**
 * Case-insensitive header look-up. Returns undefined for an absent or empty header; for a
 * repeated header given as an array, the first value.
 */
export function readHeader(headers: HeaderSource, name: string): string | undefined {
  const value = isFetchHeaders(headers) ? headers.get(name) : readRecordHeader(headers, name);
  return value === null || value === undefined || value === '' ? undefined : value;
}

function isFetchHeaders(headers: HeaderSource): headers is Headers {
  // Duck-typed rather than `instanceof Headers`: undici's own Headers class (from the npm
  // package) is a different constructor from the global one.
  return typeof (headers as { get?: unknown }).get === 'function';
}

function readRecordHeader(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const lowerName = name.toLowerCase();
  // Node already lower-cases keys; the scan covers hand-built records such as `{ 'X-Service-Timestamp': ... }`.
  const key = Object.hasOwn(headers, lowerName)
    ? lowerName
    : Object.keys(headers).find((candidate) => candidate.toLowerCase() === lowerName);
  if (key === undefined) return undefined;
  const value = headers[key];
  return Array.isArray(value) ? value[0] : value;
}
