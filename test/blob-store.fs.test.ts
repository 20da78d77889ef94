// The blob store conformance suite against today's adapter: the data dir.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';
import { blobStoreConformance } from './conformance/blob-store.js';

blobStoreConformance('data dir (fs)', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'blobs-fs-'));
  return { port: new FsBlobStore(dir), close: async () => rmSync(dir, { recursive: true, force: true }) };
});
