// Which Whisper model transcribes which language, and why none can (issue 11). Pure: the facts about the
// two models (whisper-model.ts modelFacts) come in, a choice or a refusal comes out, so the service can
// refuse a request at creation with the same words the pipeline would fail with later.
import { LANGUAGES } from '../../languages.js';
import type { ModelFacts } from './whisper-model.js';
import { languageLabel } from '../../languages.js';

export type ModelRole = 'main' | 'multilingual';

/** The two configured models: the main one (SHORTS_WHISPER_MODEL) and the multilingual one, null when `off`. */
export interface ModelSet {
  main: ModelFacts;
  multilingual: ModelFacts | null;
}

function usableMultilingual(models: ModelSet): ModelFacts | null {
  const m = models.multilingual;
  return m && m.available && m.multilingual ? m : null;
}

/** Why there is no multilingual model to fall back on, in the user's terms. */
export function noMultilingualReason(models: ModelSet): string {
  const m = models.multilingual;
  if (!m) return 'SHORTS_WHISPER_MULTILINGUAL_MODEL is off';
  if (!m.available) return `the multilingual model SHORTS_WHISPER_MULTILINGUAL_MODEL cannot be used: ${m.problem ?? 'it cannot be read'}`;
  return `SHORTS_WHISPER_MULTILINGUAL_MODEL names "${m.name}", which is English-only too`;
}

const FIX = 'set SHORTS_WHISPER_MULTILINGUAL_MODEL to a multilingual model (a name such as base-q5_1, downloaded on first use, or a ggml file), or SHORTS_WHISPER_MODEL to a multilingual one';

/** The model that transcribes speech in `language` (an ISO code, never "auto"), or the refusal. */
export function modelForLanguage(language: string, models: ModelSet): { role: ModelRole; model: ModelFacts } | { refusal: string } {
  const { main } = models;
  // English: the main model, English-only or not (it is the one chosen for speed on English).
  if (language === 'en' || main.multilingual) return { role: 'main', model: main };
  const multi = usableMultilingual(models);
  if (multi) return { role: 'multilingual', model: multi };
  return {
    refusal: `the Whisper model "${main.name}" transcribes English only, so it cannot transcribe ${languageLabel(language)}, ` +
      `and there is no multilingual model to use instead (${noMultilingualReason(models)}): ${FIX}`,
  };
}

/** The model that detects languages: the main one when it is multilingual, else the multilingual one; null when none can. */
export function detectionModel(models: ModelSet): { role: ModelRole; model: ModelFacts } | null {
  if (models.main.multilingual && models.main.available) return { role: 'main', model: models.main };
  const multi = usableMultilingual(models);
  return multi ? { role: 'multilingual', model: multi } : null;
}

/**
 * Whether "auto" degrades to English (issue 23): the multilingual model is configured but cannot be had (a
 * path pointing nowhere; a download that fails shows only when it is tried) while the English main model is
 * at hand. Such a request is transcribed as English with a warning, not refused or failed. With the
 * multilingual model `off` the operator chose no detection: "auto" is refused, naming the language is the way.
 */
export function autoFallsBackToEnglish(models: ModelSet): boolean {
  return models.multilingual !== null && !models.main.multilingual && models.main.available;
}

/** Why a request with language "auto" cannot be run, or null when it can. */
export function autoRefusal(models: ModelSet): string | null {
  if (detectionModel(models) || autoFallsBackToEnglish(models)) return null;
  return `language "auto" needs a multilingual Whisper model to detect the spoken language; the model "${models.main.name}" ` +
    `is English-only and ${noMultilingualReason(models)}: ${FIX}, or name the language`;
}

/** Why a request in `language` ("auto" included) is refused at creation, or null when it can be transcribed. */
export function languageRefusal(language: string, models: ModelSet): string | null {
  if (language === 'auto') return autoRefusal(models);
  const choice = modelForLanguage(language, models);
  return 'refusal' in choice ? choice.refusal : null;
}

/** whisper.cpp's answer to "which language is this?" for one window of the audio. */
export interface LanguageDetection {
  /** Whisper's language code ("en", "es", "haw", ...). */
  language: string;
  /** Its probability for that language, 0-1. */
  probability: number;
  /** The window it listened to, seconds on the source timeline. */
  window: { start: number; end: number };
  /** The model that listened. */
  model: string;
}

/**
 * How sure detection must be before a request named `en` is told its audio is in another language: that is
 * the costly mistake (an English-only model writes English gibberish over any other speech). Measured on real
 * recordings (docs/benchmarks.md, "Language choice and detection (issue 11)"): English speech was always
 * detected as English (p >= 0.95 on speech), every Spanish and French prompt as something else with p >= 0.51.
 */
export const MISMATCH_MIN_PROBABILITY = 0.5;

/**
 * How sure detection must be for "auto" to transcribe in the language it heard. Below it the guess is not
 * trusted: brown noise is "Norwegian Nynorsk" at p = 0.45, while every recorded prompt measured (English,
 * Spanish, French, Italian, Russian) was detected at p >= 0.51. Such a request is transcribed as English
 * (where silence and noise read as silence) and told so.
 */
export const AUTO_MIN_PROBABILITY = 0.5;

/** The language "auto" transcribes in: the detected one, or English when detection was unsure. */
export function languageForAuto(detection: LanguageDetection): string {
  return detection.probability >= AUTO_MIN_PROBABILITY ? detection.language : 'en';
}

/** The warning for an "auto" request whose detection was unsure, or null. */
export function unsureDetectionWarning(detection: LanguageDetection): string | null {
  if (detection.probability >= AUTO_MIN_PROBABILITY) return null;
  return `the spoken language could not be told with confidence (best guess ${languageLabel(detection.language)}, ` +
    `p = ${detection.probability.toFixed(2)}), so the speech was transcribed as English: if it is not English, ` +
    'create the request again naming the language (--language)';
}
/**
 * The same for a request named in another language. The multilingual model told the wrong language still
 * hears the words, and Whisper mixes up related languages on short or telephone audio (Spanish prompts were
 * detected as Italian with p = 0.64 and 0.84): only a near-certain detection is worth a warning.
 */
export const MISMATCH_MIN_PROBABILITY_NAMED = 0.9;

// Codes Whisper confuses for good reasons (one language under two names, or near-identical standards):
// telling a Croatian speaker that the audio "sounds Serbian" would be noise, not help.
const SAME_FOR_WARNING: readonly (readonly string[])[] = [['bs', 'hr', 'sr'], ['no', 'nn'], ['ms', 'id']];

function sameLanguage(a: string, b: string): boolean {
  const x = a.toLowerCase().split('-')[0]!, y = b.toLowerCase().split('-')[0]!;
  return x === y || SAME_FOR_WARNING.some((g) => g.includes(x) && g.includes(y));
}

/** The warning for a request whose named language the audio does not seem to be in, or null. */
export function mismatchWarning(requested: string, detection: LanguageDetection,
  minProbability = requested === 'en' ? MISMATCH_MIN_PROBABILITY : MISMATCH_MIN_PROBABILITY_NAMED): string | null {
  if (requested === 'auto' || sameLanguage(requested, detection.language)) return null;
  if (!(detection.probability >= minProbability)) return null;
  const at = `${fmtTime(detection.window.start)}-${fmtTime(detection.window.end)}`;
  return `the speech sounds like ${languageLabel(detection.language)}, not ${languageLabel(requested)} as requested ` +
    `(language detection at ${at}: p = ${detection.probability.toFixed(2)}); the transcript, captions and titles follow the requested ` +
    `language, so they may be wrong: ${(LANGUAGES as readonly string[]).includes(detection.language)
      ? `create the request again with language "${detection.language}" (or --language auto in local mode)`
      : 'check the language of the video'}`;
}

function fmtTime(sec: number): string {
  const s = Math.max(0, Math.round(sec));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
