import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import {
  assertDeclaredSize,
  assertEvidenceKey,
  EvidenceObjectMissingError,
  type EvidenceStorage,
  type EvidenceStorageConfig,
  type StoredObject,
} from './evidence-storage.js';

export type S3EvidenceStorageConfig = Extract<EvidenceStorageConfig, { kind: 's3' }>;

/** The SDK never retries a request whose body is a stream, so putFile retries itself with a fresh stream of the file. */
const PUT_ATTEMPTS = 3;
const PUT_RETRY_BASE_DELAY_MS = 200;

/**
 * Evidence in one bucket of S3 or an S3-compatible server (MinIO, Ceph, R2...). Credentials
 * come only from the SDK's default provider chain (environment, shared files, container or
 * instance roles), so none pass through configuration or logs here.
 */
export class S3EvidenceStorage implements EvidenceStorage {
  readonly kind = 's3' as const;
  readonly spoolDir: string;
  private readonly bucket: string;
  private readonly client: S3Client;

  constructor(config: S3EvidenceStorageConfig) {
    this.bucket = config.bucket;
    this.spoolDir = config.spoolDir;
    this.client = new S3Client({
      region: config.region,
      ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
      forcePathStyle: config.forcePathStyle,
      // Left at its default, the SDK sends a body it has no checksum for as aws-chunked with a
      // CRC32 trailer, which servers that predate it (s3rver, older Ceph and MinIO) store
      // verbatim, framing included: the object silently gains bytes. putFile also passes its
      // own SHA-256, which alone avoids that; this keeps it so if that ever changes.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // Socket idle limit, not a total: a large upload may take long but must keep moving.
      requestHandler: { connectionTimeout: 5_000, socketTimeout: 60_000 },
    });
  }

  async putFile(key: string, sourcePath: string, meta: { contentType: string; sizeBytes: number; sha256Hex: string }): Promise<void> {
    assertEvidenceKey(key);
    assertDeclaredSize(sourcePath, (await stat(sourcePath)).size, meta.sizeBytes);
    // x-amz-checksum-sha256 makes S3 (and servers that support it) verify the bytes it received
    // and refuse the upload otherwise; servers that do not know the header ignore it, so the
    // hash is also kept as user metadata for anyone checking later.
    const checksumSha256 = Buffer.from(meta.sha256Hex, 'hex').toString('base64');

    for (let attempt = 1; ; attempt += 1) {
      const body = createReadStream(sourcePath);
      try {
        await this.client.send(
          new PutObjectCommand({
            Bucket: this.bucket,
            Key: key,
            Body: body,
            ContentLength: meta.sizeBytes,
            ContentType: meta.contentType,
            ChecksumSHA256: checksumSha256,
            Metadata: { sha256: meta.sha256Hex },
          }),
        );
        return;
      } catch (error) {
        if (attempt >= PUT_ATTEMPTS || !isTransientFailure(error)) throw error;
      } finally {
        body.destroy();
      }
      await sleep(PUT_RETRY_BASE_DELAY_MS * 2 ** (attempt - 1));
    }
  }

  async get(key: string): Promise<StoredObject> {
    assertEvidenceKey(key);
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const { Body: body, ContentLength: sizeBytes } = response;
      if (!(body instanceof Readable) || sizeBytes === undefined) {
        if (body instanceof Readable) body.destroy();
        throw new Error(`S3 returned no body or no Content-Length for evidence key ${key}.`);
      }
      return { body, sizeBytes };
    } catch (error) {
      if (isMissingObject(error)) throw new EvidenceObjectMissingError(key);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertEvidenceKey(key);
    try {
      // S3 answers 204 for a missing key too; some compatible servers answer 404 instead.
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (!isMissingObject(error)) throw error;
    }
  }
}

/** A missing bucket is also a 404, but it is a configuration error and must not read as "no such evidence". */
function isMissingObject(error: unknown): boolean {
  if (error instanceof NoSuchKey) return true;
  return error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404 && error.name !== 'NoSuchBucket';
}

/** Network failures (no S3 answer at all), throttling and server errors; never 4xx answers, which repeat. */
function isTransientFailure(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return true;
  const status = error.$metadata.httpStatusCode ?? 0;
  return status === 0 || status === 429 || status >= 500;
}
