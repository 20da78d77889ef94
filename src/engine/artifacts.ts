// Deterministic per-request paths and JSON checkpoints, so a restarted job skips finished stages.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export class JobArtifacts {
  readonly dir: string;
  constructor(dataDir: string, readonly requestId: string) {
    this.dir = path.join(dataDir, 'jobs', requestId);
  }
  get workDir(): string { return this.ensure(path.join(this.dir, 'work')); }
  get clipsDir(): string { return this.ensure(path.join(this.dir, 'clips')); }
  clipPath(rank: number, shortId: string): string { return path.join(this.clipsDir, `${String(rank + 1).padStart(2, '0')}-${shortId}.mp4`); }
  /** Kept with the clips (not scratch): exports give the captions as rendered, and a re-render starts from them. */
  captionsPath(shortId: string): string { return path.join(this.ensure(path.join(this.dir, 'captions')), `${shortId}.ass`); }
  /** Checkpoint name of a clip's render plan as rendered (RenderPlan with its measured gains). */
  static renderPlanName(shortId: string): string { return `render-${shortId}`; }
  /** Checkpoint name of a clip's caption cues (CaptionCue[], clip time) as rendered. */
  static cuesName(shortId: string): string { return `cues-${shortId}`; }
  /** The clip's cover image (1080x1920 JPEG), beside its MP4. */
  coverPath(rank: number, shortId: string): string { return this.clipPath(rank, shortId).replace(/\.mp4$/, '.jpg'); }

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
  /** Removes clips (cancelled or failed requests keep no partial output). */
  removeClips(): void { rmSync(path.join(this.dir, 'clips'), { recursive: true, force: true }); }
  removeAll(): void { rmSync(this.dir, { recursive: true, force: true }); }

  private ensure(dir: string): string {
    mkdirSync(dir, { recursive: true });
    return dir;
  }
}
