import type { Config } from '../core/config';
import { LocalUploadStore } from './local-store';
import type { UploadStore } from './types';

export type { StoredObject, UploadStore } from './types';
export { NotReadable } from './types';

export type UploadStoreConfig = Pick<Config, 'uploadsDir' | 's3'>;

const stores = new WeakMap<UploadStoreConfig, UploadStore>();

/** The store the configuration names (S3 when S3_BUCKET is set), one per configuration. */
export function uploadStore(config: UploadStoreConfig): UploadStore {
  let store = stores.get(config);
  if (!store) {
    if (config.s3) {
      // The AWS SDK is loaded only where S3 is configured: it is large, and local disk is the default.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load in CommonJS
      const { S3UploadStore } = require('./s3-store') as typeof import('./s3-store');
      store = new S3UploadStore(config.s3);
    } else {
      store = new LocalUploadStore(config.uploadsDir);
    }
    stores.set(config, store);
  }
  return store;
}
