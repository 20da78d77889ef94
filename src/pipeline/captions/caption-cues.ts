// The caption cues of a request's clips, in the speech's language or translated (a configured service,
// or English heard again by whisper.cpp's translate task).
import { PipelineError } from '../../errors.js';
import { AbortedError } from '../../media/process.js';
import type { CaptionTemplate } from '../../catalog/templates.js';
import type { CaptionCue } from '../../domain/captions.js';
import type { TimeRange } from '../../domain/time.js';
import type { Transcript } from '../../domain/transcript.js';
import { phraseCues, snapPhrases, type TranslatedPhrase } from '../transcribe/whisper-translate.js';
import { buildCues } from './captions.js';
import { cueText, pairLabel, supportsPair, translateTexts, translatedCues, type TranslatorConfig } from './translate.js';

export interface CaptionTranslation {
  from: string;
  to: string;
  translator: TranslatorConfig | null;
  /**
   * English phrases heard in a clip (whisper.cpp's translate task): English captions need no service.
   * Without it, or for other target languages, the translator is required.
   */
  speechToEnglish?: (clip: TimeRange) => Promise<TranslatedPhrase[]>;
  signal?: AbortSignal;
}

/**
 * Caption cues per clip id, and the template to draw them with. With a caption language (`to`
 * non-empty) each cue's phrase is translated and shown for the cue's own time span; words of two
 * languages do not line up, so translated captions drop the per-word highlight (animation 'none')
 * rather than light words at times nobody said them. Any failure is a PipelineError naming the pair.
 */
export async function captionCuesFor(clips: { id: string; clip: TimeRange }[], transcript: Transcript, template: CaptionTemplate,
  translation: CaptionTranslation): Promise<{ cues: Map<string, CaptionCue[]>; template: CaptionTemplate }> {
  const wordsPerCue = template.wordsPerLine * template.maxLines;
  const original = clips.map(({ id, clip }) => ({ id, cues: buildCues(transcript.words, clip, { wordsPerCue }) }));
  const { from, to, translator, speechToEnglish, signal } = translation;
  if (!to || to === from) return { cues: new Map(original.map((c) => [c.id, c.cues])), template };
  // A configured service that translates the pair is preferred (its translations read better); else English
  // captions come offline (issue 11): the multilingual model listens to each clip again and writes English
  // phrases, timed on the original words.
  const serviceDoesPair = async (t: TranslatorConfig) => supportsPair(t, from, to, signal).catch(() => false);
  if (to === 'en' && speechToEnglish && (!translator || !(await serviceDoesPair(translator)))) {
    const cues = new Map<string, CaptionCue[]>();
    for (const { id, clip } of clips) {
      let phrases: TranslatedPhrase[];
      try {
        phrases = snapPhrases(await speechToEnglish(clip), transcript.words, clip);
      } catch (e) {
        if (signal?.aborted || e instanceof AbortedError) throw e;
        throw new PipelineError('finalizing', `English captions for ${from} speech could not be made: ${(e as Error).message}`, { cause: e });
      }
      cues.set(id, phraseCues(phrases, transcript.words, wordsPerCue));
    }
    return { cues, template: { ...template, animation: 'none' } };
  }
  if (!translator) throw new PipelineError('finalizing', `captions ${pairLabel(from, to)} need a translation service, and none is configured (SHORTS_TRANSLATE_URL)`);
  // One batch for all clips: fewer round trips, and the service sees every phrase of the request.
  const texts = original.flatMap((c) => c.cues.map(cueText));
  let translated: string[];
  try {
    translated = await translateTexts(translator, texts, from, to, signal);
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new PipelineError('finalizing', (e as Error).message, { cause: e });
  }
  const cues = new Map<string, CaptionCue[]>();
  let at = 0;
  for (const c of original) {
    cues.set(c.id, translatedCues(c.cues, translated.slice(at, at + c.cues.length), wordsPerCue));
    at += c.cues.length;
  }
  return { cues, template: { ...template, animation: 'none' } };
}
