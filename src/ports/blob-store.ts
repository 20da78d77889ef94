// The blob store port (issue 22): where clips, covers and other job objects live. Today's adapter is the
// data dir (src/adapters/fs/blob-store.ts); a later one is S3. Callers name objects by keys, never by paths:
// a key is relative, '/'-separated and deterministic (`jobs/<requestId>/clips/01-<shortId>.mp4`), so the
// database stores the same key whatever holds the bytes. Every method is async, `url` included: an S3
// presigned GET is signed with credentials the SDK may have to fetch or refresh first (a role, SSO, a
// credential process), so a link cannot be promised without waiting.
import type { Readable } from 'node:stream';

/** What changes when an object is replaced: its size and modification time (ETag and Last-Modified come from them). */
export interface BlobStat { size: number; mtimeMs: number }

/** An inclusive byte range [start, end] of an object, as HTTP Range requests name them. */
export interface BlobRange { start: number; end: number }

/**
 * One version of an object, opened for reading: its stat and its bytes belong to the same version even if
 * the key is overwritten meanwhile (what is measured is what is sent). `stream` may be called once; a reader
 * that is not streamed must be closed.
 */
export interface BlobReader {
  readonly stat: BlobStat;
  /** The bytes (a range of them), as a stream that releases the reader when it ends or is destroyed. */
  stream(range?: BlobRange): Readable;
  close(): Promise<void>;
}

export interface BlobUrlOptions {
  /** How long the link should work (adapters whose links expire); ignored by links that do not. */
  expiresInSec?: number;
}

export interface BlobStore {
  /** Stores bytes under a key; an existing object is replaced atomically (a reader sees the old or the new one whole). */
  put(key: string, data: Buffer | string | Readable): Promise<void>;
  /**
   * Stores a local file under a key (atomically, like put). With `move` the file is taken (renamed where the
   * adapter can); without, it is copied. A file that already is the key's own local copy is left as it is.
   */
  putFile(key: string, file: string, opts?: { move?: boolean }): Promise<void>;
  /** The whole object; BlobNotFoundError when there is none. */
  get(key: string): Promise<Buffer>;
  /** Opens one version of the object for streaming (HTTP Range: stat first, then the range); BlobNotFoundError when missing. */
  open(key: string): Promise<BlobReader>;
  /** The object's bytes (a range of them) as a stream; BlobNotFoundError when missing. */
  stream(key: string, range?: BlobRange): Promise<Readable>;
  /** Size and modification time, or null when there is no such object. */
  stat(key: string): Promise<BlobStat | null>;
  /**
   * Runs `fn` with a local file holding the object, for tools that read a path (ffmpeg, ffprobe, an upload):
   * the data dir's own file, or a downloaded cache copy that stays valid until fn settles. BlobNotFoundError when missing.
   */
  withLocalFile<T>(key: string, fn: (file: string) => Promise<T>): Promise<T>;
  /** Removes one object; no error when there is none. */
  delete(key: string): Promise<void>;
  /** Removes every object whose key starts with `prefix/` (a request's folder, say); `prefix` itself is a key prefix, not a path. */
  deletePrefix(prefix: string): Promise<void>;
  /**
   * A link to the object: a file:// URL for the data dir, a presigned GET for S3 (living `expiresInSec`, else
   * the adapter's default, SHORTS_MEDIA_TTL). InvalidBlobKeyError (a rejection) for a bad key.
   */
  url(key: string, opts?: BlobUrlOptions): Promise<string>;
  /**
   * Whether `url` gives links any client can fetch by itself (S3 presigned GETs): a server hands those out as
   * they are. False when only this machine can read them (file://): a server gives its own signed links then.
   */
  readonly sharedLinks: boolean;
}

/** No object under this key. */
export class BlobNotFoundError extends Error {
  readonly code = 'blob_not_found';
  constructor(readonly key: string) {
    super(`no object under the key "${key}"`);
    this.name = 'BlobNotFoundError';
  }
}

/** A key that is not relative, '/'-separated and free of `.` / `..` segments. */
export class InvalidBlobKeyError extends Error {
  readonly code = 'invalid_blob_key';
  constructor(readonly key: string, why: string) {
    super(`"${key}" is not a blob key: ${why}`);
    this.name = 'InvalidBlobKeyError';
  }
}

/** Characters a key may hold: portable across file systems and object stores, no backslash or control characters. */
const KEY_SEGMENT = /^[A-Za-z0-9._-]+$/;
const MAX_KEY_LENGTH = 1024;

/**
 * Throws InvalidBlobKeyError unless `key` is a valid key: non-empty, relative (no leading '/'), segments of
 * [A-Za-z0-9._-] separated by single '/', none of them '.' or '..'. Shared by every adapter, so a key valid
 * on one is valid on all.
 */
export function checkBlobKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new InvalidBlobKeyError(String(key), 'it is empty');
  if (key.length > MAX_KEY_LENGTH) throw new InvalidBlobKeyError(key.slice(0, 40), `it is longer than ${MAX_KEY_LENGTH} characters`);
  if (key.startsWith('/')) throw new InvalidBlobKeyError(key, 'it is absolute');
  for (const segment of key.split('/')) {
    if (segment === '' ) throw new InvalidBlobKeyError(key, 'it has an empty segment');
    if (segment === '.' || segment === '..') throw new InvalidBlobKeyError(key, `it has a "${segment}" segment`);
    if (!KEY_SEGMENT.test(segment)) throw new InvalidBlobKeyError(key, 'only letters, digits, ".", "_", "-" and "/" are allowed');
  }
}

/** The blob key of a clip's cover image (1080x1920 JPEG): beside its MP4, same name, `.jpg`. */
export function coverKeyOf(clipKey: string): string {
  return clipKey.replace(/\.mp4$/i, '') + '.jpg';
}
