// Deterministic per-request paths and JSON checkpoints, so a restarted job skips finished stages. The job's
// folder in the data dir is where the engine works; clips and covers are also blobs (src/ports/blob-store.ts)
// whose keys are their paths relative to the data dir, so with the data dir adapter the working copy is
// the object itself.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export class JobArtifacts {
  readonly dir: string;
  /** The key prefix of every blob of the request (removed with it when it fails or is cancelled). */
  readonly prefix: string;
  constructor(private readonly dataDir: string, readonly requestId: string) {
    this.dir = path.join(dataDir, 'jobs', requestId);
    this.prefix = `jobs/${requestId}`;
  }
  /** The blob key of a clip's MP4 (what shorts.file_key holds). */
  clipKey(rank: number, shortId: string): string { return `${this.prefix}/clips/${String(rank + 1).padStart(2, '0')}-${shortId}.mp4`; }
  /** The working copy of a blob of this job (its folder made): where it is rendered before it is put. */
  localPath(key: string): string {
    const file = path.join(this.dataDir, ...key.split('/'));
    this.ensure(path.dirname(file));
    return file;
  }
  get workDir(): string { return this.ensure(path.join(this.dir, 'work')); }
  /** Kept with the clips (not scratch): exports give the captions as rendered, and a re-render starts from them. */
  captionsPath(shortId: string): string { return path.join(this.ensure(path.join(this.dir, 'captions')), `${shortId}.ass`); }
  /** Checkpoint name of a clip's render plan as rendered (RenderPlan with its measured gains). */
  static renderPlanName(shortId: string): string { return `render-${shortId}`; }
  /** Checkpoint name of a clip's caption cues (CaptionCue[], clip time) as rendered. */
  static cuesName(shortId: string): string { return `cues-${shortId}`; }

  read<T>(name: string): T | null {
    const file = path.join(this.dir, `${name}.json`);
    if (!existsSync(file)) return null;
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as T;
    } catch {
      return null; // a torn checkpoint is redone, not trusted
    }
  }

  write(name: string, value: unknown): void {
    this.ensure(this.dir);
    const file = path.join(this.dir, `${name}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(value));
    renameSync(`${file}.tmp`, file);
  }

  /** Removes scratch files (downloads, caption files); clips stay. */
  removeWork(): void { rmSync(path.join(this.dir, 'work'), { recursive: true, force: true }); }
  removeAll(): void { rmSync(this.dir, { recursive: true, force: true }); }

  private ensure(dir: string): string {
    mkdirSync(dir, { recursive: true });
    return dir;
  }
}
