// Captions as phrases of words shown together.
import type { Word } from './transcript.js';

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
