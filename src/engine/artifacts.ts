// A request's artifacts in the blob store (src/ports/blob-store.ts): its JSON checkpoints (`source`, `transcript`,
// `plan`, `render-<shortId>`, `cues-<shortId>`, `clip-<shortId>`), the fetched source while the request runs, the
// captions kept as rendered, and the keys of its clips. Everything
// here is something a later step or another process needs (a resumed job, a re-render, an export), so it is
// a blob, never a path: with the data dir adapter the keys are the very files earlier versions wrote
// (`jobs/<id>/<name>.json`, `jobs/<id>/captions/<shortId>.ass`, `jobs/<id>/clips/01-<shortId>.mp4`), so
// existing data dirs need no migration. Scratch work (downloads, WAVs, ffmpeg's files) is not here: see scratch.ts.
import { BlobNotFoundError, type BlobStore } from '../ports/blob-store.js';

export class JobArtifacts {
  /** The key prefix of every blob of the request (removed with it when it fails or is cancelled). */
  readonly prefix: string;
  constructor(private readonly blobs: BlobStore, readonly requestId: string) {
    this.prefix = `jobs/${requestId}`;
  }
  /** The blob key of a clip's MP4 (what shorts.file_key holds). */
  clipKey(rank: number, shortId: string): string { return `${this.prefix}/clips/${String(rank + 1).padStart(2, '0')}-${shortId}.mp4`; }
  /** The blob key of a clip's captions as rendered (the ASS libass burned in): exports give it, a re-render replaces it. */
  captionsKey(shortId: string): string { return `${this.prefix}/captions/${shortId}.ass`; }
  /** Checkpoint name of a clip's render plan as rendered (RenderPlan with its measured gains). */
  static renderPlanName(shortId: string): string { return `render-${shortId}`; }
  /** Checkpoint name of a clip's caption cues (CaptionCue[], clip time) as rendered. */
  static cuesName(shortId: string): string { return `cues-${shortId}`; }
  /** Checkpoint name of a clip's outcome (its ShortRecord) saved by its render job for the request's finalize job. */
  static clipOutcomeName(shortId: string): string { return `clip-${shortId}`; }
  /** The blob key of the fetched source (a download; `ext` its file's extension): later stages may run on other machines. */
  sourceKey(ext: string): string { return `${this.prefix}/source${ext.replace(/[^A-Za-z0-9.]/g, '').slice(0, 8)}`; }

  /** A checkpoint, or null when there is none or it does not parse: a missing or torn checkpoint is redone, not trusted. */
  async read<T>(name: string): Promise<T | null> {
    let bytes: Buffer;
    try {
      bytes = await this.blobs.get(this.checkpointKey(name));
    } catch (e) {
      if (e instanceof BlobNotFoundError) return null;
      throw e;
    }
    try {
      return JSON.parse(bytes.toString('utf8')) as T;
    } catch {
      return null;
    }
  }

  /** Replaces a checkpoint (atomically: the store's put). */
  async write(name: string, value: unknown): Promise<void> {
    await this.blobs.put(this.checkpointKey(name), JSON.stringify(value));
  }

  /** Whether a checkpoint is there (without reading it). */
  async has(name: string): Promise<boolean> {
    return (await this.blobs.stat(this.checkpointKey(name))) !== null;
  }

  async remove(name: string): Promise<void> {
    await this.blobs.delete(this.checkpointKey(name));
  }

  /** Every blob of the request: checkpoints, captions, clips and covers. */
  async removeAll(): Promise<void> {
    await this.blobs.deletePrefix(this.prefix);
  }

  private checkpointKey(name: string): string { return `${this.prefix}/${name}.json`; }
}
