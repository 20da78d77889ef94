// What the clip editor reads and sends, typed: the transcript around a clip, the clip's JSON export (its
// render plan and numbered caption words), the catalogs, and the re-render body (only what changed).
import type { RequestDetail, ShortObject, TemplateList } from '../../api/types';
import { api, ApiError, v1 } from '../api';

/** A transcript word (GET /shorts/{id}/transcript), source seconds. */
export interface TranscriptWord { text: string; start: number; end: number }

/** The detail with the studio's extension (the contract's `source_video_url`, absent when the source is not kept). */
export type EditorDetail = RequestDetail & { source_video_url?: string };

/** A caption word as the JSON export numbers it (caption-edits.ts numberCaptionWords), clip seconds. */
export interface CaptionWord { n: number; cue: number; inCue: number; text: string; start: number; end: number }

/** The part of the JSON export's plan the editor prefills from. */
export interface ClipPlan {
  input: { start: number; end: number };
  background?: { blur: boolean };
  captions: unknown | null;
  music?: { path: string; volume: number } | null;
  memeHook?: { seconds: number } | null;
  captionWords?: CaptionWord[];
}

/** GET /music's items (spec 2.6). */
export interface MusicTrack { name: string; duration: number; url: string }

/** The re-render body (openapi.ts renderRequest): every field optional, absent keeps the clip's value. */
export interface RenderBody {
  start?: number; end?: number; templateId?: string; layout?: string; hookTitle?: boolean; title?: string;
  ctaEnabled?: boolean; ctaText?: string; music?: boolean; musicName?: string; musicVolume?: number;
  captionsEnabled?: boolean; blurBackground?: boolean;
  captionEdits?: { words: { cue: number; word: number; text: string }[] };
}

const enc = encodeURIComponent;

export const loadDetail = (id: string) => api.get<EditorDetail>(v1(`/shorts/${enc(id)}`));

/** The words of [start, end]; null when this server has no transcript route (the editor then shows sentences). */
export async function loadTranscript(id: string, start: number, end: number): Promise<TranscriptWord[] | null> {
  try {
    const t = await api.get<{ language: string; words: TranscriptWord[] }>(v1(`/shorts/${enc(id)}/transcript`), { start, end });
    return t.words;
  } catch (e) {
    // The request itself was just read, so a 404 here is a server without the route.
    if (e instanceof ApiError && (e.status === 404 || e.status === 405)) return null;
    throw e;
  }
}

/** The clip's JSON export: a file, not an envelope, so not through api.get. */
export async function loadPlan(id: string, shortId: string): Promise<ClipPlan | null> {
  const res = await fetch(v1(`/shorts/${enc(id)}/shorts/${enc(shortId)}/export?format=json`), { credentials: 'same-origin', headers: { accept: 'application/json' } });
  if (!res.ok) return null;
  const body = await res.json() as ClipPlan | ClipPlan[];
  return Array.isArray(body) ? body[0] ?? null : body;
}

export const loadTemplates = () => api.get<TemplateList>(v1('/templates'));

export async function loadMusic(): Promise<MusicTrack[]> {
  const out: MusicTrack[] = [];
  // The catalog is paged (20 a page); it holds a few dozen tracks at most.
  for (let page = 1; page <= 10; page++) {
    const r = await api.get<{ music: MusicTrack[]; pagination: { totalPages: number } }>(v1('/music'), { page, limit: 100 });
    out.push(...r.music);
    if (page >= r.pagination.totalPages) break;
  }
  return out;
}

export const render = (id: string, shortId: string, body: RenderBody) =>
  api.post<ShortObject>(v1(`/shorts/${enc(id)}/shorts/${enc(shortId)}/render`), body);
