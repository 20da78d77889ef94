// The checkpoints a request's stages leave for the ones after them: the fetched source's facts and the clip plan
// (the transcript's checkpoint is the Transcript itself; each clip's are its render plan, cues and outcome).
//
// Where things live: checkpoints (the source's facts, the transcript, the plan, each clip's outcome), the kept
// captions, clips and covers are blobs (artifacts.ts) — what a stage job, a re-render or an export needs, on this
// machine or another; the rest is this machine's scratch (scratch.ts), a cache a stage rebuilds where it is
// missing (the range's speech WAV is decoded again). A downloaded source is a blob while its request runs (with
// the data dir a rename; a stage elsewhere gets a local copy), removed once the request completes (disk is the
// scarce thing on a server): a re-render fetches it again (through the same URL guard), as it always has.
import { existsSync } from 'node:fs';
import type { BlobStore } from '../ports/blob-store.js';
import type { ClipCopy, Highlight } from '../domain/highlight.js';
import type { FetchedSource, MediaInfo } from '../domain/source.js';
import type { TimeRange } from '../domain/time.js';

/** `sourceKey`: the download stored as a blob (artifacts.ts); absent for a local file, which stays where it is. */
export interface SourceCheckpoint { source: FetchedSource; info: MediaInfo; range: TimeRange; sourceKey?: string }
export interface PlanCheckpoint { clips: { id: string; highlight: Highlight; copy: ClipCopy }[] }

/**
 * Runs `fn` with the source as a local file: where the checkpoint names it on this machine, else the stored
 * object's local copy (the fetch stage may have run elsewhere; with the data dir it is the very file).
 */
export async function withSourceFile<T>(blobs: BlobStore, cp: SourceCheckpoint, fn: () => Promise<T>): Promise<T> {
  if (!cp.sourceKey || existsSync(cp.source.path)) return fn();
  return blobs.withLocalFile(cp.sourceKey, async (file) => {
    cp.source.path = file;
    return fn();
  });
}
