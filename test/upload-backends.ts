import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export type UploadBackend = 'local' | 's3';

export interface RunningBackend {
  /** Environment for startTestContext / organization(): UPLOADS_DIR, and S3_* for S3. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export const S3_TEST_BUCKET = 'chat-uploads';

/**
 * A real S3-protocol server on loopback (s3rver, which keeps objects in a directory and speaks
 * S3's REST API and SigV4), with one empty bucket.
 */
export async function startS3Server(): Promise<{
  endpoint: string;
  env: Record<string, string>;
  close(): Promise<void>;
}> {
  const directory = mkdtempSync(path.join(tmpdir(), 's3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: S3_TEST_BUCKET, configs: [] }],
  });
  const address = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    env: {
      S3_BUCKET: S3_TEST_BUCKET,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      // s3rver's fixed credentials.
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Upload storage for one test file: a fresh directory, and for S3 a fresh server too. */
export async function startUploadBackend(backend: UploadBackend): Promise<RunningBackend> {
  const uploads = mkdtempSync(path.join(tmpdir(), 'uploads-test-'));
  const s3 = backend === 's3' ? await startS3Server() : null;
  return {
    env: { UPLOADS_DIR: uploads, ...(s3?.env ?? {}) },
    async close() {
      await s3?.close();
      rmSync(uploads, { recursive: true, force: true });
    },
  };
}
