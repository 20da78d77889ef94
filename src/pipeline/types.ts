// Typed data passed between pipeline stages. Stages never share loose objects: each takes and returns
// one of these. Times are seconds in the *source* timeline unless a name says "clip-relative".

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
  audioCodec: string | null;
  formatName: string;
}

export interface TimeRange { start: number; end: number }

/** Reported when the requested range ran past the real duration (spec 4.2). */
export interface TimeAdjustment { original: TimeRange; adjusted: TimeRange }

/** One recognised word with absolute source times. */
export interface Word { text: string; start: number; end: number; probability: number }

/** Spec 2.2 plus the words that make it up (words are internal; the API shows the first four fields). */
export interface Sentence { index: number; sentence: string; start: number; end: number; words: Word[] }

export interface Transcript {
  language: string;
  model: string;
  range: TimeRange;
  words: Word[];
  sentences: Sentence[];
}

export type PreferredLength = 'under30sec' | 'under60sec' | 'under90sec' | 'under3min' | 'under5min' | 'under10min';
/**
 * Spec 4.2's four layouts, plus two extensions (issue 13): `split` (two people of one wide shot stacked in
 * two halves) and `screen` (a screen region at full width on top, the presenter's face below).
 */
export type Layout = 'auto' | 'fill' | 'fit' | 'square' | 'split' | 'screen';
export type ResolvedLayout = Exclude<Layout, 'auto'>;

/** A rectangle in source pixels. */
export interface SourceRect { x: number; y: number; width: number; height: number }

/** Which half of a split screen holds the person speaking, over clip time (for the highlight). */
export interface SpeakerSpan { start: number; end: number; half: 'top' | 'bottom' }

/**
 * Per-feature scores in 0..1 that explain a highlight's rank (used for `reason`). All but `procedural`
 * raise the score; `procedural` (step-by-step instructions, menus, lists read in one tone) lowers it.
 */
export interface HighlightFeatures {
  hook: number;           // strong opening line: question, number, contrast, direct address, surprise
  selfContained: number;  // no dangling reference at the start, a payoff at the end
  topic: number;          // the clip holds one topic from its setup to its payoff (TextTiling segments)
  story: number;          // first person, past tense, time markers: someone telling what happened
  questionAnswer: number; // a question asked and answered inside the clip
  contrast: number;       // contrast and surprise: "but", "turns out", unexpected claims
  emotion: number;        // emotional / intensifier words
  reaction: number;       // laughter, screams, applause or other non-speech bursts in or right after the clip
  prosody: number;        // pitch and loudness range wider than the speaker's usual, speaking-rate changes
  heatmap: number;        // platform most-replayed data over the segment (0 when none)
  lengthFit: number;      // how well the duration fits the preferredLength band
  procedural: number;     // share of instruction-like, list-like lines (a penalty)
}

export type EvidenceKind =
  | 'question' | 'answer' | 'punchline' | 'story' | 'contrast' | 'number' | 'emotion'
  | 'laughter' | 'scream' | 'applause' | 'burst' | 'pitch' | 'pace' | 'heatmap' | 'procedure';

/** Something the scorer found in a clip, with its source time and, for words, the words themselves. */
export interface Evidence {
  kind: EvidenceKind;
  /** Source time (seconds) where it happens. */
  at: number;
  /** The sentence or phrase it is about (question, punchline, story line, instruction), when it is words. */
  text?: string;
  /** A short measured detail ("pitch range 9 semitones", "time marker 'last summer'"). */
  detail?: string;
}

/** Stage 3 output: one chosen segment, ranked. */
export interface Highlight {
  sentenceIndexes: number[];
  start: number;
  end: number;
  /** 0..100 on the spec's bands. */
  viralScore: number;
  features: HighlightFeatures;
  /** Names of the features that made it win, strongest first (e.g. "hook", "reaction"). */
  strengths: (keyof HighlightFeatures)[];
  /** What was found in the clip, in time order; `reason` is written from it. */
  evidence: Evidence[];
}

/** Stage 4 output for one highlight. */
export interface ClipCopy { title: string; reason: string; description: string }

/** A face box in normalised source coordinates (0..1), at source time t. */
export interface FaceBox { t: number; cx: number; cy: number; w: number; h: number; score: number }

/** One crop keyframe, clip-relative time, crop centre in normalised source coordinates. */
export interface CropKeyframe { t: number; cx: number; cy: number }

/** Stage 5 output: how to place the source inside the vertical frame. */
export interface ReframePlan {
  layout: ResolvedLayout;
  /** Crop window size in source pixels (fill/square); for fit, the whole frame. */
  cropWidth: number;
  cropHeight: number;
  /** Smoothed crop centres; a single keyframe means a static crop. */
  keyframes: CropKeyframe[];
  /** Fraction of sampled frames where the main face was found (0..1). */
  faceCoverage: number;
  /**
   * split only: the bottom half's person. `keyframes` (with cropWidth x cropHeight, the aspect of one
   * half: output.width x output.height/2) frame the top person, `second` the bottom one with the same crop
   * size. Optional so plans written before layouts existed keep their meaning.
   */
  second?: { keyframes: CropKeyframe[] } | null;
  /** split only: who speaks when, if known (the speaking half may be highlighted). */
  speakers?: SpeakerSpan[];
  /**
   * screen only: the screen region (source pixels), scaled to the full output width at the top; the face
   * crop (`keyframes`, cropWidth x cropHeight) fills the rest of the frame below it.
   */
  screen?: SourceRect | null;
  /**
   * The faces sampled in the clip (clip-relative t, normalised source coordinates), for placing captions
   * clear of them. Absent when no faces were looked for (fit without detection, plans written before).
   */
  faces?: { t: number; boxes: Omit<FaceBox, 't' | 'score'>[] }[];
}

/** A caption phrase: a few words shown together, clip-relative times. */
export interface CaptionCue {
  start: number;
  end: number;
  words: Word[];
  /**
   * When `words` are a translation, the phrase as it was spoken: emoji accents are looked up in it, so
   * captions translated from English keep the emoji their meaning calls for. Absent for spoken captions.
   */
  spoken?: string[];
}

/** Audio of a range in fixed frames (audio-features.ts): level, pitch and spectral shape. */
export interface AudioTrack {
  /** Source time of frame 0. */
  start: number;
  frameSec: number;
  /** RMS level per frame, dBFS (silence clamped to -90). */
  levelDb: number[];
  /** Voice pitch per frame in Hz; 0 where unvoiced or silent. */
  pitchHz: number[];
  /** Spectral flatness per frame, 0 (tonal, harmonic) .. 1 (noise). */
  flatness: number[];
}

export type AudioEventKind = 'laughter' | 'scream' | 'applause' | 'burst';

/** A non-speech sound heard where no words were recognised. */
export interface AudioEvent {
  kind: AudioEventKind;
  start: number;
  end: number;
  peakDb: number;
  /** Share of its loud frames with a pitch (voiced). */
  voicedShare: number;
  /** Energy pulses per second (laughter: "ha-ha-ha"). */
  pulsesPerSec: number;
  /** Median pitch of its voiced frames, Hz (0 when unvoiced). */
  pitchHz: number;
}
