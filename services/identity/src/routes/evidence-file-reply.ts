import type { FastifyReply } from 'fastify';
import { contentDisposition, type EvidenceDownload } from '../domain/evidence/evidence-download.js';

/** What the evidence download route answers with, as the OpenAPI documents of both audiences describe it. */
export const EVIDENCE_FILE_DESCRIPTION = 'The file bytes (Content-Type as uploaded, Content-Length, Content-Disposition: attachment, ETag: the SHA-256 in quotes)';

/**
 * One evidence download answer for the partner and the reviewer: the bytes as uploaded, never
 * sniffed or cached, and the recorded SHA-256 as a strong ETag so either side can check what arrived.
 */
export function sendEvidenceFile(reply: FastifyReply, file: EvidenceDownload) {
  return reply
    .header('Content-Type', file.contentType)
    .header('Content-Length', String(file.sizeBytes))
    .header('Content-Disposition', contentDisposition(file.fileName))
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', 'private, no-store')
    .header('ETag', `"${file.sha256Hash}"`)
    .send(file.body);
}
