// The media runner port (issue 22): the one way the media work starts a child process (ffmpeg, ffprobe,
// whisper-cli, yt-dlp, pocketsphinx). Stages receive a runner in their inputs instead of spawning, so
// whoever builds the engine can count a job's children, cap how many run at once, kill all of a job's
// children when it is cancelled, and later run them somewhere else. Today's adapter runs local child
// processes (src/media/local-runner.ts).

/** What a child process is, by name: counted per tool, and resolved to an executable by the adapter. */
export type MediaTool = 'ffmpeg' | 'ffprobe' | 'whisper-cli' | 'yt-dlp' | 'pocketsphinx';

export const MEDIA_TOOLS: readonly MediaTool[] = ['ffmpeg', 'ffprobe', 'whisper-cli', 'yt-dlp', 'pocketsphinx'];

export interface MediaRunOptions {
  signal?: AbortSignal;
  /**
   * The executable, when the caller resolved a particular one (a whisper.cpp build, SHORTS_YTDLP, the
   * aligner's binary); default: the adapter's binary for the tool (SHORTS_FFMPEG / SHORTS_FFPROBE, PATH).
   */
  program?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Called with each chunk of stderr (progress parsing). */
  onStderr?: (chunk: string) => void;
  /** Called with each chunk of stdout, for programs that report progress there (yt-dlp). */
  onStdout?: (chunk: string) => void;
  /**
   * Streams stdout's bytes here instead of collecting them (the result's stdout is then empty): hours of
   * raw PCM are analysed as they arrive rather than held in memory.
   */
  streamStdout?: (chunk: Buffer) => void;
  /** Keep at most this many bytes of stderr for error messages. */
  stderrLimit?: number;
}

export interface MediaRunResult {
  stdout: string;
  /** stdout as bytes, for programs that write raw frames or samples there. */
  stdoutBytes: Buffer;
  stderr: string;
  code: number;
}

/** Children started, per tool. */
export type MediaCounts = Record<MediaTool, number>;

export interface MediaRunner {
  /**
   * Runs `tool` with an argument list (never a shell string) to its end. Rejects with an error named
   * 'AbortError' when its signal (or the runner's own) aborts, the child killed at once; with one named
   * 'ProcessError' (its `code` and `stderr`) on a non-zero exit (src/media/process.ts has both classes).
   */
  run(tool: MediaTool, args: readonly string[], opts?: MediaRunOptions): Promise<MediaRunResult>;
  /**
   * A runner for one job: its children are killed when `signal` aborts, counted on their own (and in
   * this runner's counts), and share this runner's limit on concurrent children and its `once` results.
   */
  scoped(signal?: AbortSignal): MediaRunner;
  /** Children this runner (and the runners scoped from it) started, per tool. */
  counts(): MediaCounts;
  /**
   * The result of `make` for `key`, made once and shared by every runner of the same root while it is
   * remembered (a bounded number of keys): for answers that depend only on a file's content, such as a
   * probe keyed by path, size and modification time. A failed `make` is not remembered.
   */
  once<T>(key: string, make: () => Promise<T>): Promise<T>;
}
