import type { FastifyRequest } from 'fastify';
import type { EvidenceBytes } from './contract.js';

/** A request the checks cannot read as sent: the caller's mistake, answered 400 with what was wrong. */
export class BadEvidenceError extends Error {
  override name = 'BadEvidenceError';
}

/** The body is not multipart/form-data at all: 415. */
export class NotMultipartError extends Error {
  override name = 'NotMultipartError';
  constructor() {
    super('send the evidence as multipart/form-data');
  }
}

export type EvidenceKind = 'image' | 'video';

/** The parts one endpoint takes; any other part name is refused rather than ignored. */
export interface FormSpec {
  fields: Record<string, { required: boolean; allowed: readonly string[] }>;
  files: Record<string, { required: boolean; kind: EvidenceKind }>;
}

export interface EvidenceForm {
  fields: Map<string, string>;
  files: Map<string, EvidenceBytes>;
}

/** Field values are short enums; anything longer is not one of them. */
const MAX_FIELD_BYTES = 256;

const KIND_NAMES: Record<EvidenceKind, string> = { image: 'a JPEG, PNG, WebP or HEIC image', video: 'an MP4, WebM or QuickTime video' };

/** ISO-BMFF brands of still images; any other `ftyp` brand is treated as a video. */
const HEIF_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs', 'mif1', 'msf1', 'avif']);

/**
 * The content type from the bytes' signature, never from the part's declared type or file name
 * (which the sender controls). The same families identity accepts at upload.
 */
export function sniffContentType(bytes: Buffer): { contentType: string; kind: EvidenceKind } | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return { contentType: 'image/jpeg', kind: 'image' };
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return { contentType: 'image/png', kind: 'image' };
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return { contentType: 'image/webp', kind: 'image' };
  if (bytes.length >= 4 && bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return { contentType: 'video/webm', kind: 'video' };
  if (bytes.length >= 12 && bytes.toString('latin1', 4, 8) === 'ftyp') {
    const brand = bytes.toString('latin1', 8, 12);
    if (brand === 'avif') return { contentType: 'image/avif', kind: 'image' };
    if (HEIF_BRANDS.has(brand)) return { contentType: brand === 'mif1' || brand === 'msf1' ? 'image/heif' : 'image/heic', kind: 'image' };
    if (brand === 'qt  ') return { contentType: 'video/quicktime', kind: 'video' };
    return { contentType: 'video/mp4', kind: 'video' };
  }
  return null;
}

function describeExpected(spec: FormSpec): string {
  const fields = Object.entries(spec.fields).map(([name, field]) => `${field.required ? '' : 'optional '}field ${name}`);
  const files = Object.entries(spec.files).map(([name, file]) => `${file.required ? '' : 'optional '}file ${name}`);
  return [...fields, ...files].join(', ');
}

/**
 * Reads one endpoint's multipart body into memory, part by part, refusing at the first problem:
 * unknown or repeated parts, a field where a file belongs (or the reverse), empty files, bytes
 * that are not the expected kind of media, values outside their set. Size limits are
 * @fastify/multipart's (its 413 errors pass through untouched).
 */
export async function readEvidenceForm(request: FastifyRequest, spec: FormSpec, maxFileBytes: number): Promise<EvidenceForm> {
  if (!request.isMultipart()) throw new NotMultipartError();
  const expected = describeExpected(spec);
  const form: EvidenceForm = { fields: new Map(), files: new Map() };
  const fileCount = Object.keys(spec.files).length;
  const fieldCount = Object.keys(spec.fields).length;
  // One part of slack over what the endpoint takes: the first extra part reaches the checks below
  // and gets a 400 naming it, instead of the parser's bare 413 "reach fields limit".
  const parts = request.parts({
    limits: { fileSize: maxFileBytes, files: fileCount + 1, fields: fieldCount + 1, parts: fileCount + fieldCount + 2, fieldSize: MAX_FIELD_BYTES },
  });
  try {
    for await (const part of parts) {
      const name = part.fieldname;
      if (form.fields.has(name) || form.files.has(name)) throw new BadEvidenceError(`the part ${name} was sent twice; this endpoint takes ${expected}`);
      if (part.type === 'field') {
        const field = spec.fields[name];
        if (!field) throw new BadEvidenceError(`${spec.files[name] ? `${name} must be a file` : `unexpected part ${name}`}; this endpoint takes ${expected}`);
        const value = typeof part.value === 'string' ? part.value : '';
        if (part.valueTruncated || !field.allowed.includes(value)) throw new BadEvidenceError(`${name} must be one of ${field.allowed.join(', ')}`);
        form.fields.set(name, value);
        continue;
      }
      const file = spec.files[name];
      if (!file) {
        // Read to the end so the parser can go on to report the next part (or finish) cleanly.
        part.file.resume();
        throw new BadEvidenceError(`${spec.fields[name] ? `${name} must be a plain field, not a file` : `unexpected part ${name}`}; this endpoint takes ${expected}`);
      }
      const bytes = await part.toBuffer();
      if (bytes.length === 0) throw new BadEvidenceError(`the file ${name} is empty`);
      const sniffed = sniffContentType(bytes);
      if (sniffed?.kind !== file.kind) throw new BadEvidenceError(`${name} must be ${KIND_NAMES[file.kind]}; the bytes sent are ${sniffed ? sniffed.contentType : 'not a recognised image or video'}`);
      form.files.set(name, { contentType: sniffed.contentType, bytes });
    }
  } catch (error) {
    throw asClientError(error);
  }
  const missing = [...Object.entries(spec.fields), ...Object.entries(spec.files)].filter(([name, part]) => part.required && !form.fields.has(name) && !form.files.has(name)).map(([name]) => name);
  if (missing.length > 0) throw new BadEvidenceError(`missing ${missing.join(', ')}; this endpoint takes ${expected}`);
  return form;
}

/**
 * Our refusals and @fastify/multipart's errors (which carry their 4xx status) pass as they are.
 * Anything else thrown while parsing is the body's fault (busboy: `Unexpected end of form`,
 * `Malformed part header`), not the server's, so it is a 400 rather than a 500.
 */
function asClientError(error: unknown): unknown {
  if (error instanceof BadEvidenceError || error instanceof NotMultipartError) return error;
  const status = (error as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return error;
  const message = error instanceof Error ? error.message.slice(0, 120) : 'unreadable';
  return new BadEvidenceError(`the multipart body is malformed (${message})`, { cause: error });
}
