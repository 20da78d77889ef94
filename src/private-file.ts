// Small secret files of a data dir (the media link secret, the token key): read if present, and created once
// even when several processes start at the same moment. A neutral module: every layer may import it.
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

/** The file's text, or null when it does not exist (any other read error is thrown). */
export function readTextIfExists(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * Creates `file` holding `content` unless it exists; true when this call created it. Writes a private temp
 * file (mode 0600 from the start, never a moment world-readable) and hard-links it into place: link fails
 * when the name exists, so of two processes starting at once exactly one content wins and nobody reads a
 * half-written file.
 */
export function createPrivateFileOnce(file: string, content: string): boolean {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return false;
  } finally {
    rmSync(tmp, { force: true });
  }
}
