import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { Config } from '../core/config';
import {
  checkKey,
  NotReadable,
  type ReadConditions,
  type StoredObject,
  type UploadStore,
} from './types';

type S3Config = NonNullable<Config['s3']>;

const statusOf = (err: unknown) =>
  err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;

/**
 * Uploads in an S3-compatible bucket (AWS S3, MinIO, Ceph, SeaweedFS, ...), shared by every
 * replica. Downloads stream through the API, which keeps Zulip's access rules and headers.
 */
export class S3UploadStore implements UploadStore {
  readonly kind = 's3';
  readonly bucket: string;
  readonly client: S3Client;

  constructor(config: S3Config) {
    this.bucket = config.bucket;
    this.client = new S3Client({
      region: config.region,
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      forcePathStyle: config.forcePathStyle,
      // Checksums only where S3 requires them: many S3-compatible servers do not understand the
      // SDK's default aws-chunked uploads with trailing checksums, and store the framing.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(config.accessKeyId && config.secretAccessKey
        ? {
            credentials: {
              accessKeyId: config.accessKeyId,
              secretAccessKey: config.secretAccessKey,
            },
          }
        : {}),
    });
  }

  async putFile(key: string, sourcePath: string, contentType: string | null): Promise<void> {
    const { size } = await stat(sourcePath);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: checkKey(key),
        Body: createReadStream(sourcePath),
        ContentLength: size,
        ...(contentType ? { ContentType: contentType } : {}),
      }),
    );
  }

  async putBuffer(key: string, data: Buffer, contentType: string | null): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: checkKey(key),
        Body: data,
        ...(contentType ? { ContentType: contentType } : {}),
      }),
    );
  }

  async read(key: string, conditions: ReadConditions = {}): Promise<StoredObject | null> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: checkKey(key),
          ...(conditions.range ? { Range: conditions.range } : {}),
          ...(conditions.ifNoneMatch ? { IfNoneMatch: conditions.ifNoneMatch } : {}),
        }),
      );
      return {
        body: answer.Body as Readable,
        length: answer.ContentLength ?? 0,
        lastModified: answer.LastModified ?? null,
        etag: answer.ETag ?? null,
        contentRange: answer.ContentRange ?? null,
      };
    } catch (err) {
      const status = statusOf(err);
      if (status === 404) return null;
      if (status === 304 || status === 416) throw new NotReadable(status);
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: checkKey(key) }));
      return true;
    } catch (err) {
      if (statusOf(err) === 404) return false;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: checkKey(key) }));
  }

  async *list(): AsyncIterable<{ key: string; size: number }> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, ContinuationToken: token }),
      );
      for (const item of page.Contents ?? []) {
        if (item.Key) yield { key: item.Key, size: item.Size ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}
