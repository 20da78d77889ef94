// Uploaded sources (issue 25): where a finished resumable upload lives in the blob store, what is known of it,
// and which requests keep their source once they complete. The upload server (src/server/uploads.ts) writes
// these blobs; the service checks them at create, the fetch stage reads the file, the detail links it. Keys
// carry the account, so an upload is found only by the account that made it.
import { BlobNotFoundError, type BlobStore } from '../ports/blob-store.js';
import type { RequestRecord } from '../ports/request-store.js';

/** What the upload server records beside a finished upload's file. */
export interface UploadInfo {
  /** The client's `filename` metadata (the request's title, without its extension). */
  filename: string;
  /** The client's `filetype` metadata (a video/* type), the Content-Type the source is served with. */
  filetype: string;
  size: number;
}

/** The blob key of a finished upload's file. */
export function uploadKey(accountId: string, uploadId: string): string {
  return `uploads/${accountId}/${uploadId}`;
}

/** The blob key of what is known of a finished upload (UploadInfo, JSON): written once the file is in place. */
export function uploadInfoKey(accountId: string, uploadId: string): string {
  return `${uploadKey(accountId, uploadId)}.json`;
}

/** A finished upload of `accountId`, or null when there is none (unknown, unfinished, another account's). */
export async function finishedUpload(blobs: BlobStore, accountId: string, uploadId: string): Promise<(UploadInfo & { key: string }) | null> {
  let info: UploadInfo;
  try {
    info = JSON.parse((await blobs.get(uploadInfoKey(accountId, uploadId))).toString('utf8')) as UploadInfo;
  } catch (e) {
    if (e instanceof BlobNotFoundError || e instanceof SyntaxError) return null;
    throw e;
  }
  const key = uploadKey(accountId, uploadId);
  return (await blobs.stat(key)) ? { ...info, key } : null;
}

/**
 * Whether a request keeps its source blob after it completes (for previews and re-renders of new cuts): the
 * one place that decides it. A request made from an upload (its file is the upload's blob, never deleted by
 * completion), and any request made in the studio (issue 25: its editor previews new cuts from the source and
 * re-renders without fetching it again). Every other download is deleted once its request completes (disk is
 * the scarce thing on a server).
 */
export function keepsSource(r: Pick<RequestRecord, 'options' | 'createdIn'>): boolean {
  // `source?.`: rows written before sources were typed (migrated stores) have none; they keep nothing.
  return r.options.source?.kind === 'upload' || r.createdIn === 'studio';
}

/** The blob key of an uploaded request's source, or null for every other source (its key is in the `source` checkpoint). */
export function keptSourceKey(r: Pick<RequestRecord, 'options' | 'accountId'>): string | null {
  return r.options.source?.kind === 'upload' ? uploadKey(r.accountId, r.options.source.uploadId) : null;
}
