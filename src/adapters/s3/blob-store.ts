// S3 (or an S3-compatible store) as the blob store (src/ports/blob-store.ts): a key is the object
// `<prefix>/<key>` in one bucket, so the keys the database holds are the same as with the data dir. The
// client takes the AWS SDK's own credential and region chain (environment, profiles, SSO, instance roles);
// nothing is passed explicitly. Writes go through lib-storage's Upload: one PUT for small bodies, a multipart
// upload (parts buffered, so each one can be retried) for large ones; either way the object appears whole
// when the PUT or the CompleteMultipartUpload succeeds, never part-written. Failed requests (5xx, throttling,
// refused or reset connections) are retried by the SDK's standard strategy with `maxAttempts` tries.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { GetObjectCommandOutput, S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { BlobNotFoundError, checkBlobKey, type BlobRange, type BlobReader, type BlobStat, type BlobStore, type BlobUrlOptions } from '../../ports/blob-store.js';

export interface S3BlobStoreOptions {
  bucket: string;
  /** Key prefix inside the bucket ('' for none): `a/b` stores key `k` as object `a/b/k`. */
  prefix: string;
  /** This process's local copies for withLocalFile (`<dataDir>/cache/blobs`): a cache it may lose at any time. */
  cacheDir: string;
  /** An S3-compatible endpoint (SHORTS_S3_ENDPOINT); AWS's own when absent. */
  endpoint?: string;
  /** Path-style addressing (`endpoint/bucket/key`), which most S3-compatible servers need (SHORTS_S3_FORCE_PATH_STYLE). */
  forcePathStyle?: boolean;
  /** Lifetime of `url` links when the caller names none (SHORTS_MEDIA_TTL); default 24 h. */
  linkTtlSec?: number;
  /** Tries per request (the SDK's standard retry strategy); default AWS_MAX_ATTEMPTS when set, else 10. */
  maxAttempts?: number;
  /** Multipart part size in bytes (S3's minimum is 5 MiB); default 8 MiB, larger for files that need it. */
  partSize?: number;
}

/** SigV4 presigned URLs live at most 7 days. */
export const MAX_LINK_TTL_SEC = 7 * 24 * 3600;
const MIN_PART_SIZE = 5 * 1024 * 1024;
const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
/** S3 takes at most 10,000 parts: a file larger than this many default parts gets larger parts (a 10 GB source fits either way). */
const MAX_PARTS = 10_000;
/** Parts uploaded at once (each buffered in memory: 4 x 8 MiB per upload). */
const UPLOAD_QUEUE = 4;
/** A reader opened for a range starting this far in skips the bytes of the body it holds; further, it asks for the range. */
const SKIP_LIMIT = 1024 * 1024;
/** DeleteObjects takes at most 1000 keys a call; ListObjectsV2 gives at most 1000 a page. */
const DELETE_BATCH = 1000;

/** What clients are told an object is when they fetch it through a presigned link. */
const CONTENT_TYPES: Record<string, string> = {
  '.mp4': 'video/mp4', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png', '.json': 'application/json',
  '.ass': 'text/plain; charset=utf-8', '.srt': 'text/plain; charset=utf-8', '.vtt': 'text/vtt', '.wav': 'audio/wav',
  '.m4a': 'audio/mp4', '.mp3': 'audio/mpeg', '.webm': 'video/webm', '.mkv': 'video/x-matroska', '.mov': 'video/quicktime',
};

/** The AWS SDK, loaded on first use: it takes seconds to import, which no command on the data dir should pay. */
interface Sdk {
  s3: typeof import('@aws-sdk/client-s3');
  storage: typeof import('@aws-sdk/lib-storage');
  presigner: typeof import('@aws-sdk/s3-request-presigner');
  client: S3Client;
}

/** The version of an object a reader or a cached copy belongs to. */
interface Version { etag: string | undefined; versionId: string | undefined }

export class S3BlobStore implements BlobStore {
  /** Presigned GETs: any client holding one fetches the object straight from the store. */
  readonly sharedLinks = true;
  readonly bucket: string;
  readonly prefix: string;
  private readonly config: S3ClientConfig;
  private sdkLoaded: Promise<Sdk> | undefined;
  private readonly cacheDir: string;
  private readonly linkTtlSec: number;
  private readonly partSize: number;
  /** Local copies this process is handing to a withLocalFile callback (never pruned meanwhile), by version folder. */
  private readonly inUse = new Map<string, number>();
  /** Downloads in flight, by version folder: two callers wanting the same copy share one download. */
  private readonly downloads = new Map<string, Promise<string>>();

  constructor(opts: S3BlobStoreOptions) {
    this.bucket = opts.bucket;
    this.prefix = opts.prefix.replace(/^\/+|\/+$/g, '');
    this.cacheDir = path.resolve(opts.cacheDir);
    this.linkTtlSec = checkLinkTtl(opts.linkTtlSec ?? 24 * 3600);
    this.partSize = Math.max(MIN_PART_SIZE, opts.partSize ?? DEFAULT_PART_SIZE);
    this.config = {
      endpoint: opts.endpoint,
      forcePathStyle: opts.forcePathStyle,
      // Undefined lets the SDK read AWS_MAX_ATTEMPTS or the profile's max_attempts (its own default is 3 tries,
      // too few to ride out a store restarting); the operator's value wins.
      maxAttempts: opts.maxAttempts ?? (process.env.AWS_MAX_ATTEMPTS ? undefined : 10),
    };
  }

  private sdk(): Promise<Sdk> {
    return (this.sdkLoaded ??= (async () => {
      const [s3, storage, presigner] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage'), import('@aws-sdk/s3-request-presigner')]);
      return { s3, storage, presigner, client: new s3.S3Client(this.config) };
    })());
  }

  /** The object key of a blob key (validated). */
  objectKey(key: string): string {
    checkBlobKey(key);
    return this.prefix ? `${this.prefix}/${key}` : key;
  }

  async put(key: string, data: Buffer | string | Readable): Promise<void> {
    await this.upload(key, data);
  }

  async putFile(key: string, file: string, opts: { move?: boolean } = {}): Promise<void> {
    const objectKey = this.objectKey(key);
    const source = path.resolve(file);
    const own = this.copyVersionOf(key, source);
    if (own !== null) {
      // The caller hands back the copy withLocalFile gave it: unchanged if the object still is that version.
      const head = await this.head(objectKey);
      if (head && etagName(head.etag, head.stat) === own) return;
    }
    const size = (await stat(source)).size;
    const etag = await this.upload(key, createReadStream(source), size);
    if (!opts.move || own !== null) return;
    // The file taken becomes the local copy of the version just written, so a withLocalFile at once (the
    // orchestrator asks for one after every render) needs no download.
    if (etag) {
      const copy = this.copyPath(key, etagName(etag, { size, mtimeMs: 0 }));
      try {
        await mkdir(path.dirname(copy), { recursive: true });
        await rename(source, copy);
        await this.pruneCopies(key, path.dirname(copy));
        return;
      } catch {
        // another file system, or the same copy made meanwhile: the file is simply removed
      }
    }
    await rm(source, { force: true });
  }

  async get(key: string): Promise<Buffer> {
    const out = await this.getObject(key);
    const bytes = await out.Body!.transformToByteArray();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  async open(key: string): Promise<BlobReader> {
    // The whole object is asked for now, so the bytes streamed are this version's even if the key is replaced
    // before the caller reads them (S3 keeps no old version to ask for later, unless the bucket is versioned).
    const out = await this.getObject(key);
    const body = out.Body as Readable;
    const stat = statOf(out);
    const version: Version = { etag: out.ETag, versionId: out.VersionId };
    let taken = false;
    return {
      stat,
      stream: (range?: BlobRange): Readable => {
        if (taken) throw new Error('a blob reader streams once');
        taken = true;
        if (!range) return body;
        if (range.start <= SKIP_LIMIT) return byteWindow(body, range.start, range.end - range.start + 1);
        // Far into the object: ask for the range, pinned to the version opened (its VersionId, else If-Match),
        // so an overwrite in between fails the stream instead of mixing two versions.
        body.destroy();
        return deferred((signal) => this.getRange(key, range, version, signal));
      },
      close: async () => {
        if (!taken) body.destroy();
      },
    };
  }

  async stream(key: string, range?: BlobRange): Promise<Readable> {
    return range ? this.getRange(key, range) : (await this.getObject(key)).Body as Readable;
  }

  async stat(key: string): Promise<BlobStat | null> {
    return (await this.head(this.objectKey(key)))?.stat ?? null;
  }

  async withLocalFile<T>(key: string, fn: (file: string) => Promise<T>): Promise<T> {
    const objectKey = this.objectKey(key);
    const head = await this.head(objectKey);
    if (!head) throw new BlobNotFoundError(key);
    const file = await this.localCopy(key, etagName(head.etag, head.stat));
    const folder = path.dirname(file);
    this.inUse.set(folder, (this.inUse.get(folder) ?? 0) + 1);
    try {
      return await fn(file);
    } finally {
      const n = (this.inUse.get(folder) ?? 1) - 1;
      if (n > 0) this.inUse.set(folder, n);
      else this.inUse.delete(folder);
    }
  }

  async delete(key: string): Promise<void> {
    const Key = this.objectKey(key);
    const { s3, client } = await this.sdk();
    await client.send(new s3.DeleteObjectCommand({ Bucket: this.bucket, Key }));
    await this.pruneCopies(key, null);
  }

  async deletePrefix(prefix: string): Promise<void> {
    const clean = prefix.replace(/\/+$/, '');
    const listed = `${this.objectKey(clean)}/`;
    const { s3, client } = await this.sdk();
    // ListObjects (v1) pages by the last key seen, which every S3-compatible store implements; some cannot
    // make ListObjectsV2's continuation tokens (s3rver's need DES, which Node's OpenSSL 3 no longer has).
    let marker: string | undefined;
    for (;;) {
      const page = await client.send(new s3.ListObjectsCommand({ Bucket: this.bucket, Prefix: listed, Marker: marker, MaxKeys: DELETE_BATCH }));
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length > 0) {
        const out = await client.send(new s3.DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }));
        const failed = out.Errors ?? [];
        if (failed.length > 0) throw new Error(`S3 could not delete ${failed.length} objects under ${listed} (first: ${failed[0]!.Key}: ${failed[0]!.Code} ${failed[0]!.Message ?? ''})`);
      }
      if (!page.IsTruncated || keys.length === 0) break;
      marker = keys[keys.length - 1]!.Key;
    }
    await rm(path.join(this.cacheDir, ...clean.split('/')), { recursive: true, force: true });
  }

  async url(key: string, opts: BlobUrlOptions = {}): Promise<string> {
    const Key = this.objectKey(key);
    const expiresIn = checkLinkTtl(opts.expiresInSec ?? this.linkTtlSec);
    const { s3, presigner, client } = await this.sdk();
    return presigner.getSignedUrl(client, new s3.GetObjectCommand({ Bucket: this.bucket, Key }), { expiresIn });
  }

  /** Readiness (/readyz): the bucket answers and these credentials may use it. */
  async ping(): Promise<string> {
    const { s3, client } = await this.sdk();
    try {
      await client.send(new s3.HeadBucketCommand({ Bucket: this.bucket }));
    } catch (e) {
      // A HEAD answer has no body: the SDK can only say "UnknownError", so the status says what went wrong.
      const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404) throw new Error(`bucket ${this.bucket} does not exist`, { cause: e });
      if (status === 403) throw new Error(`bucket ${this.bucket} refuses these credentials (HTTP 403)`, { cause: e });
      if (status === 301) throw new Error(`bucket ${this.bucket} is in another region than the one configured (HTTP 301)`, { cause: e });
      throw e;
    }
    return `bucket ${this.bucket} reachable`;
  }

  /** Closes the client's connections (a process that ends its engine). */
  async destroy(): Promise<void> {
    (await this.sdkLoaded)?.client.destroy();
  }

  /** Stores a body under a key through lib-storage (one PUT or a multipart upload); the new object's ETag. */
  private async upload(key: string, body: Buffer | string | Readable, size?: number): Promise<string | undefined> {
    const Key = this.objectKey(key);
    const partSize = size === undefined ? this.partSize : Math.max(this.partSize, Math.ceil(size / MAX_PARTS));
    const { storage, client } = await this.sdk();
    const upload = new storage.Upload({
      client,
      params: { Bucket: this.bucket, Key, Body: body, ContentType: CONTENT_TYPES[path.posix.extname(key).toLowerCase()] ?? 'application/octet-stream' },
      partSize, queueSize: UPLOAD_QUEUE, leavePartsOnError: false,
    });
    const out = await upload.done();
    return 'ETag' in out ? out.ETag : undefined;
  }

  private async getObject(key: string, extra: { Range?: string; IfMatch?: string; VersionId?: string } = {}, signal?: AbortSignal): Promise<GetObjectCommandOutput> {
    const Key = this.objectKey(key);
    const { s3, client } = await this.sdk();
    try {
      return await client.send(new s3.GetObjectCommand({ Bucket: this.bucket, Key, ...extra }), { abortSignal: signal });
    } catch (e) {
      throw isMissing(e) ? new BlobNotFoundError(key) : e;
    }
  }

  /** The bytes of an inclusive range (of one version, when given), exactly: a server answering more is trimmed. */
  private async getRange(key: string, range: BlobRange, version?: Version, signal?: AbortSignal): Promise<Readable> {
    if (!Number.isSafeInteger(range.start) || !Number.isSafeInteger(range.end) || range.start < 0 || range.end < range.start)
      throw new RangeError(`not a byte range: ${range.start}-${range.end}`);
    const pin = version?.versionId ? { VersionId: version.versionId } : version?.etag ? { IfMatch: version.etag } : {};
    const out = await this.getObject(key, { Range: `bytes=${range.start}-${range.end}`, ...pin }, signal);
    const body = out.Body as Readable;
    const given = /^bytes (\d+)-(\d+)\//.exec(out.ContentRange ?? '');
    const from = given ? Number(given[1]) : 0;
    const to = given ? Number(given[2]) : (out.ContentLength ?? 0) - 1;
    if (from === range.start && to === range.end) return body;
    if (from > range.start) {
      body.destroy();
      throw new Error(`the store answered bytes ${from}-${to} of ${key} for ${range.start}-${range.end}`);
    }
    // Some S3-compatible servers widen a range (s3rver answers "bytes=0-0" with the whole object).
    return byteWindow(body, range.start - from, range.end - range.start + 1);
  }

  private async head(objectKey: string): Promise<{ stat: BlobStat; etag: string | undefined } | null> {
    const { s3, client } = await this.sdk();
    try {
      const out = await client.send(new s3.HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }));
      return { stat: statOf(out), etag: out.ETag };
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  /**
   * The local copy of one version of an object: `<cacheDir>/<key>@/<version>/<name>` (a key's segments are
   * never `…@`, so no key's folder meets another's copies). Downloaded once, through a temp name, then reused
   * while the object keeps that ETag; copies of older versions are removed when a newer one arrives.
   */
  private async localCopy(key: string, version: string): Promise<string> {
    const file = this.copyPath(key, version);
    const folder = path.dirname(file);
    const running = this.downloads.get(folder);
    if (running) return running;
    const made = (async () => {
      if (await isFile(file)) return file;
      const out = await this.getObject(key);
      // The bytes received are named by their own ETag (the object may have changed since the HEAD).
      const got = this.copyPath(key, etagName(out.ETag, statOf(out)));
      await mkdir(path.dirname(got), { recursive: true });
      const tmp = `${got}.${process.pid}.${randomBytes(4).toString('hex')}.part`;
      try {
        await pipeline(out.Body as Readable, createWriteStream(tmp, { flags: 'wx' }));
        await rename(tmp, got);
      } catch (e) {
        await rm(tmp, { force: true });
        throw e;
      }
      await this.pruneCopies(key, path.dirname(got));
      return got;
    })();
    this.downloads.set(folder, made);
    try {
      return await made;
    } finally {
      this.downloads.delete(folder);
    }
  }

  private copyPath(key: string, version: string): string {
    const segments = key.split('/');
    return path.join(this.cacheDir, ...segments.slice(0, -1), `${segments.at(-1)}@`, version, segments.at(-1)!);
  }

  /** The version folder name when `file` is one of this store's local copies of `key`, else null. */
  private copyVersionOf(key: string, file: string): string | null {
    const folder = path.dirname(file);
    return path.dirname(folder) === path.dirname(path.dirname(this.copyPath(key, 'v'))) && path.basename(file) === path.posix.basename(key)
      ? path.basename(folder) : null;
  }

  /** Removes a key's local copies other than `keep` (a version folder), leaving those a callback is using. */
  private async pruneCopies(key: string, keep: string | null): Promise<void> {
    const versions = path.dirname(path.dirname(this.copyPath(key, 'v')));
    let names: string[];
    try {
      names = await readdir(versions);
    } catch {
      return;
    }
    for (const name of names) {
      const folder = path.join(versions, name);
      if (folder !== keep && !this.inUse.has(folder) && !this.downloads.has(folder)) await rm(folder, { recursive: true, force: true });
    }
  }
}

function checkLinkTtl(sec: number): number {
  if (!Number.isSafeInteger(sec) || sec < 1 || sec > MAX_LINK_TTL_SEC)
    throw new RangeError(`an S3 presigned link lives 1 to ${MAX_LINK_TTL_SEC} seconds (7 days), not ${sec}`);
  return sec;
}

function statOf(out: { ContentLength?: number; LastModified?: Date }): BlobStat {
  return { size: out.ContentLength ?? 0, mtimeMs: out.LastModified?.getTime() ?? 0 };
}

/** A folder name for a version: its ETag (quotes and odd characters dropped), else its size and time. */
function etagName(etag: string | undefined, st: BlobStat): string {
  const clean = (etag ?? '').replace(/[^A-Za-z0-9-]/g, '');
  return clean || `${st.size}-${st.mtimeMs}`;
}

/** No such object (a GET's NoSuchKey, a HEAD's bare 404). A missing bucket is an error, not a missing key. */
function isMissing(e: unknown): boolean {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  if (err?.name === 'NoSuchBucket') return false;
  return err?.name === 'NoSuchKey' || err?.name === 'NotFound' || err?.$metadata?.httpStatusCode === 404;
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** `length` bytes of `source` after skipping `skip`; the source is released as soon as they are through. */
function byteWindow(source: Readable, skip: number, length: number): Readable {
  return Readable.from((async function* () {
    let toSkip = skip;
    let left = length;
    try {
      for await (const chunk of source) {
        let c = chunk as Buffer;
        if (toSkip > 0) {
          if (c.length <= toSkip) {
            toSkip -= c.length;
            continue;
          }
          c = c.subarray(toSkip);
          toSkip = 0;
        }
        if (c.length >= left) {
          yield c.subarray(0, left);
          return;
        }
        left -= c.length;
        yield c;
      }
    } finally {
      source.destroy();
    }
  })(), { objectMode: false });
}

/** A stream whose source is opened when it is first read; destroying it first aborts the request. */
function deferred(open: (signal: AbortSignal) => Promise<Readable>): Readable {
  const abort = new AbortController();
  const out = Readable.from((async function* () {
    yield* await open(abort.signal);
  })(), { objectMode: false });
  out.once('close', () => abort.abort());
  return out;
}
