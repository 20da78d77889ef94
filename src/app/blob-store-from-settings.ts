// Which blob store this process uses, from its settings alone: S3 (or an S3-compatible store) when
// SHORTS_STORAGE_URL names a bucket, else the data dir. A setting that cannot work stops the start with its
// name, before any job could write a clip where nobody would find it.
import path from 'node:path';
import { FsBlobStore } from '../adapters/fs/blob-store.js';
import { MAX_LINK_TTL_SEC, S3BlobStore } from '../adapters/s3/blob-store.js';
import { parseMediaTtl } from '../media-ttl.js';
import { checkBlobKey, type BlobStore } from '../ports/blob-store.js';
import { setting } from '../settings.js';

export function blobStoreFromSettings(dataDir: string, env: NodeJS.ProcessEnv = process.env): BlobStore {
  const storage = setting('SHORTS_STORAGE_URL', env);
  if (storage === undefined) return new FsBlobStore(dataDir);
  const { bucket, prefix } = parseStorageUrl(storage);
  const endpoint = setting('SHORTS_S3_ENDPOINT', env);
  if (endpoint !== undefined && !/^https?:\/\/[^/]/.test(endpoint)) throw new Error(`SHORTS_S3_ENDPOINT must be an http:// or https:// URL, got "${endpoint}"`);
  const linkTtlSec = parseMediaTtl(setting('SHORTS_MEDIA_TTL', env));
  if (linkTtlSec > MAX_LINK_TTL_SEC) throw new Error(`SHORTS_MEDIA_TTL is at most ${MAX_LINK_TTL_SEC} seconds (7 days) with SHORTS_STORAGE_URL, the longest an S3 presigned link lives; got ${linkTtlSec}`);
  return new S3BlobStore({
    bucket, prefix, endpoint, forcePathStyle: parseSwitch('SHORTS_S3_FORCE_PATH_STYLE', env),
    cacheDir: path.join(dataDir, 'cache', 'blobs'), linkTtlSec,
  });
}

/** `s3://BUCKET` or `s3://BUCKET/PREFIX`: a bucket name as S3 allows it, and a prefix made of key segments. */
export function parseStorageUrl(value: string): { bucket: string; prefix: string } {
  const bad = (why: string) => new Error(`SHORTS_STORAGE_URL must be s3://BUCKET or s3://BUCKET/PREFIX (${why}), got "${value}"`);
  const m = /^s3:\/\/([^/?#]*)(\/[^?#]*)?$/.exec(value.trim());
  if (!m) throw bad('only the s3:// scheme, no query or fragment');
  const bucket = m[1]!;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw bad('a bucket name is 3-63 lowercase letters, digits, "." and "-"');
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix) {
    try {
      checkBlobKey(prefix);
    } catch {
      throw bad('the prefix is segments of letters, digits, ".", "_" and "-" separated by single "/"');
    }
  }
  return { bucket, prefix };
}

/** An on/off setting: 1/true/yes/on or 0/false/no/off; unset is off. */
export function parseSwitch(name: 'SHORTS_S3_FORCE_PATH_STYLE', env: NodeJS.ProcessEnv): boolean {
  const v = setting(name, env)?.trim().toLowerCase();
  if (v === undefined) return false;
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new Error(`${name} must be 1 or 0 (true/false, on/off), got "${setting(name, env)}"`);
}
