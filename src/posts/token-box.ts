// Platform tokens at rest: AES-256-GCM under a key derived from SHORTS_SECRET_KEY (issue 16). The database
// file alone (a backup, a copied shorts.db) never yields a token. Each box is bound to the row and field it
// was written for (GCM's additional data), so a token copied into another account's row does not open.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** Stored form: `v1.<iv>.<tag>.<ciphertext>` in base64url; the version lets a later scheme coexist. */
const VERSION = 'v1';
const IV_BYTES = 12;

export class TokenBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenBoxError';
  }
}

function subkey(secret: Buffer, purpose: string): Buffer {
  // HKDF: the tokens' key and the OAuth state's MAC key are independent although one secret feeds both.
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `shortwright ${purpose}`, 32));
}

export class TokenBox {
  private readonly encKey: Buffer;
  private readonly macKey: Buffer;

  constructor(secret: Buffer) {
    if (secret.length !== 32) throw new TokenBoxError('the secret key must be 32 bytes');
    this.encKey = subkey(secret, 'connected-account tokens v1');
    this.macKey = subkey(secret, 'oauth state v1');
  }

  /** `context` names what the value is (e.g. `<row id>/access_token`): opening needs the same one. */
  seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.encKey, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  open(sealed: string, context: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION) throw new TokenBoxError('the stored token is not in a known format');
    const [, iv, tag, body] = parts as [string, string, string, string];
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.encKey, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new TokenBoxError('the stored token does not open with this SHORTS_SECRET_KEY (it was written with another key, or altered)');
    }
  }

  /** A MAC over `text` (base64url), for values that travel through a browser and must come back unaltered. */
  mac(text: string): string {
    return createHmac('sha256', this.macKey).update(text, 'utf8').digest('base64url');
  }

  verifyMac(text: string, mac: string): boolean {
    const want = Buffer.from(this.mac(text), 'utf8');
    const got = Buffer.from(mac, 'utf8');
    return want.length === got.length && timingSafeEqual(want, got);
  }
}
