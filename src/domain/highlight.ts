// The clips the analysis chooses: their rank, what explains it, and the copy written for them.

export type PreferredLength = 'under30sec' | 'under60sec' | 'under90sec' | 'under3min' | 'under5min' | 'under10min';

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
