// What a create works from: the source as submitted, the local file it became and what ffprobe says of it.
// Times are seconds in the *source* timeline unless a name says "clip-relative" (true of all of src/domain).

/**
 * What the user submitted: a local path (local mode), a direct file URL, a video-platform page, or a finished
 * resumable upload (issue 25: its file is a blob of the uploading account, read by the engine, never downloaded).
 */
export type SourceInput =
  | { kind: 'file'; path: string }
  | { kind: 'fileUrl'; url: string }
  | { kind: 'pageUrl'; url: string }
  | { kind: 'upload'; uploadId: string };

/** One point of a platform's "most replayed" graph (yt-dlp's `heatmap`); value is 0..1. */
export interface HeatmapPoint { start: number; end: number; value: number }

/** Stage 1 output: a local file we can read, plus what we know about where it came from. */
export interface FetchedSource {
  /** Local path of the media file. */
  path: string;
  /** Source title: platform title, container tag, else the file name. */
  title: string;
  /** What the user submitted (path, file URL or page URL). */
  url: string;
  heatmap: HeatmapPoint[];
  /** Stable identity of the content (sha256 of size + head + tail bytes), used as a cache key. */
  contentKey: string;
  /** True when the file was downloaded into a temp/work folder that we own and may delete. */
  downloaded: boolean;
}

/** ffprobe facts the later stages need. */
export interface MediaInfo {
  durationSec: number;
  hasVideo: boolean;
  hasAudio: boolean;
  /** Display size (rotation already applied). 0 when there is no video stream. */
  width: number;
  height: number;
  fps: number;
  /** True when the average and nominal frame rates disagree (phone recordings). */
  variableFrameRate: boolean;
  videoCodec: string | null;
  /**
   * Whether the video has B-frames (ffprobe's has_b_frames > 0); absent when not known. Without them the
   * face sampler's 3 fps pass decodes every frame anyway, so the speaker's denser frames come with it.
   */
  bFrames?: boolean;
  audioCodec: string | null;
  formatName: string;
}
