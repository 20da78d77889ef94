// What a user should know when the model wrote the speech in another script than its language's.
import { languageLabel } from '../../languages.js';
import type { Transcript } from '../../domain/transcript.js';
import type { ScriptMismatch } from '../shared/script-text.js';

/** What a user should know when the model wrote the speech in another script than its language's. */
export function scriptWarning(transcript: Pick<Transcript, 'language' | 'model'>, m: ScriptMismatch): string {
  return `the Whisper model ${transcript.model} wrote this ${languageLabel(transcript.language)} speech mostly in ${m.found} letters ` +
    `(${Math.round(m.share * 100)} % of them), not ${m.expected}: the captions, titles and hashtags show what it wrote. ` +
    'A larger multilingual model (SHORTS_WHISPER_MULTILINGUAL_MODEL, e.g. small or medium) may write it in its own script';
}
