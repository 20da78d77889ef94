// Where resumable uploads (issue 25) are staged while they arrive: files under this process's data dir
// (@tus/file-store), put into the engine's blob store once complete (a rename on the data dir, a multipart
// upload with SHORTS_STORAGE_URL) under `uploads/<account>/<id>`. The HTTP side (src/server/uploads.ts)
// sees only this.
//
// Why not @tus/s3-store with S3 storage (chunks straight to the bucket, resumable on any API process): against
// s3rver, the S3 server the tests run, its upload creation fails (MethodNotAllowed), so it could not be tested
// here. With several API processes behind a load balancer an upload must therefore stay on one process while
// it arrives (sticky sessions on /api/v1/uploads; docs/deployment.md), which a single studio box is anyway.
import path from 'node:path';
import type { DataStore } from '@tus/server';
import type { BlobStore } from '../ports/blob-store.js';
import { uploadKey } from '../engine/uploads.js';

/** Unfinished uploads are deleted this long after they were started (tus expiration extension). */
export const UPLOAD_EXPIRY_MS = 24 * 3600 * 1000;

export interface UploadStaging {
  datastore: DataStore;
  /** The tus id of an account's upload (what the datastore names it). */
  idOf(accountId: string, uploadId: string): string;
  /** Puts a finished upload's file under its blob key (uploads.ts `uploadKey`). */
  finish(accountId: string, uploadId: string): Promise<void>;
}

export async function uploadStaging(dataDir: string, blobs: BlobStore): Promise<UploadStaging> {
  const { FileStore } = await import('@tus/file-store');
  const directory = path.join(dataDir, 'uploads-staging');
  const idOf = (accountId: string, uploadId: string) => `${accountId}-${uploadId}`;
  return {
    datastore: new FileStore({ directory, expirationPeriodInMilliseconds: UPLOAD_EXPIRY_MS }),
    idOf,
    finish: (accountId, uploadId) => blobs.putFile(uploadKey(accountId, uploadId), path.join(directory, idOf(accountId, uploadId)), { move: true }),
  };
}
