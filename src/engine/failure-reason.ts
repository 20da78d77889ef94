// The text a user reads when a request (failureReason) or a clip (errorMessage) fails. One function, so
// every reason is phrased in the user's terms and none leaks the server: the data directory's paths
// (…/scratch/<id>/source.mp4) become "the video file" or "a working file", and on `serve` no other
// absolute path survives either (binaries, models): a caller learns what went wrong, not where we keep things.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { PipelineError, ShortsError } from '../errors.js';
import { MediaError } from '../media/probe.js';

export interface ReasonContext {
  /** The data directory: every path under it is the server's business. */
  dataDir: string;
  /** The source file being processed (downloaded into the data directory, or the user's own file locally). */
  sourcePath?: string | null;
  /**
   * True for API requests: absolute paths outside the data directory are cut to their last segment
   * too. Locally the user's own file paths stay whole: they are theirs and help them find the file.
   */
  hideAllPaths?: boolean;
}

/** A reason a user understands; never a stack trace, never a server path. */
export function failureReason(e: unknown, ctx?: ReasonContext): string {
  const text = rawReason(e);
  return ctx ? withoutServerPaths(text, ctx) : text;
}

function rawReason(e: unknown): string {
  // MediaError is the user's own file failing to read (not a video, truncated, no streams): their
  // problem to fix, said in their terms, never labelled "internal error".
  if (e instanceof MediaError || e instanceof PipelineError || e instanceof ShortsError) return e.message;
  if (e instanceof Error) return `internal error: ${e.message.split('\n')[0]}`;
  return 'internal error';
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The forms a directory may be spelled in (as given, resolved, through symlinks: /tmp on macOS is /private/tmp). */
function spellings(dir: string): string[] {
  const out = new Set<string>([dir, path.resolve(dir)]);
  try {
    out.add(realpathSync(dir));
  } catch { /* gone already: the other spellings remain */ }
  return [...out].map((d) => d.replace(/[\\/]+$/, '')).filter((d) => d.length > 1).sort((a, b) => b.length - a.length);
}

/** Characters a path in a message runs to: stops at whitespace, quotes, brackets and separators ffmpeg/whisper put after it. */
const PATH_TAIL = String.raw`[^\s'"()<>\[\],;]*`;

/** Replaces the server's paths in `text` with words; see the module comment. */
export function withoutServerPaths(text: string, ctx: ReasonContext): string {
  let out = text;
  const source = ctx.sourcePath ? spellings(ctx.sourcePath) : [];
  const data = spellings(ctx.dataDir);
  const sourceInData = source.some((s) => data.some((d) => s.startsWith(`${d}${path.sep}`)));
  // The source by its full name first: locally it may lie outside the data directory.
  if (sourceInData || ctx.hideAllPaths) {
    for (const s of source) out = out.split(s).join(sourceInData ? 'the downloaded video' : 'the video file');
  }
  for (const d of data) {
    out = out.replace(new RegExp(`${escapeRegExp(d)}(?:[\\\\/]${PATH_TAIL})?`, 'g'), (m) => {
      const [p, trail] = splitTrail(m);
      return label(p) + trail;
    });
  }
  if (ctx.hideAllPaths) {
    // Any other absolute path (a binary, a model, a temp file): its last segment says enough.
    out = out.replace(new RegExp(`(^|[\\s'"(=])(/${PATH_TAIL})`, 'g'), (_m, lead: string, m: string) => {
      const [p, trail] = splitTrail(m);
      return `${lead}${path.basename(p) || 'a file'}${trail}`;
    });
  }
  return out;
}

/** A path and the sentence punctuation glued to its end ("…/source.mp4:" -> ["…/source.mp4", ":"]). */
function splitTrail(m: string): [string, string] {
  const trail = /[.:]+$/.exec(m)?.[0] ?? '';
  return [m.slice(0, m.length - trail.length), trail];
}

/** A path under the data directory, in words. */
function label(p: string): string {
  const name = path.basename(p);
  if (/[\\/]work[\\/]source\.[^\\/]+$/.test(p) || /^source\.[a-z0-9]+(\.part)?$/i.test(name)) return 'the downloaded video';
  if (/[\\/]models[\\/]/.test(p)) return 'the speech model';
  return 'a working file';
}
