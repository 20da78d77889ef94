// What the analysis hears besides words: the level, pitch and spectral shape of a range, and the sounds in it.

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
