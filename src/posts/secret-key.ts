// The key that encrypts connected accounts' platform tokens at rest (issue 16): SHORTS_SECRET_KEY when set,
// else one generated on first use into `<data dir>/secret.key` with mode 0600. Losing the key loses every
// saved token (the accounts must be connected again), so a generated one is never silently replaced: a
// file that does not hold a valid key is an error, not a reason to write a new one.
import { randomBytes } from 'node:crypto';
import { createPrivateFileOnce, readTextIfExists } from '../private-file.js';
import path from 'node:path';
import { setting } from '../settings.js';

export const SECRET_KEY_FILE = 'secret.key';
const KEY_BYTES = 32;

export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

/**
 * 32 bytes written as 64 hex digits or as base64 (standard or URL-safe, padding optional); anything else
 * (a passphrase, 16 or 48 bytes, a typo) is refused, naming where the value came from.
 */
export function parseSecretKey(text: string, from: string): Buffer {
  const v = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(v)) {
    const key = Buffer.from(v.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  throw new SecretKeyError(`${from} must be 32 bytes written as 64 hex digits or as base64 (e.g. the output of \`openssl rand -hex 32\`); `
    + `got ${v.length} characters that are neither`);
}

/**
 * Refuses a malformed SHORTS_SECRET_KEY at once (for `serve`'s start), without reading or creating the key
 * file: an operator's typo should stop the server, not surface at the first connected account.
 */
export function checkSecretKeySetting(env: NodeJS.ProcessEnv = process.env): void {
  const v = setting('SHORTS_SECRET_KEY', env);
  if (v !== undefined) parseSecretKey(v, 'SHORTS_SECRET_KEY');
}

export interface SecretKeyOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
}

/** Where the key comes from and the key itself; `generated` is true when this call wrote the file. */
export interface SecretKey { key: Buffer; source: 'env' | 'file'; file: string | null; generated: boolean }

/**
 * SHORTS_SECRET_KEY, else `<dataDir>/secret.key`, created when missing. Created through
 * createPrivateFileOnce: of two processes starting at once exactly one key wins and both use it.
 */
export function loadSecretKey(opts: SecretKeyOptions): SecretKey {
  const fromEnv = setting('SHORTS_SECRET_KEY', opts.env);
  if (fromEnv !== undefined) return { key: parseSecretKey(fromEnv, 'SHORTS_SECRET_KEY'), source: 'env', file: null, generated: false };
  const file = path.join(opts.dataDir, SECRET_KEY_FILE);
  const existing = readKeyFile(file);
  if (existing) return { key: existing, source: 'file', file, generated: false };
  // Another process may win the race: its key is the key.
  const generated = createPrivateFileOnce(file, `${randomBytes(KEY_BYTES).toString('hex')}\n`);
  const key = readKeyFile(file);
  if (!key) throw new SecretKeyError(`${file} could not be read back`);
  return { key, source: 'file', file, generated };
}

function readKeyFile(file: string): Buffer | null {
  const text = readTextIfExists(file);
  if (text === null) return null;
  return parseSecretKey(text, `${file} (the generated SHORTS_SECRET_KEY; restore it from your backup, or set SHORTS_SECRET_KEY)`);
}
