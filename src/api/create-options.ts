// Every creation option of spec 4.2, defined once: the API field, its CLI flag, type, default and rule.
// The validator, the CLI's flags (and later the OpenAPI document) are all derived from this table.
import { LANGUAGES } from '../languages.js';

export const PREFERRED_LENGTHS = ['under30sec', 'under60sec', 'under90sec', 'under3min', 'under5min', 'under10min'] as const;
/**
 * What a rendered clip can show as its `layout` (the detail's extension field): spec 4.2's three concrete
 * layouts plus issue 13's `split` (two people stacked) and `screen` (screen on top, speaker below).
 */
export const CLIP_LAYOUTS = ['fill', 'fit', 'square', 'split', 'screen'] as const;
/** Spec 4.2's `auto`, `fill`, `fit`, `square`, and the two extensions (docs/api.md "Extensions"). */
export const LAYOUTS = ['auto', ...CLIP_LAYOUTS] as const;

export type OptionType =
  | { kind: 'string'; maxLength?: number; trimTo?: number }
  | { kind: 'number'; min?: number; max?: number; integer?: boolean }
  | { kind: 'boolean' }
  | { kind: 'enum'; values: readonly string[] };

export interface OptionDef {
  /** API body field (camelCase, exactly as the spec). */
  field: string;
  /** CLI flag, kebab-case without dashes. Booleans that default to true are offered as `--no-<flag>`. */
  flag: string;
  type: OptionType;
  /** Default as the spec states it; undefined = absent unless given. */
  defaultValue?: string | number | boolean | null;
  description: string;
  group: 'source' | 'range' | 'content' | 'overlays' | 'music' | 'layout' | 'outro' | 'webhook';
}

// `as const` keeps each field's name and type for CreateShortRequest below; CREATE_OPTIONS is the plain table.
const OPTION_TABLE = [
  { field: 'url', flag: 'url', type: { kind: 'string' }, group: 'source', description: 'video-platform page URL (exactly one of url / fileUrl / uploadId)' },
  { field: 'fileUrl', flag: 'file-url', type: { kind: 'string' }, group: 'source', description: 'direct http(s) URL of a video file' },
  { field: 'uploadId', flag: 'upload-id', type: { kind: 'string', maxLength: 64 }, group: 'source', description: 'id of a finished upload of this account (POST /uploads, tus 1.0; extension)' },
  { field: 'start', flag: 'start', type: { kind: 'number', min: 0 }, group: 'range', description: 'start of the range, seconds (>= 0; local mode: optional, default 0)' },
  { field: 'end', flag: 'end', type: { kind: 'number', min: 0 }, group: 'range', description: 'end of the range, seconds (window 60-1200 s; local mode: optional, default the video\'s end, and any length: scored in 1200 s windows ranked together)' },
  { field: 'preferredLength', flag: 'preferred-length', type: { kind: 'enum', values: PREFERRED_LENGTHS }, defaultValue: 'under60sec', group: 'content', description: 'preferred clip length (a guideline)' },
  { field: 'maxShorts', flag: 'max-shorts', type: { kind: 'number', min: 1, max: 12, integer: true }, defaultValue: null, group: 'content', description: 'at most this many clips, 1-12 (default automatic, up to 12)' },
  { field: 'language', flag: 'language', type: { kind: 'enum', values: LANGUAGES }, defaultValue: 'en', group: 'content', description: 'spoken language (ISO 639-1)' },
  { field: 'captionLanguage', flag: 'caption-language', type: { kind: 'enum', values: LANGUAGES }, group: 'content', description: 'caption language (default: same as language)' },
  { field: 'templateId', flag: 'template-id', type: { kind: 'string' }, group: 'content', description: 'caption template id (24 hex, see `shorts templates`)' },
  { field: 'noClipping', flag: 'clipping', type: { kind: 'boolean' }, defaultValue: false, group: 'content', description: 'make the whole range one clip (--no-clipping)' },
  { field: 'captionsEnabled', flag: 'captions', type: { kind: 'boolean' }, defaultValue: true, group: 'content', description: 'burn in captions (--no-captions disables)' },
  { field: 'hookTitle', flag: 'hook-title', type: { kind: 'boolean' }, defaultValue: false, group: 'overlays', description: 'animated hook title at the start' },
  { field: 'memeHook', flag: 'meme-hook', type: { kind: 'boolean' }, defaultValue: false, group: 'overlays', description: 'prepend a meme clip' },
  { field: 'memeHookName', flag: 'meme-hook-name', type: { kind: 'string' }, group: 'overlays', description: 'exact meme hook name (default random)' },
  { field: 'gameVideo', flag: 'game-video', type: { kind: 'boolean' }, defaultValue: false, group: 'overlays', description: 'split screen with gameplay in the bottom half' },
  { field: 'gameVideoName', flag: 'game-video-name', type: { kind: 'string' }, group: 'overlays', description: 'exact game video name (default random)' },
  { field: 'ctaEnabled', flag: 'cta', type: { kind: 'boolean' }, defaultValue: false, group: 'overlays', description: 'call-to-action banner at the end (needs --cta-text)' },
  { field: 'ctaText', flag: 'cta-text', type: { kind: 'string', maxLength: 200 }, group: 'overlays', description: 'call-to-action text, at most 200 characters' },
  { field: 'music', flag: 'music', type: { kind: 'boolean' }, defaultValue: false, group: 'music', description: 'mix background music under the speech' },
  { field: 'musicName', flag: 'music-name', type: { kind: 'string' }, group: 'music', description: 'exact music track name (default random)' },
  { field: 'musicVolume', flag: 'music-volume', type: { kind: 'number', min: 0, max: 100 }, defaultValue: 10, group: 'music', description: 'music loudness relative to the speech, 0-100' },
  { field: 'layout', flag: 'layout', type: { kind: 'enum', values: LAYOUTS }, defaultValue: 'auto', group: 'layout', description: 'auto, fill, fit or square; extensions: split (two people, stacked halves), screen (screen above, speaker below)' },
  { field: 'blurBackground', flag: 'blur-background', type: { kind: 'boolean' }, group: 'layout', description: 'blurred (default) or solid background where the source does not cover the frame' },
  { field: 'outroEnabled', flag: 'outro', type: { kind: 'boolean' }, defaultValue: false, group: 'outro', description: 'append an end-screen outro' },
  { field: 'outroText', flag: 'outro-text', type: { kind: 'string', trimTo: 80 }, group: 'outro', description: 'outro text (trimmed to 80 characters)' },
  { field: 'outroImageUrl', flag: 'outro-image-url', type: { kind: 'string' }, group: 'outro', description: 'public image URL for a custom end card' },
  { field: 'outroSeconds', flag: 'outro-seconds', type: { kind: 'number', min: 1, max: 3, integer: true }, defaultValue: 2, group: 'outro', description: 'outro length, 1-3 seconds' },
  { field: 'outroSting', flag: 'outro-sting', type: { kind: 'boolean' }, defaultValue: true, group: 'outro', description: 'play a bell at the outro (--no-outro-sting disables)' },
  { field: 'outroHandle', flag: 'outro-handle', type: { kind: 'string', trimTo: 40 }, group: 'outro', description: 'channel handle under the outro text (trimmed to 40)' },
  { field: 'webhookUrl', flag: 'webhook-url', type: { kind: 'string', maxLength: 2048 }, group: 'webhook', description: 'http(s) URL notified when the request finishes' },
] as const satisfies readonly OptionDef[];
export const CREATE_OPTIONS: readonly OptionDef[] = OPTION_TABLE;

/**
 * The create options a re-render of one clip takes (issue 14), under the same names and rules: what changes
 * one clip's picture, captions, overlays and music. The rest is the request's: the source and language, the
 * clip count and length, and what every clip of a request shares or draws once (captionLanguage, the meme
 * intro, the gameplay half, the outro card), which a change on one clip would make differ from its siblings.
 * `start`/`end` are source seconds, anywhere in the source (not limited to the request's range).
 */
export const CLIP_EDIT_FIELDS = [
  'start', 'end', 'templateId', 'captionsEnabled', 'hookTitle', 'ctaEnabled', 'ctaText', 'music', 'musicName', 'musicVolume', 'layout', 'blurBackground',
] as const satisfies readonly (typeof OPTION_TABLE)[number]['field'][];
export const CLIP_EDIT_OPTIONS: readonly OptionDef[] = CREATE_OPTIONS.filter((o) => (CLIP_EDIT_FIELDS as readonly string[]).includes(o.field));
/** Re-render fields that are not create options: the clip's own title (drawn by the hook title) and caption fixes. */
export const CLIP_TITLE_MAX = 200;

type ValueOf<T extends OptionType> = T extends { kind: 'string' } ? string : T extends { kind: 'number' } ? number
  : T extends { kind: 'boolean' } ? boolean : T extends { kind: 'enum'; values: readonly (infer V)[] } ? V : never;
/** The create body (spec 4.2) as a type, from the same table as the validator, the CLI and the OpenAPI document. */
export type CreateShortRequest = {
  [O in (typeof OPTION_TABLE)[number] as O['field']]?: ValueOf<O['type']> | (O extends { defaultValue: null } ? null : never)
};
