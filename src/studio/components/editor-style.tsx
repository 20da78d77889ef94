// The clip's look: caption template (with its rendered previews), layout, hook title and the clip's title,
// call to action, music (a catalog track, heard before choosing, and its volume), captions and background.
// A value the API does not report for a clip (hook title, CTA) starts as "Keep as it is", so nothing is
// sent for it unless the creator picks one; only changed fields go into the re-render.
import { LAYOUTS } from '../../api/create-options';
import type { TemplateItem } from '../../api/types';
import type { MusicTrack, RenderBody } from './editor-api';

/** null: the page does not know the clip's value (the field is then sent only when chosen). */
export interface StyleState {
  templateId: string | null;
  layout: string;
  hookTitle: boolean | null;
  title: string;
  ctaEnabled: boolean | null;
  ctaText: string;
  /** 'none', 'random', a track's name, or '' for the clip's current music when its name is not known. */
  music: string;
  musicVolume: number;
  captionsEnabled: boolean | null;
  blurBackground: boolean | null;
}

/** The re-render fields for what differs from `from`, and what the server would refuse, if anything. */
export function styleChanges(from: StyleState, to: StyleState): { body: RenderBody; problem: string | null } {
  const body: RenderBody = {};
  if (to.templateId !== null && to.templateId !== from.templateId) body.templateId = to.templateId;
  if (to.layout !== from.layout) body.layout = to.layout;
  if (to.hookTitle !== null && to.hookTitle !== from.hookTitle) body.hookTitle = to.hookTitle;
  const title = to.title.trim();
  if (title && title !== from.title.trim()) body.title = title;
  if (to.ctaEnabled !== null && to.ctaEnabled !== from.ctaEnabled) body.ctaEnabled = to.ctaEnabled;
  if (to.ctaText.trim() !== from.ctaText.trim() && to.ctaText.trim()) body.ctaText = to.ctaText.trim();
  if (to.music !== from.music) {
    if (to.music === 'none') body.music = false;
    else if (to.music === 'random') body.music = true;
    else if (to.music) { body.music = true; body.musicName = to.music; }
  }
  if (to.musicVolume !== from.musicVolume && to.music !== 'none') body.musicVolume = to.musicVolume;
  if (to.captionsEnabled !== null && to.captionsEnabled !== from.captionsEnabled) body.captionsEnabled = to.captionsEnabled;
  if (to.blurBackground !== null && to.blurBackground !== from.blurBackground) body.blurBackground = to.blurBackground;
  let problem: string | null = null;
  if (!title) problem = 'The clip needs a title.';
  else if (to.ctaEnabled === true && body.ctaEnabled && !to.ctaText.trim()) problem = 'Write the call to action’s text to show it.';
  return { body, problem };
}

interface Props {
  value: StyleState;
  templates: TemplateItem[];
  tracks: MusicTrack[];
  onChange(s: StyleState): void;
}

const LAYOUT_NAMES: Record<string, string> = {
  auto: 'Auto (chosen from the video)', fill: 'Fill (crop to the speaker)', fit: 'Fit (whole picture)', square: 'Square',
  split: 'Split (two people stacked)', screen: 'Screen (screen above, speaker below)',
};

/** A yes/no the page may not know: a select with "Keep as it is" while unknown, so the name stays one control. */
function Toggle({ id, label, value, onValue }: { id: string; label: string; value: boolean | null; onValue(v: boolean | null): void }) {
  return (
    <div class="editor-field">
      <label for={id}>{label}</label>
      <select id={id} value={value === null ? 'keep' : value ? 'on' : 'off'}
        onChange={(e) => { const v = e.currentTarget.value; onValue(v === 'keep' ? null : v === 'on'); }}>
        {value === null && <option value="keep">Keep as it is</option>}
        <option value="on">On</option>
        <option value="off">Off</option>
      </select>
    </div>
  );
}

export function EditorStyle({ value, templates, tracks, onChange }: Props) {
  const set = <K extends keyof StyleState>(k: K, v: StyleState[K]) => onChange({ ...value, [k]: v });
  const chosen = templates.find((t) => t.templateId === value.templateId);
  const track = tracks.find((t) => t.name === value.music);
  return (
    <div class="editor-style">
      <fieldset class="editor-templates">
        <legend>Caption template</legend>
        <div class="editor-template-list">
          {templates.map((t) => (
            <label key={t.templateId} class={`editor-template${t.templateId === value.templateId ? ' is-chosen' : ''}`}>
              <input type="radio" name="editor-template" value={t.templateId} checked={t.templateId === value.templateId}
                onChange={() => set('templateId', t.templateId)} />
              <img src={t.thumbnail} alt="" width={68} height={120} loading="lazy" decoding="async" />
              <span>{t.displayName}</span>
            </label>
          ))}
        </div>
        {chosen && <img class="editor-template-gif" src={chosen.gif} alt={`Animated preview of the ${chosen.displayName} captions`} width={135} height={240} loading="lazy" />}
        {value.templateId === null && <p class="muted">The clip keeps its current template unless you choose one.</p>}
      </fieldset>

      <div class="editor-fields">
        <div class="editor-field editor-wide">
          <label for="editor-title">Clip title</label>
          <input id="editor-title" type="text" maxLength={200} value={value.title} onInput={(e) => set('title', e.currentTarget.value)} />
        </div>
        <Toggle id="editor-hook" label="Hook title (the title drawn at the start)" value={value.hookTitle} onValue={(v) => set('hookTitle', v)} />
        <div class="editor-field">
          <label for="editor-layout">Layout</label>
          <select id="editor-layout" value={value.layout} onChange={(e) => set('layout', e.currentTarget.value)}>
            {LAYOUTS.map((l) => <option key={l} value={l}>{LAYOUT_NAMES[l] ?? l}</option>)}
          </select>
        </div>
        <Toggle id="editor-captions-on" label="Captions" value={value.captionsEnabled} onValue={(v) => set('captionsEnabled', v)} />
        <Toggle id="editor-blur" label="Blurred background (fit, square)" value={value.blurBackground} onValue={(v) => set('blurBackground', v)} />
        <Toggle id="editor-cta" label="Call to action at the end" value={value.ctaEnabled} onValue={(v) => set('ctaEnabled', v)} />
        <div class="editor-field editor-wide">
          <label for="editor-cta-text">Call to action text</label>
          <input id="editor-cta-text" type="text" maxLength={200} value={value.ctaText} placeholder="Follow for more"
            onInput={(e) => set('ctaText', e.currentTarget.value)} />
        </div>
      </div>

      <fieldset class="editor-music">
        <legend>Music</legend>
        <div class="editor-field">
          <label for="editor-music">Track</label>
          <select id="editor-music" value={value.music} onChange={(e) => set('music', e.currentTarget.value)}>
            {value.music === '' && <option value="">Keep the current track</option>}
            <option value="none">No music</option>
            <option value="random">A random track</option>
            {tracks.map((t) => <option key={t.name} value={t.name}>{t.name} ({Math.round(t.duration)} s)</option>)}
          </select>
        </div>
        {track && <audio class="editor-audio" src={track.url} controls preload="none" aria-label={`Listen to ${track.name}`} />}
        <div class="editor-field">
          <label for="editor-volume">Volume under the speech: {value.musicVolume}</label>
          <input id="editor-volume" type="range" min={0} max={100} step={1} value={value.musicVolume} disabled={value.music === 'none'}
            onInput={(e) => set('musicVolume', Number(e.currentTarget.value))} />
        </div>
      </fieldset>
    </div>
  );
}
