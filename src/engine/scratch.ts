// This machine's scratch folder for one request: work that only the process doing it needs, on the local
// disk — a download in progress (and the fetched source while the request runs), the range's speech WAV,
// the end card's files, and each clip's MP4, captions and cover from the moment ffmpeg writes them until
// they are put in the blob store. What a later step or another process needs is never left here: it goes
// to the blob store (artifacts.ts) as soon as it is made. The folder is `<dataDir>/scratch/<requestId>`:
// deterministic, so a process restarted on the same machine finds its download again, and on the data dir's
// file system, so the data dir adapter takes a finished file with a rename (putFile with move), no copy.
import { mkdirSync, rmSync, rmdirSync } from 'node:fs';
import path from 'node:path';

export class JobScratch {
  readonly dir: string;
  constructor(dataDir: string, requestId: string) {
    this.dir = path.join(dataDir, 'scratch', requestId);
  }

  /** The request's folder, made. */
  get workDir(): string { return ensure(this.dir); }

  /** A file in the request's folder (made), for one named thing. */
  file(name: string): string { return path.join(this.workDir, name); }

  /** A clip re-render's own folder (made): two clips of one request may re-render at once, each removing its own. */
  rerenderDir(shortId: string): string { return ensure(path.join(this.dir, `rerender-${shortId}`)); }

  /** A clip's own folder (made) while its render job runs: clip jobs of one request may run at once in one process. */
  clipDir(shortId: string): string { return ensure(path.join(this.dir, `clip-${shortId}`)); }

  /** Removes a clip job's folder, and the request's when nothing else is left in it. */
  removeClip(shortId: string): void { this.removeSub(`clip-${shortId}`); }

  /** Removes a re-render's folder, and the request's when nothing else is left in it. */
  removeRerender(shortId: string): void { this.removeSub(`rerender-${shortId}`); }

  private removeSub(name: string): void {
    rmSync(path.join(this.dir, name), { recursive: true, force: true });
    try {
      rmdirSync(this.dir);
    } catch {
      // not empty (another clip re-renders) or already gone
    }
  }

  remove(): void { rmSync(this.dir, { recursive: true, force: true }); }
}

function ensure(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
