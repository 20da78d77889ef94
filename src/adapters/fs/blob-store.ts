// The data dir as a blob store (today's adapter of src/ports/blob-store.ts): a key is a file under the root
// (`<dataDir>/jobs/<requestId>/clips/01-<shortId>.mp4`), so the job folders the engine works in are the
// objects themselves and nothing is copied. Writes go to a temp file beside the target and are renamed over
// it: a reader holding the old file keeps reading it whole, a new reader gets the new one whole.
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, open, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { BlobNotFoundError, checkBlobKey, type BlobRange, type BlobReader, type BlobStat, type BlobStore } from '../../ports/blob-store.js';

export class FsBlobStore implements BlobStore {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** The file of a key (validated: never outside the root). */
  pathOf(key: string): string {
    checkBlobKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  async put(key: string, data: Buffer | string | Readable): Promise<void> {
    await this.replace(key, async (tmp) => {
      if (typeof data === 'string' || Buffer.isBuffer(data)) await writeFile(tmp, data, { flag: 'wx' });
      else await pipeline(data, createWriteStream(tmp, { flags: 'wx' }));
    });
  }

  async putFile(key: string, file: string, opts: { move?: boolean } = {}): Promise<void> {
    const target = this.pathOf(key);
    const source = path.resolve(file);
    if (source === target) {
      await statOrMissing(key, target);
      return;
    }
    if (opts.move) {
      await mkdir(path.dirname(target), { recursive: true });
      try {
        await rename(source, target);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
      }
    }
    // Another file system (or a copy asked for): copied beside the target, then renamed over it.
    await this.replace(key, (tmp) => copyFile(source, tmp));
    if (opts.move) await rm(source, { force: true });
  }

  async get(key: string): Promise<Buffer> {
    try {
      return await readFile(this.pathOf(key));
    } catch (e) {
      throw missingOr(e, key);
    }
  }

  async open(key: string): Promise<BlobReader> {
    return openFileReader(this.pathOf(key), key);
  }

  async stream(key: string, range?: BlobRange): Promise<Readable> {
    const reader = await this.open(key);
    return reader.stream(range);
  }

  async stat(key: string): Promise<BlobStat | null> {
    try {
      const st = await stat(this.pathOf(key));
      return st.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : null;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
      throw e;
    }
  }

  async withLocalFile<T>(key: string, fn: (file: string) => Promise<T>): Promise<T> {
    const file = this.pathOf(key);
    await statOrMissing(key, file);
    return fn(file);
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await rm(this.pathOf(prefix.replace(/\/+$/, '')), { recursive: true, force: true });
  }

  /** Only this machine can open a file:// link: a server hands out links of its own instead. */
  readonly sharedLinks = false;

  async url(key: string): Promise<string> {
    return pathToFileURL(this.pathOf(key)).href;
  }

  /** Writes through a private temp name beside the target, then renames it over the target. */
  private async replace(key: string, write: (tmp: string) => Promise<void>): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await write(tmp);
      await rename(tmp, target);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  }
}

/**
 * Opens a local file as a BlobReader (the data dir's objects, and the package's own files `serve` hands out):
 * the open file is measured, so its size and time are those of the bytes streamed even if the name is
 * replaced meanwhile. BlobNotFoundError (naming `key`) when there is no such file.
 */
export async function openFileReader(file: string, key = file): Promise<BlobReader> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (e) {
    throw missingOr(e, key);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new BlobNotFoundError(key);
    let taken = false;
    return {
      stat: { size: st.size, mtimeMs: st.mtimeMs },
      stream(range?: BlobRange): Readable {
        if (taken) throw new Error('a blob reader streams once');
        taken = true;
        // The stream owns the handle from here and closes it when it ends or is destroyed.
        return handle.createReadStream({ start: range?.start, end: range?.end, autoClose: true });
      },
      async close() {
        if (!taken) await handle.close().catch(() => undefined);
      },
    };
  } catch (e) {
    await handle.close().catch(() => undefined);
    throw e;
  }
}

async function statOrMissing(key: string, file: string): Promise<void> {
  try {
    if (!(await stat(file)).isFile()) throw new BlobNotFoundError(key);
  } catch (e) {
    throw missingOr(e, key);
  }
}

function missingOr(e: unknown, key: string): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' ? new BlobNotFoundError(key) : e;
}
