import type { EvidenceFile } from './checks-provider.js';
import { TransientProviderError } from './checks-provider.js';

/** A known error code or name only: decision reasons reach partners, and a raw message may name private hosts or paths. */
export function errorCode(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'unknown error';
  const { code, name } = error as { code?: unknown; name?: unknown };
  if (typeof code === 'string') return code;
  return typeof name === 'string' ? name : 'unknown error';
}

/**
 * The whole file in memory (evidence is at most 50 MB): a multipart part needs its bytes, and a
 * retry reopens the file rather than replaying a half-read stream. A storage failure may pass,
 * so it is retried like an outage; its message names the evidence, never its storage key.
 */
export async function readEvidenceBytes(check: string, file: EvidenceFile): Promise<Buffer<ArrayBuffer>> {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of await file.open()) chunks.push(chunk as Buffer);
    // Buffer<ArrayBuffer>, never a view of a shared buffer: fit for a Blob, whichever lib typings a program loads.
    return Buffer.concat(chunks);
  } catch (error) {
    throw new TransientProviderError(`${check}: could not read the ${file.evidenceType} evidence (${errorCode(error)})`, { cause: error });
  }
}

