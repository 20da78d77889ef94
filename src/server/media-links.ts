// Temporary links to rendered clips: the path names the clip, `expires` is a unix time and `sig` an
// HMAC over both, so a link cannot be extended or pointed at another clip. The secret lives in the
// data dir, so links survive a restart.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface MediaLinksOptions { secret: Buffer; publicBaseUrl: string; ttlSec?: number; now?: () => number }

export class MediaLinks {
  private readonly ttlSec: number;
  private readonly now: () => number;

  constructor(private readonly opts: MediaLinksOptions) {
    this.ttlSec = opts.ttlSec ?? 24 * 3600;
    this.now = opts.now ?? (() => Date.now());
  }

  url(requestId: string, shortId: string): string {
    const expires = Math.floor(this.now() / 1000) + this.ttlSec;
    return `${this.opts.publicBaseUrl.replace(/\/+$/, '')}/media/${requestId}/${shortId}.mp4?expires=${expires}&sig=${this.sign(requestId, shortId, String(expires))}`;
  }

  verify(requestId: string, shortId: string, expires: string | undefined, sig: string | undefined): 'ok' | 'expired' | 'invalid' {
    if (!expires || !sig || !/^\d{1,12}$/.test(expires)) return 'invalid';
    const expected = Buffer.from(this.sign(requestId, shortId, expires));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 < this.now() ? 'expired' : 'ok';
  }

  private sign(requestId: string, shortId: string, expires: string): string {
    return createHmac('sha256', this.opts.secret).update(`${requestId}/${shortId}/${expires}`).digest('base64url');
  }
}

export function loadOrCreateSecret(dataDir: string): Buffer {
  const file = path.join(dataDir, 'media-secret');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32);
  writeFileSync(file, secret.toString('base64'), { mode: 0o600, flag: 'wx' });
  return secret;
}
