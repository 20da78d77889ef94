// The clip editor (issue 25, /requests/:id/clips/:shortId): re-cut a clip on its transcript, preview the cut
// at once on the source, fix misheard caption words, restyle it, and re-render — the old clip keeps playing
// until the new one is ready (the `shorts` events' `recompiling`), and earlier cuts can be restored.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import type { ShortObject, TemplateItem } from '../../api/types';
import { messageOf } from '../api';
import { watchRequest } from '../live';
import {
  loadDetail, loadMusic, loadPlan, loadTemplates, loadTranscript, render,
  type CaptionWord, type ClipPlan, type EditorDetail, type MusicTrack, type RenderBody, type TranscriptWord,
} from '../components/editor-api';
import { readMemory, writeMemory, type ClipMemory } from '../components/editor-history';
import { formatTime, inRange, rangeProblem, round3, sameRange, type Range } from '../components/editor-time';
import { EditorTimeline } from '../components/editor-timeline';
import { EditorRange } from '../components/editor-range';
import { EditorPreview } from '../components/editor-preview';
import { EditorCaptions } from '../components/editor-captions';
import { EditorStyle, styleChanges, type StyleState } from '../components/editor-style';
import './editor.css';

/** Seconds of transcript shown either side of the clip, and added by "earlier/later words". */
const CONTEXT_SECONDS = 60;

const rangeOf = (s: ShortObject): Range => ({ start: s.startTimestamp, end: s.endTimestamp });

/** A catalog track's name from the plan's file name ("a-new-journey.opus"): the catalog files are its name, slugged. */
function trackOf(path: string, tracks: MusicTrack[]): string | undefined {
  const file = path.split(/[\\/]/).pop()?.replace(/\.[a-z0-9]+$/i, '') ?? '';
  return tracks.find((t) => t.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') === file)?.name;
}

/** What the page knows of the clip's look: the plan, the detail, then what this tab last sent. */
function styleOf(short: ShortObject, detail: EditorDetail, plan: ClipPlan | null, memory: ClipMemory, templates: TemplateItem[], tracks: MusicTrack[]): StyleState {
  const sent = memory.settings;
  const music = plan ? (plan.music ? sent.musicName ?? trackOf(plan.music.path, tracks) ?? '' : 'none') : '';
  return {
    templateId: sent.templateId ?? templates.find((t) => t.name === detail.template || t.displayName === detail.template)?.templateId ?? null,
    layout: short.layout ?? sent.layout ?? 'auto',
    hookTitle: sent.hookTitle ?? null,
    title: short.title,
    ctaEnabled: sent.ctaEnabled ?? null,
    ctaText: sent.ctaText ?? '',
    music,
    musicVolume: plan?.music?.volume ?? sent.musicVolume ?? 10,
    captionsEnabled: plan ? plan.captions !== null : sent.captionsEnabled ?? null,
    blurBackground: plan?.background?.blur ?? sent.blurBackground ?? null,
  };
}

export function ClipEditor() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const shortId = params.shortId ?? '';
  const [detail, setDetail] = useState<EditorDetail | null>(null);
  const [short, setShort] = useState<ShortObject | null>(null);
  const [plan, setPlan] = useState<ClipPlan | null>(null);
  const [templates, setTemplates] = useState<TemplateItem[]>([]);
  const [tracks, setTracks] = useState<MusicTrack[]>([]);
  const [loadError, setLoadError] = useState('');
  const [range, setRange] = useState<Range>({ start: 0, end: 0 });
  const [sourceSeconds, setSourceSeconds] = useState<number | undefined>(undefined);
  const [window_, setWindow] = useState<Range>({ start: 0, end: 0 });
  const [words, setWords] = useState<TranscriptWord[] | null>(null);
  const [unit, setUnit] = useState<'word' | 'sentence'>('word');
  const [fixes, setFixes] = useState<ReadonlyMap<string, string>>(new Map());
  const [baseStyle, setBaseStyle] = useState<StyleState | null>(null);
  const [style, setStyle] = useState<StyleState | null>(null);
  const [memory, setMemory] = useState<ClipMemory>(() => readMemory(id, shortId));
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error' | 'info'; text: string } | null>(null);
  const unwatch = useRef<(() => void) | null>(null);
  // Whether the clip was re-rendering at the last event, to notice the moment it stops.
  const wasRecompiling = useRef(false);

  // Everything the page starts from; the catalogs are optional (their parts of the form wait or stay empty).
  const reload = async (resetForm: boolean) => {
    const d = await loadDetail(id);
    const s = d.shorts.find((x) => x.id === shortId);
    if (!s) throw new Error('This request has no such clip.');
    const [p, t, m] = await Promise.all([
      loadPlan(id, shortId).catch(() => null),
      templates.length ? Promise.resolve(templates) : loadTemplates().then((l) => l.templates).catch(() => []),
      tracks.length ? Promise.resolve(tracks) : loadMusic().catch(() => []),
    ]);
    setDetail(d); setShort(s); setPlan(p); setTemplates(t); setTracks(m);
    if (resetForm) {
      const st = styleOf(s, d, p, readMemory(id, shortId), t, m);
      setBaseStyle(st); setStyle(st); setRange(rangeOf(s)); setFixes(new Map());
    }
    return s;
  };

  useEffect(() => {
    let live = true;
    reload(true).then((s) => {
      if (!live) return;
      setWindow({ start: Math.max(0, s.startTimestamp - CONTEXT_SECONDS), end: s.endTimestamp + CONTEXT_SECONDS });
      if (s.recompiling) { wasRecompiling.current = true; watch(); }
    }).catch((e) => live && setLoadError(messageOf(e)));
    return () => { live = false; unwatch.current?.(); };
  }, [id, shortId]);

  // The transcript of the window, or (a server without the transcript route) the request's sentences.
  useEffect(() => {
    if (!detail || window_.end <= window_.start) return;
    let live = true;
    loadTranscript(id, round3(window_.start), round3(window_.end)).then((w) => {
      if (!live) return;
      if (w) { setWords(w); setUnit('word'); }
      else { setWords(detail.sentences.map((s) => ({ text: s.sentence, start: s.start, end: s.end }))); setUnit('sentence'); }
    }).catch((e) => live && setMessage({ kind: 'error', text: `The transcript could not be loaded: ${messageOf(e)}` }));
    return () => { live = false; };
  }, [detail?._id, window_.start, window_.end]);

  /** Follows the clip until its re-render ends, then shows the new video (or why it failed). */
  const watch = () => {
    unwatch.current?.();
    unwatch.current = watchRequest(id, {
      onShorts: (shorts) => {
        const s = shorts.find((x) => x.id === shortId);
        if (!s) return;
        const ended = wasRecompiling.current && !s.recompiling;
        wasRecompiling.current = s.recompiling;
        setShort(s);
        if (ended) void finished(s);
      },
    });
  };
  const finished = async (s: ShortObject) => {
    unwatch.current?.();
    unwatch.current = null;
    if (s.editError) {
      setMessage({ kind: 'error', text: `The re-render failed, so the clip stays as it was: ${s.editError}` });
      await reload(false).catch(() => {});
      return;
    }
    await reload(true).catch(() => {});
    // The words around the new cut, when it moved past what the timeline holds.
    setWindow((w) => ({ start: Math.min(w.start, Math.max(0, s.startTimestamp - CONTEXT_SECONDS)), end: Math.max(w.end, s.endTimestamp + CONTEXT_SECONDS) }));
    setMessage({ kind: 'ok', text: `The new version is ready (${formatTime(s.startTimestamp)} – ${formatTime(s.endTimestamp)}).` });
  };

  const current = short ? rangeOf(short) : range;
  const problem = rangeProblem(range, sourceSeconds);
  const rangeChanged = !sameRange(range, current);
  const changes = useMemo(() => (baseStyle && style ? styleChanges(baseStyle, style) : { body: {}, problem: null }), [baseStyle, style]);
  const intro = plan?.memeHook?.seconds ?? 0;
  const captionWords: CaptionWord[] = plan?.captionWords ?? [];
  // A caption word's place in the source, to dim the ones a new cut drops.
  const keptWord = (w: CaptionWord) => inRange({ start: current.start + w.start - intro, end: current.start + w.end - intro }, range);
  const captionsOff = style?.captionsEnabled === false;

  const body = (): RenderBody => {
    const b: RenderBody = { ...changes.body };
    if (rangeChanged) {
      if (Math.abs(range.start - current.start) >= 1e-3) b.start = round3(range.start);
      if (Math.abs(range.end - current.end) >= 1e-3) b.end = round3(range.end);
    }
    if (fixes.size && !captionsOff) {
      b.captionEdits = { words: [...fixes].map(([k, text]) => {
        const [cue, word] = k.split('.').map(Number) as [number, number];
        return { cue, word, text };
      }) };
    }
    return b;
  };
  const pending = body();
  const nothing = Object.keys(pending).length === 0;

  const send = async (b: RenderBody, cuts: Range[]) => {
    if (!short) return;
    setBusy(true);
    setMessage(null);
    try {
      const s = await render(id, shortId, b);
      const { start: _s, end: _e, captionEdits: _c, ...settings } = b;
      const next: ClipMemory = { cuts, settings: { ...memory.settings, ...settings } };
      writeMemory(id, shortId, next);
      setMemory(next);
      setShort(s);
      wasRecompiling.current = true;
      setMessage({ kind: 'info', text: 'Re-rendering… the current clip stays until the new one is ready.' });
      watch();
    } catch (e) {
      setMessage({ kind: 'error', text: messageOf(e) });
    } finally {
      setBusy(false);
    }
  };
  const rerender = () => {
    if (problem || changes.problem || nothing) return;
    void send(pending, rangeChanged ? [...memory.cuts, current] : memory.cuts);
  };
  const previous = memory.cuts[memory.cuts.length - 1];
  const undo = () => {
    if (!previous) return;
    setRange(previous);
    void send({ start: round3(previous.start), end: round3(previous.end) }, memory.cuts.slice(0, -1));
  };
  const resetForm = () => { if (baseStyle) setStyle(baseStyle); setRange(current); setFixes(new Map()); setMessage(null); };

  if (loadError) {
    return (
      <section class="page">
        <h1>Edit clip</h1>
        <p class="error" role="alert">{loadError}</p>
        <p><a href={`/requests/${encodeURIComponent(id)}`}>Back to the request</a></p>
      </section>
    );
  }
  if (!detail || !short || !style) return <p class="loading" role="status">Loading the clip…</p>;

  const setStart = (t: number) => setRange((r) => ({ ...r, start: round3(t) }));
  const setEnd = (t: number) => setRange((r) => ({ ...r, end: round3(t) }));
  const recompiling = short.recompiling;

  return (
    <section class="page editor">
      <p class="editor-back"><a href={`/requests/${encodeURIComponent(id)}`}>← {detail.title || 'Back to the request'}</a></p>
      <h1>Edit clip: {short.title}</h1>
      {short.editError && !recompiling && message?.kind !== 'error' && (
        <p class="error" role="alert">The last re-render failed: {short.editError}</p>
      )}

      <div class="editor-top">
        <EditorPreview sourceUrl={detail.source_video_url} range={range} current={current} introSeconds={intro} short={short}
          onSourceSeconds={setSourceSeconds} />
        <section class="editor-cut" aria-labelledby="editor-cut-title">
          <h2 id="editor-cut-title">Cut</h2>
          <p class="muted editor-hint">
            Now {formatTime(current.start)} – {formatTime(current.end)}.
            {unit === 'sentence' ? ' Word times are not available here: choose sentences.' : ' Choose a word, then start or end the cut there.'}
          </p>
          {words === null ? <p class="muted" role="status">Loading the transcript…</p> : (
            <>
              <button type="button" class="link editor-more" disabled={window_.start <= 0}
                onClick={() => setWindow((w) => ({ ...w, start: Math.max(0, w.start - CONTEXT_SECONDS) }))}>Show earlier words</button>
              <EditorTimeline key={`${window_.start}-${window_.end}-${unit}`} words={words} range={range} current={current} unit={unit}
                onStart={setStart} onEnd={setEnd} />
              <button type="button" class="link editor-more" disabled={sourceSeconds !== undefined && window_.end >= sourceSeconds}
                onClick={() => setWindow((w) => ({ ...w, end: w.end + CONTEXT_SECONDS }))}>Show later words</button>
            </>
          )}
          <EditorRange range={range} sourceSeconds={sourceSeconds} problem={problem} onChange={setRange} />
        </section>
      </div>

      <section class="editor-section" aria-labelledby="editor-captions-title">
        <h2 id="editor-captions-title">Fix caption words</h2>
        {captionWords.length === 0
          ? <p class="muted">{plan ? 'This clip has no captions to fix.' : 'The caption words could not be loaded.'}</p>
          : captionsOff
            ? <p class="muted">Captions are turned off below, so there are no words to fix.</p>
            : <EditorCaptions words={captionWords} fixes={fixes} kept={keptWord} rangeChanged={rangeChanged}
              onFix={(k, text) => setFixes((f) => { const n = new Map(f); if (text === null) n.delete(k); else n.set(k, text); return n; })} />}
      </section>

      <section class="editor-section" aria-labelledby="editor-style-title">
        <h2 id="editor-style-title">Style</h2>
        <EditorStyle value={style} templates={templates} tracks={tracks} onChange={setStyle} />
      </section>

      <div class="editor-actions" role="region" aria-label="Re-render">
        <button type="button" class="primary" disabled={busy || recompiling || nothing || Boolean(problem || changes.problem)} onClick={rerender}>
          {recompiling ? 'Re-rendering…' : 'Re-render clip'}
        </button>
        {previous && (
          <button type="button" disabled={busy || recompiling} onClick={undo}>
            Undo to previous cut ({formatTime(previous.start)} – {formatTime(previous.end)})
          </button>
        )}
        <button type="button" disabled={busy || (nothing && !message)} onClick={resetForm}>Reset changes</button>
        <p class={`editor-status${message?.kind === 'error' ? ' error' : ''}`} role="status" aria-live="polite">
          {/* "The new version is ready" gives way to the next changes the moment there are any. */}
          {(message && !(message.kind === 'ok' && !nothing) ? message.text : null)
            ?? (changes.problem ?? (nothing ? 'No changes yet.' : `Changes: ${describe(pending)}.`))}
        </p>
      </div>
    </section>
  );
}

/** The pending changes in words, so the creator knows what the button will send. */
function describe(b: RenderBody): string {
  const out: string[] = [];
  if (b.start !== undefined || b.end !== undefined) out.push('cut');
  if (b.captionEdits) out.push(`${b.captionEdits.words.length} caption fix${b.captionEdits.words.length === 1 ? '' : 'es'}`);
  const names: Partial<Record<keyof RenderBody, string>> = {
    templateId: 'template', layout: 'layout', hookTitle: 'hook title', title: 'title', ctaEnabled: 'call to action', ctaText: 'call to action text',
    music: 'music', musicName: 'track', musicVolume: 'music volume', captionsEnabled: 'captions', blurBackground: 'background',
  };
  for (const k of Object.keys(b) as (keyof RenderBody)[]) if (names[k] && !(k === 'music' && b.musicName)) out.push(names[k]!);
  return out.join(', ');
}
