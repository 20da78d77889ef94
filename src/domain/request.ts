// A request for clips: the validated create options (API body or CLI flags, one shape), a re-render's
// changes to one clip, and the lifecycle the store records and the API reports.
import type { Language } from '../languages.js';
import type { PreferredLength } from './highlight.js';
import type { Layout } from './layout.js';
import type { SourceInput } from './source.js';

export type RequestStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';
export type Step = 'queued' | 'fetching_video' | 'transcribing_audio' | 'finding_highlights' | 'finalizing' | 'completed' | 'failed' | 'cancelled';

export interface SentenceRecord { index: number; sentence: string; start: number; end: number }

export interface CreateRequest {
  source: SourceInput;
  start: number;
  /** With `toSourceEnd`, only an upper bound (MAX_SOURCE_SECONDS) until the source is probed. */
  end: number;
  /**
   * Local mode only (issue 15, whole recordings): no end was given, so the range runs to the source's end,
   * resolved when the source is probed and not reported as a time adjustment (nothing asked for changed).
   */
  toSourceEnd: boolean;
  preferredLength: PreferredLength;
  maxShorts: number | null;
  /** "auto" (local mode only): whisper.cpp detects the spoken language; the request then records the detected one. */
  language: Language | 'auto';
  /** '' when the same as `language` (spec 2.1). */
  captionLanguage: string;
  templateId: string;
  noClipping: boolean;
  captionsEnabled: boolean;
  hookTitle: boolean;
  memeHook: boolean;
  memeHookName: string | null;
  gameVideo: boolean;
  gameVideoName: string | null;
  ctaEnabled: boolean;
  ctaText: string | null;
  music: boolean;
  musicName: string | null;
  musicVolume: number;
  layout: Layout;
  /** null = the account's saved preference. */
  blurBackground: boolean | null;
  outroEnabled: boolean;
  outroText: string | null;
  outroImageUrl: string | null;
  outroSeconds: number;
  outroSting: boolean;
  outroHandle: string | null;
  webhookUrl: string | null;
}

/**
 * A re-render of one clip (issue 14): the fields given, each under its create option's name and rule; what is
 * absent stays as the clip has it. `captionEdits` is kept as its parser returned it.
 */
export interface ClipEdit {
  start?: number;
  end?: number;
  title?: string;
  templateId?: string;
  captionsEnabled?: boolean;
  hookTitle?: boolean;
  ctaEnabled?: boolean;
  ctaText?: string | null;
  music?: boolean;
  musicName?: string | null;
  musicVolume?: number;
  layout?: CreateRequest['layout'];
  blurBackground?: boolean;
  captionEdits?: unknown;
}
