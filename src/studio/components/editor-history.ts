// The clip's earlier cuts, for "Undo to previous cut", and the settings this page last sent (the API does
// not say a clip's template, hook title or CTA, so they prefill the form next time). Kept in sessionStorage
// per clip (this tab, until it closes) — only ranges and settings, never a key or a link.
import type { RenderBody } from './editor-api';
import type { Range } from './editor-time';

export type AppliedSettings = Omit<RenderBody, 'start' | 'end' | 'captionEdits'>;

export interface ClipMemory {
  /** Earlier cuts, newest last. */
  cuts: Range[];
  settings: AppliedSettings;
}

const MAX_CUTS = 20;
const keyOf = (requestId: string, shortId: string) => `shortwright.editor.${requestId}.${shortId}`;

export function readMemory(requestId: string, shortId: string): ClipMemory {
  try {
    const raw = sessionStorage.getItem(keyOf(requestId, shortId));
    const m = (raw ? JSON.parse(raw) : {}) as Partial<ClipMemory>;
    const cuts = Array.isArray(m.cuts) ? m.cuts.filter((c): c is Range => typeof c?.start === 'number' && typeof c?.end === 'number') : [];
    return { cuts, settings: typeof m.settings === 'object' && m.settings ? m.settings : {} };
  } catch {
    return { cuts: [], settings: {} }; // storage disabled or corrupt: no undo, nothing else breaks
  }
}

export function writeMemory(requestId: string, shortId: string, m: ClipMemory): void {
  try {
    sessionStorage.setItem(keyOf(requestId, shortId), JSON.stringify({ cuts: m.cuts.slice(-MAX_CUTS), settings: m.settings }));
  } catch {
    // Private mode or quota: undo is a convenience.
  }
}
