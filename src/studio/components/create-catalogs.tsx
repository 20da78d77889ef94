// The catalogs a creator picks from by looking and listening: caption templates (animated previews as
// radio cards), music tracks (one playing at a time), meme hooks and game videos (watchable clips).
// Lists and their media load only once their picker is shown.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Pagination, TemplateList } from '../../api/types';
import { api, messageOf, v1 } from '../api';
import { formatTime } from './create-time';

// The catalog items as the API lists them (src/catalog/catalog-assets.ts, not importable from the browser).
interface Track { name: string; duration: number; url: string }
interface Clip { name: string; preview: string; video: string; video_duration: number }

const PAGE = 20;

/** The pages of a catalog list, fetched one at a time on request. */
function usePages<T>(path: string, key: string) {
  const [items, setItems] = useState<T[]>([]);
  const [pagination, setPagination] = useState<Pagination | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const attempted = useRef(1);
  const load = async (page: number) => {
    attempted.current = page;
    setLoading(true);
    setError(null);
    try {
      const data = await api.get<Record<string, unknown> & { pagination: Pagination }>(v1(path), { page, limit: PAGE });
      setItems((prev) => (page === 1 ? [] : prev).concat((data[key] as T[] | undefined) ?? []));
      setPagination(data.pagination);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => void load(1), [path]);
  const more = pagination && pagination.page < pagination.totalPages ? () => void load(pagination.page + 1) : undefined;
  return { items, error, loading, more, retry: () => void load(attempted.current) };
}

function ListFooter({ loading, error, more, retry, what }: { loading: boolean; error: string | null; more?: () => void; retry: () => void; what: string }) {
  return (
    <div class="create-row">
      {loading && <span class="muted" role="status">Loading {what}…</span>}
      {error && <span class="error" role="alert">Could not load {what}: {error} <button type="button" class="link" onClick={retry}>Retry</button></span>}
      {!loading && more && <button type="button" onClick={more}>Show more {what}</button>}
    </div>
  );
}

export interface PickerProps {
  value: string | undefined;
  onChange: (v: string | undefined) => void;
  error?: string;
  errorId: string;
}

export function TemplatePicker({ value, onChange, error, errorId }: PickerProps) {
  const [list, setList] = useState<TemplateList | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  useEffect(() => {
    api.get<TemplateList>(v1('/templates')).then(setList, (e) => setLoadError(messageOf(e)));
  }, []);
  const chosen = value ?? list?.defaultTemplateId;
  return (
    <fieldset class="create-picker" aria-describedby={error ? errorId : undefined}>
      <legend>Caption template</legend>
      {!list && !loadError && <p class="muted" role="status">Loading templates…</p>}
      {loadError && <p class="error" role="alert">Could not load the templates: {loadError}</p>}
      {list && (
        <div class="create-cards">
          {[...list.templates].sort((a, b) => a.order - b.order).map((t) => (
            <label class="create-card" key={t.templateId}>
              <input
                type="radio" name="create-template" value={t.templateId} checked={chosen === t.templateId}
                onChange={() => onChange(t.templateId === list.defaultTemplateId ? undefined : t.templateId)}
              />
              <img src={t.gif || t.preview} alt="" loading="lazy" decoding="async" width={120} height={213} />
              <span>{t.displayName || t.name}{t.templateId === list.defaultTemplateId ? ' (default)' : ''}</span>
            </label>
          ))}
        </div>
      )}
      <p id={errorId} class="error" role="alert">{error ?? ''}</p>
    </fieldset>
  );
}

/** Pauses every other player in `root` when one starts: one preview plays at a time. */
function onlyOnePlaying(root: HTMLElement | null, e: Event): void {
  root?.querySelectorAll('audio, video').forEach((m) => {
    if (m !== e.target) (m as HTMLMediaElement).pause();
  });
}

export function MusicPicker({ value, onChange, error, errorId }: PickerProps) {
  const list = usePages<Track>('/music', 'music');
  const root = useRef<HTMLFieldSetElement>(null);
  const [filter, setFilter] = useState('');
  const shown = list.items.filter((t) => t.name.toLowerCase().includes(filter.trim().toLowerCase()));
  return (
    <fieldset class="create-picker" ref={root} onPlayCapture={(e) => onlyOnePlaying(root.current, e)} aria-describedby={error ? errorId : undefined}>
      <legend>Track</legend>
      <label class="create-filter">Filter tracks <input type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} /></label>
      <ul class="create-tracks">
        <li><label><input type="radio" name="create-music" checked={value === undefined} onChange={() => onChange(undefined)} /> A random track (default)</label></li>
        {shown.map((t) => (
          <li key={t.name}>
            <label><input type="radio" name="create-music" checked={value === t.name} onChange={() => onChange(t.name)} /> {t.name} <span class="muted">{formatTime(t.duration)}</span></label>
            <audio src={t.url} controls preload="none" aria-label={`Listen to ${t.name}`} />
          </li>
        ))}
      </ul>
      {filter && !shown.length && !list.loading && <p class="muted">No loaded track matches “{filter}”.</p>}
      <ListFooter {...list} what="tracks" />
      <p id={errorId} class="error" role="alert">{error ?? ''}</p>
    </fieldset>
  );
}

export function ClipPicker({ value, onChange, error, errorId, path, listKey, legend, what, muted }: PickerProps & { path: string; listKey: string; legend: string; what: string; muted: boolean }) {
  const list = usePages<Clip>(path, listKey);
  const root = useRef<HTMLFieldSetElement>(null);
  const name = `create-${listKey}`;
  return (
    <fieldset class="create-picker" ref={root} onPlayCapture={(e) => onlyOnePlaying(root.current, e)} aria-describedby={error ? errorId : undefined}>
      <legend>{legend}</legend>
      <label class="create-random"><input type="radio" name={name} checked={value === undefined} onChange={() => onChange(undefined)} /> A random one (default)</label>
      <div class="create-cards">
        {list.items.map((c) => (
          <div class="create-card" key={c.name}>
            <video src={c.video} poster={c.preview} controls muted={muted} preload="none" playsInline aria-label={`Watch ${c.name}`} width={160} height={90} />
            <label><input type="radio" name={name} checked={value === c.name} onChange={() => onChange(c.name)} /> {c.name} <span class="muted">{formatTime(c.video_duration)}</span></label>
          </div>
        ))}
      </div>
      <ListFooter {...list} what={what} />
      <p id={errorId} class="error" role="alert">{error ?? ''}</p>
    </fieldset>
  );
}
