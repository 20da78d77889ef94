// Where resumable uploads (issue 25) are staged while they arrive, from the same settings as the blob store:
// with SHORTS_STORAGE_URL an S3 multipart upload (@tus/s3-store) in the blob store's bucket, whose finished
// object already is the blob `uploads/<account>/<id>` (so any API process can take the next chunk, and
// nothing is copied at the end); else files under the data dir (@tus/file-store), moved into the blob store
// (a rename) once complete. The HTTP side (src/server/uploads.ts) sees only this.
import path from 'node:path';
import type { DataStore } from '@tus/server';
import type { BlobStore } from '../ports/blob-store.js';
import { setting } from '../settings.js';
import { uploadKey } from '../engine/uploads.js';
import { parseStorageUrl, parseSwitch } from './blob-store-from-settings.js';

/** Unfinished uploads are deleted this long after they were started (tus expiration extension). */
export const UPLOAD_EXPIRY_MS = 24 * 3600 * 1000;

export interface UploadStaging {
  datastore: DataStore;
  /** The tus id of an account's upload (what the datastore names it). */
  idOf(accountId: string, uploadId: string): string;
  /** Puts a finished upload's file under its blob key (uploads.ts `uploadKey`). */
  finish(accountId: string, uploadId: string): Promise<void>;
}

export async function uploadStaging(dataDir: string, blobs: BlobStore, env: NodeJS.ProcessEnv = process.env): Promise<UploadStaging> {
  const storage = setting('SHORTS_STORAGE_URL', env);
  if (storage !== undefined) {
    const { bucket, prefix } = parseStorageUrl(storage);
    const { S3Store } = await import('@tus/s3-store');
    const datastore = new S3Store({
      // Expiry by the sweep (ListMultipartUploads), not object tags: S3-compatible stores without tagging work too.
      expirationPeriodInMilliseconds: UPLOAD_EXPIRY_MS, useTags: false,
      s3ClientConfig: {
        bucket, endpoint: setting('SHORTS_S3_ENDPOINT', env), forcePathStyle: parseSwitch('SHORTS_S3_FORCE_PATH_STYLE', env),
        maxAttempts: env.AWS_MAX_ATTEMPTS ? undefined : 10,
      },
    });
    // The tus object key is the blob's object key: the finished upload is the blob.
    const idOf = (accountId: string, uploadId: string) => (prefix ? `${prefix}/` : '') + uploadKey(accountId, uploadId);
    return { datastore, idOf, finish: async () => {} };
  }
  const { FileStore } = await import('@tus/file-store');
  const directory = path.join(dataDir, 'uploads-staging');
  const idOf = (accountId: string, uploadId: string) => `${accountId}-${uploadId}`;
  return {
    datastore: new FileStore({ directory, expirationPeriodInMilliseconds: UPLOAD_EXPIRY_MS }),
    idOf,
    finish: (accountId, uploadId) => blobs.putFile(uploadKey(accountId, uploadId), path.join(directory, idOf(accountId, uploadId)), { move: true }),
  };
}
