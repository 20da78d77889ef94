// Temporary links to rendered clips (spec 2.3: `video_url` is temporary) and to their cover images (the
// `thumbnail_url` extension, issue 14). The path names the clip, `expires` is a unix time and `sig` an
// HMAC-SHA256 over "requestId/shortId/expires" (the MP4) or "requestId/shortId/expires/jpg" (the cover),
// so a link can be neither extended nor pointed at another clip, nor a clip's link turned into its
// cover's. The secret lives in the data dir, so links handed out before a restart still work after it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync } from 'node:fs';
import { createPrivateFileOnce, readTextIfExists } from '../private-file.js';
import path from 'node:path';
import { DEFAULT_MEDIA_TTL_SEC } from '../media-ttl.js';

export { DEFAULT_MEDIA_TTL_SEC, parseMediaTtl } from '../media-ttl.js';

export interface MediaLinksOptions {
  /** At least 16 bytes; `loadOrCreateSecret` gives 32. */
  secret: Buffer;
  /** Base of the links, e.g. http://127.0.0.1:8080 (SHORTS_PUBLIC_URL, else the server's address). */
  publicBaseUrl: string;
  /** Lifetime of a link in seconds; default 24 h (SHORTS_MEDIA_TTL, see parseMediaTtl). */
  ttlSec?: number;
  /** Milliseconds since the epoch; tests pass a fake clock. */
  now?: () => number;
}

export type LinkVerdict = 'ok' | 'expired' | 'invalid';

/** What a media link serves: the clip (`video_url`) or its cover image (`thumbnail_url`). */
export type MediaKind = 'mp4' | 'jpg';
export const MEDIA_CONTENT_TYPES: Readonly<Record<MediaKind, string>> = { mp4: 'video/mp4', jpg: 'image/jpeg' };

/** A media path (`/media/<requestId>/<shortId>.mp4|.jpg`) taken apart; null for anything else. */
export function parseMediaPath(pathname: string): { requestId: string; shortId: string; kind: MediaKind } | null {
  const m = /^\/media\/([0-9a-f]{24})\/([0-9a-f-]{36})\.(mp4|jpg)$/.exec(pathname);
  return m ? { requestId: m[1]!, shortId: m[2]!, kind: m[3] as MediaKind } : null;
}

/** A source link signs "requestId/source/expires/source": no clip id is "source" (they are UUIDs), so it names no clip's file. */
const SOURCE = 'source';
const MIN_SECRET_BYTES = 16;
const SECRET_FILE = 'media-secret';
/** A unix time in seconds; 12 digits reach the year 33658, and bound what Number() has to parse. */
const EXPIRES_PATTERN = /^\d{1,12}$/;

export class MediaLinks {
  private readonly ttlSec: number;
  private readonly now: () => number;
  private readonly base: string;

  constructor(private readonly opts: MediaLinksOptions) {
    if (opts.secret.length < MIN_SECRET_BYTES) throw new RangeError(`the media link secret needs at least ${MIN_SECRET_BYTES} bytes`);
    this.ttlSec = opts.ttlSec ?? DEFAULT_MEDIA_TTL_SEC;
    if (!Number.isSafeInteger(this.ttlSec) || this.ttlSec < 1) throw new RangeError(`the media link lifetime must be a whole number of seconds >= 1, got ${opts.ttlSec}`);
    this.now = opts.now ?? Date.now;
    this.base = opts.publicBaseUrl.replace(/\/+$/, '');
  }

  /** A link to one clip (or, with kind 'jpg', to its cover image), valid for the configured lifetime from now. */
  url(requestId: string, shortId: string, kind: MediaKind = 'mp4'): string {
    if (!isSegment(requestId) || !isSegment(shortId)) throw new RangeError('request and clip ids must be non-empty and contain no "/"');
    const expires = String(Math.floor(this.now() / 1000) + this.ttlSec);
    return `${this.base}/media/${requestId}/${shortId}.${kind}?expires=${expires}&sig=${this.sign(requestId, shortId, expires, kind)}`;
  }

  /** The `source_video_url` of a request (issue 25): a signed link to the source video it keeps. */
  sourceUrl(requestId: string): string {
    if (!isSegment(requestId)) throw new RangeError('request ids must be non-empty and contain no "/"');
    const expires = String(Math.floor(this.now() / 1000) + this.ttlSec);
    return `${this.base}/media/${requestId}/source?expires=${expires}&sig=${this.sign(requestId, SOURCE, expires, SOURCE)}`;
  }

  /** The `thumbnail_url` of a clip: a signed link to its cover image. */
  thumbnailUrl(requestId: string, shortId: string): string {
    return this.url(requestId, shortId, 'jpg');
  }

  /**
   * 'ok' for a link this server signed that has not expired; 'expired' for a genuine link past its
   * time; 'invalid' for anything else (missing parameters, another clip, a changed expiry or signature).
   * The signature is checked before the expiry, so 'expired' is never said about a forged link.
   */
  verify(requestId: string, shortId: string, expires: string | undefined, sig: string | undefined, kind: MediaKind | typeof SOURCE = 'mp4'): LinkVerdict {
    if (!expires || !sig || !EXPIRES_PATTERN.test(expires) || !isSegment(requestId) || !isSegment(shortId)) return 'invalid';
    const expected = Buffer.from(this.sign(requestId, shortId, expires, kind), 'utf8');
    const given = Buffer.from(sig, 'utf8');
    // Lengths are public (a SHA-256 HMAC is always 43 base64url characters); the bytes are compared in constant time.
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 < this.now() ? 'expired' : 'ok';
  }

  /** 'ok', 'expired' or 'invalid' (as verify) for a request's source link. */
  verifySource(requestId: string, expires: string | undefined, sig: string | undefined): LinkVerdict {
    return this.verify(requestId, SOURCE, expires, sig, SOURCE);
  }

  private sign(requestId: string, shortId: string, expires: string, kind: MediaKind | typeof SOURCE): string {
    // The MP4's text is unchanged from before covers existed, so links already handed out keep working.
    const text = kind === 'mp4' ? `${requestId}/${shortId}/${expires}` : `${requestId}/${shortId}/${expires}/${kind}`;
    return createHmac('sha256', this.opts.secret).update(text).digest('base64url');
  }
}

/** "/" is the separator of the signed text: an id containing one could be re-split into another pair. */
function isSegment(id: string): boolean {
  return id.length > 0 && !id.includes('/');
}

/**
 * The signing secret of this data dir: 32 random bytes kept (base64) in <dataDir>/media-secret with
 * mode 0600, created on first use and reused afterwards. Creation goes through a private temp file and
 * a hard link, so two processes starting at once agree on one secret and nobody reads a half-written file.
 */
export function loadOrCreateSecret(dataDir: string): Buffer {
  const file = path.join(dataDir, SECRET_FILE);
  const existing = readSecret(file);
  if (existing) return existing;
  createPrivateFileOnce(file, `${randomBytes(32).toString('base64')}\n`); // or another process's, if it won the race
  const secret = readSecret(file);
  if (!secret) throw new Error(`${file} could not be read back`);
  return secret;
}

function readSecret(file: string): Buffer | null {
  const text = readTextIfExists(file);
  if (text === null) return null;
  const secret = Buffer.from(text.trim(), 'base64');
  // A damaged file must not silently become a weak (or empty) key: say so and let the operator decide.
  if (secret.length < MIN_SECRET_BYTES)
    throw new Error(`${file} does not hold a valid media link secret; delete it to create a new one (existing links stop working)`);
  // Kept private even if someone loosened it: anyone who reads it can mint links to every clip.
  try {
    chmodSync(file, 0o600);
  } catch {
    // not ours to change (another owner, a read-only mount): reading it is all we need
  }
  return secret;
}
