// Conformance suite of the blob store port (src/ports/blob-store.ts), written against the interface only:
// every adapter (the data dir today, S3 later) runs it unchanged. Nothing here may know where bytes live;
// `url` is checked only for being a URL the adapter gives for a key.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobNotFoundError, InvalidBlobKeyError, type BlobStore } from '../../src/ports/blob-store.js';

export type BlobStoreFactory = () => Promise<{ port: BlobStore; close: () => Promise<void> }>;

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

export function blobStoreConformance(name: string, factory: BlobStoreFactory): void {
  describe(`BlobStore conformance: ${name}`, () => {
    let blobs: BlobStore;
    let close: () => Promise<void>;
    // Local files the put-from-file cases start from (the caller's files, not the store's).
    let scratch: string;
    // Every case works under its own prefix, so cases never see each other's objects.
    let n = 0;
    const prefix = () => `conformance/${Date.now().toString(36)}-${++n}`;

    beforeAll(async () => {
      ({ port: blobs, close } = await factory());
      scratch = mkdtempSync(path.join(os.tmpdir(), 'blob-conformance-'));
    });
    afterAll(async () => {
      await close();
      rmSync(scratch, { recursive: true, force: true });
    });

    it('put then get gives the bytes back; stat gives their size and a time', async () => {
      const key = `${prefix()}/a.bin`;
      const bytes = randomBytes(70_000);
      const before = Date.now();
      await blobs.put(key, bytes);
      expect((await blobs.get(key)).equals(bytes)).toBe(true);
      const st = await blobs.stat(key);
      expect(st?.size).toBe(bytes.length);
      expect(st!.mtimeMs).toBeGreaterThan(before - 5 * 60_000);
    });

    it('put takes a string and a stream', async () => {
      const p = prefix();
      await blobs.put(`${p}/text.txt`, 'héllo');
      expect((await blobs.get(`${p}/text.txt`)).toString('utf8')).toBe('héllo');
      const parts = [randomBytes(1000), randomBytes(20_000), randomBytes(5)];
      await blobs.put(`${p}/stream.bin`, Readable.from(parts));
      expect((await blobs.get(`${p}/stream.bin`)).equals(Buffer.concat(parts))).toBe(true);
    });

    it('putFile copies a local file, or takes it with move', async () => {
      const p = prefix();
      const bytes = randomBytes(4096);
      const file = path.join(scratch, `copy-${n}.bin`);
      writeFileSync(file, bytes);
      await blobs.putFile(`${p}/copied.bin`, file);
      expect((await blobs.get(`${p}/copied.bin`)).equals(bytes)).toBe(true);
      expect(existsSync(file)).toBe(true);
      await blobs.putFile(`${p}/moved.bin`, file, { move: true });
      expect((await blobs.get(`${p}/moved.bin`)).equals(bytes)).toBe(true);
      expect(existsSync(file)).toBe(false);
    });

    it('stream gives the whole object or an inclusive byte range', async () => {
      const key = `${prefix()}/r.bin`;
      const bytes = randomBytes(10_000);
      await blobs.put(key, bytes);
      expect((await collect(await blobs.stream(key))).equals(bytes)).toBe(true);
      expect((await collect(await blobs.stream(key, { start: 100, end: 199 }))).equals(bytes.subarray(100, 200))).toBe(true);
      expect((await collect(await blobs.stream(key, { start: 9_999, end: 9_999 }))).equals(bytes.subarray(9_999))).toBe(true);
      expect((await collect(await blobs.stream(key, { start: 0, end: 0 }))).equals(bytes.subarray(0, 1))).toBe(true);
    });

    it('open: the stat and the bytes of one version, a range of them; a reader not streamed closes', async () => {
      const key = `${prefix()}/o.bin`;
      const bytes = randomBytes(5000);
      await blobs.put(key, bytes);
      const reader = await blobs.open(key);
      expect(reader.stat.size).toBe(5000);
      expect((await collect(reader.stream({ start: 4000, end: 4999 }))).equals(bytes.subarray(4000))).toBe(true);
      const unused = await blobs.open(key);
      await unused.close();
    });

    it('an overwrite is atomic: a reader that opened the old object reads it whole, later readers the new one', async () => {
      const key = `${prefix()}/clip.bin`;
      const old = randomBytes(300_000);
      const next = randomBytes(200_000);
      await blobs.put(key, old);
      const reader = await blobs.open(key);
      // Readers racing the overwrite each see one version whole, never a mix or a torn file.
      const racing = Array.from({ length: 5 }, async () => {
        const got = await blobs.get(key);
        return got.equals(old) || got.equals(next);
      });
      await blobs.put(key, next);
      expect(await Promise.all(racing)).toEqual([true, true, true, true, true]);
      const got = await collect(reader.stream());
      expect(reader.stat.size).toBe(old.length);
      expect(got.equals(old)).toBe(true);
      expect((await blobs.get(key)).equals(next)).toBe(true);
      expect((await blobs.stat(key))?.size).toBe(next.length);
    });

    // A job's checkpoints are small JSON objects rewritten in place and read back by the next step at once
    // (read-after-write), and a re-render replaces a clip and its captions with files taken by putFile.
    it('an overwrite, by put or by putFile with move, is read back at once by get, stat and withLocalFile', async () => {
      const p = prefix();
      const key = `${p}/render-a.json`;
      await blobs.put(key, JSON.stringify({ version: 1 }));
      for (let v = 2; v <= 4; v++) {
        const text = JSON.stringify({ version: v, pad: 'x'.repeat(v * 10) });
        await blobs.put(key, text);
        expect(JSON.parse((await blobs.get(key)).toString('utf8'))).toEqual({ version: v, pad: 'x'.repeat(v * 10) });
        expect((await blobs.stat(key))?.size).toBe(Buffer.byteLength(text));
      }
      const clip = `${p}/clips/01-a.mp4`;
      await blobs.put(clip, randomBytes(3000));
      const next = randomBytes(1234);
      const file = path.join(scratch, `next-${n}.mp4`);
      writeFileSync(file, next);
      await blobs.putFile(clip, file, { move: true });
      expect(existsSync(file)).toBe(false);
      expect((await blobs.get(clip)).equals(next)).toBe(true);
      expect((await blobs.stat(clip))?.size).toBe(next.length);
      const { readFileSync } = await import('node:fs');
      expect((await blobs.withLocalFile(clip, async (f) => readFileSync(f))).equals(next)).toBe(true);
    });

    it('withLocalFile hands a readable local file with the bytes', async () => {
      const key = `${prefix()}/local.bin`;
      const bytes = randomBytes(2048);
      await blobs.put(key, bytes);
      const { readFileSync } = await import('node:fs');
      const seen = await blobs.withLocalFile(key, async (file) => readFileSync(file));
      expect(seen.equals(bytes)).toBe(true);
    });

    it('a missing key: stat is null; get, stream, open and withLocalFile throw BlobNotFoundError; delete is quiet', async () => {
      const key = `${prefix()}/missing.bin`;
      expect(await blobs.stat(key)).toBeNull();
      await expect(blobs.get(key)).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(blobs.stream(key)).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(blobs.open(key)).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(blobs.withLocalFile(key, async () => 1)).rejects.toBeInstanceOf(BlobNotFoundError);
      await blobs.delete(key);
      await blobs.deletePrefix(`${prefix()}/nothing-here`);
    });

    it('delete removes one object; deletePrefix everything under prefix/ and nothing beside it', async () => {
      const p = prefix();
      for (const k of ['job/a.mp4', 'job/clips/b.mp4', 'job/clips/b.jpg', 'jobx/c.mp4', 'other.mp4']) await blobs.put(`${p}/${k}`, k);
      await blobs.delete(`${p}/job/a.mp4`);
      expect(await blobs.stat(`${p}/job/a.mp4`)).toBeNull();
      expect(await blobs.stat(`${p}/job/clips/b.mp4`)).not.toBeNull();
      await blobs.deletePrefix(`${p}/job`);
      expect(await blobs.stat(`${p}/job/clips/b.mp4`)).toBeNull();
      expect(await blobs.stat(`${p}/job/clips/b.jpg`)).toBeNull();
      expect((await blobs.get(`${p}/jobx/c.mp4`)).toString()).toBe('jobx/c.mp4');
      expect((await blobs.get(`${p}/other.mp4`)).toString()).toBe('other.mp4');
      // And the key can be written again afterwards.
      await blobs.put(`${p}/job/a.mp4`, 'again');
      expect((await blobs.get(`${p}/job/a.mp4`)).toString()).toBe('again');
    });

    it('url gives a link for a key', async () => {
      const key = `${prefix()}/u.mp4`;
      await blobs.put(key, 'x');
      const link = await blobs.url(key);
      expect(() => new URL(link)).not.toThrow();
    });

    it('keys are relative and clean: absolute, "..", ".", empty segments and odd characters are refused by every method', async () => {
      const bad = ['/etc/passwd', '../up.mp4', 'a/../../b', 'a/./b', 'a//b', '', 'a/', 'a\\b', 'a/b c', 'a/\u0000'];
      for (const key of bad) {
        await expect(blobs.put(key, 'x'), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(blobs.get(key), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(blobs.stat(key), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(blobs.stream(key), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(blobs.delete(key), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(blobs.url(key), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
      }
      for (const key of ['/abs', '..', 'a/../b']) await expect(blobs.deletePrefix(key), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
    });
  });
}
