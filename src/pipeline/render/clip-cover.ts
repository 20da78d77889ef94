// The clip's cover image (issue 14), made after every render and put beside its MP4 in the blob store.
import { rmSync } from 'node:fs';
import { AbortedError } from '../../media/process.js';
import type { RenderPlan } from '../../media/render-plan.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import type { FaceDetector } from '../reframe/faces.js';
import { writeCover } from './cover-image.js';

/**
 * Writes the cover of the clip rendered by `plan` at `out` and puts it under `key`; returns the key. A
 * cover that cannot be made does not cost the clip its render: it has no cover then (null, no thumbnail_url),
 * and never the cover of an earlier render beside the new clip.
 */
export async function putClipCover(plan: RenderPlan, target: { key: string; out: string }, blobs: BlobStore,
  o: { hookTitle: string | null; signal: AbortSignal; media: MediaRunner; faces?: FaceDetector }): Promise<string | null> {
  const { key, out } = target;
  const { signal } = o;
  try {
    await writeCover(plan, out, { hookTitle: o.hookTitle, signal, media: o.media, faces: o.faces });
    await blobs.putFile(key, out, { move: true });
    return key;
  } catch (e) {
    if (signal.aborted || e instanceof AbortedError) throw e;
    rmSync(out, { force: true });
    await blobs.delete(key);
    return null;
  }
}
