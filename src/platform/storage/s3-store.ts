import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config.js';
import type { BlobStore } from './blob-store.js';

/**
 * Uploads in an S3-compatible bucket (AWS S3, MinIO, Ceph...). The bucket is expected to encrypt at rest
 * (S3 does by default, SSE-S3); each object is also written with `ServerSideEncryption: AES256` unless
 * the endpoint is a custom one that may not support the header.
 */
export class S3Store implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly options: NonNullable<Config['s3']>) {
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle,
      // Checksums only where S3 requires them: S3-compatible stores (MinIO, Ceph...) do not all take the newer headers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(options.accessKeyId && options.secretAccessKey
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
    });
  }

  async put(storageKey: string, bytes: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: storageKey,
        Body: bytes,
        ContentType: contentType,
        ContentLength: bytes.length,
        ...(this.options.endpoint ? {} : { ServerSideEncryption: 'AES256' as const }),
      }),
    );
  }

  async get(storageKey: string): Promise<Buffer | undefined> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: storageKey }));
      if (!answer.Body) return undefined;
      return Buffer.from(await answer.Body.transformToByteArray());
    } catch (err) {
      if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return undefined;
      throw err;
    }
  }
}
