// Every create option (spec 4.2) as a control, generated from the shared option table CREATE_OPTIONS, the
// same table the server validates with: its types, defaults, limits and enums drive the controls, so a new
// option appears here without a change. The catalog names get pickers to look and listen.
import { useState } from 'preact/hooks';
import { CREATE_OPTIONS, type OptionDef } from '../../api/create-options';
import { ClipPicker, MusicPicker, TemplatePicker } from './create-catalogs';

export type OptionValue = string | number | boolean | undefined;
export type OptionValues = Record<string, OptionValue>;

/** Options that only mean something when another one is on (the server ignores them otherwise). */
const NEEDS: Record<string, string> = {
  memeHookName: 'memeHook', gameVideoName: 'gameVideo', ctaText: 'ctaEnabled', musicName: 'music', musicVolume: 'music',
  outroText: 'outroEnabled', outroImageUrl: 'outroEnabled', outroSeconds: 'outroEnabled', outroSting: 'outroEnabled', outroHandle: 'outroEnabled',
};

const GROUPS: { id: OptionDef['group']; title: string; rare: boolean }[] = [
  { id: 'content', title: 'Clips and captions', rare: false },
  { id: 'layout', title: 'Layout', rare: false },
  { id: 'overlays', title: 'Overlays', rare: true },
  { id: 'music', title: 'Music', rare: true },
  { id: 'outro', title: 'End screen', rare: true },
  { id: 'webhook', title: 'Advanced', rare: true },
];

const LABELS: Record<string, string> = {
  preferredLength: 'Preferred clip length', maxShorts: 'Most clips', language: 'Spoken language', captionLanguage: 'Caption language',
  noClipping: 'Make the whole range one clip', captionsEnabled: 'Burn in captions', hookTitle: 'Animated hook title',
  memeHook: 'Start with a meme clip', gameVideo: 'Gameplay split screen', ctaEnabled: 'Call-to-action banner at the end',
  ctaText: 'Call-to-action text', music: 'Background music', musicVolume: 'Music volume (0–100)', layout: 'Layout',
  blurBackground: 'Background where the video does not fill the frame', outroEnabled: 'End-screen outro', outroText: 'Outro text',
  outroImageUrl: 'Outro image link', outroSeconds: 'Outro length (seconds)', outroSting: 'Play a bell at the outro',
  outroHandle: 'Channel handle', webhookUrl: 'Webhook URL (notified when the request finishes)',
};
/** The table's description without its CLI asides ("(--no-clipping)", "see `shorts templates`"). */
const hint = (d: OptionDef) => d.description.replace(/\s*\([^)]*--[^)]*\)/g, '').replace(/,?\s*see `[^`]*`/g, '');
const label = (f: string) => LABELS[f] ?? f.replace(/([A-Z])/g, ' $1').replace(/^./, (c) => c.toUpperCase());

const ENUM_TEXT: Record<string, string> = {
  under30sec: 'Under 30 seconds', under60sec: 'Under 1 minute', under90sec: 'Under 90 seconds', under3min: 'Under 3 minutes',
  under5min: 'Under 5 minutes', under10min: 'Under 10 minutes', auto: 'Automatic', fill: 'Fill (zoom and crop the sides)',
  fit: 'Fit (whole picture)', square: 'Square (1:1)', split: 'Split (two people stacked)', screen: 'Screen above, speaker below',
};
let languageNames: Intl.DisplayNames | null = null;
try {
  languageNames = new Intl.DisplayNames(['en'], { type: 'language' });
} catch {
  // Older browsers: the codes alone.
}
function enumText(field: string, v: string): string {
  if (field === 'language' || field === 'captionLanguage') {
    const n = languageNames?.of(v);
    return n && n !== v ? `${n} (${v})` : v;
  }
  return ENUM_TEXT[v] ?? v;
}

/** The fields the generic form covers (the source and the range have their own sections). */
export const FORM_OPTIONS = CREATE_OPTIONS.filter((o) => o.group !== 'source' && o.group !== 'range');

/** The form's values as create-body fields: what differs from the defaults, and only options that apply. */
export function optionsBody(values: OptionValues): Record<string, string | number | boolean> {
  const body: Record<string, string | number | boolean> = {};
  for (const o of FORM_OPTIONS) {
    const v = values[o.field];
    const needs = NEEDS[o.field];
    if (v === undefined || v === '' || (needs && values[needs] !== true)) continue;
    if (v === (o.defaultValue ?? undefined)) continue;
    body[o.field] = v;
  }
  return body;
}

export function isRareField(field: string): boolean {
  const o = FORM_OPTIONS.find((x) => x.field === field);
  return !!o && !!GROUPS.find((g) => g.id === o.group)?.rare;
}

interface FieldsProps {
  values: OptionValues;
  onChange: (field: string, v: OptionValue) => void;
  errors: Record<string, string>;
  moreOpen: boolean;
  onMoreOpen: (open: boolean) => void;
}

export function CreateFields(p: FieldsProps) {
  const group = (g: (typeof GROUPS)[number]) => {
    const defs = FORM_OPTIONS.filter((o) => o.group === g.id && (!NEEDS[o.field] || p.values[NEEDS[o.field]!] === true));
    if (!defs.length) return null;
    return (
      <fieldset class="create-box create-group" key={g.id}>
        <legend>{g.title}</legend>
        {defs.map((o) => <Field key={o.field} def={o} value={p.values[o.field]} onChange={(v) => p.onChange(o.field, v)} error={p.errors[o.field]} />)}
      </fieldset>
    );
  };
  return (
    <>
      {GROUPS.filter((g) => !g.rare).map(group)}
      <details class="create-more" open={p.moreOpen} onToggle={(e) => p.onMoreOpen(e.currentTarget.open)}>
        <summary>More options <span class="muted">(overlays, music, end screen, webhook)</span></summary>
        {GROUPS.filter((g) => g.rare).map(group)}
      </details>
    </>
  );
}

function Field({ def, value, onChange, error }: { def: OptionDef; value: OptionValue; onChange: (v: OptionValue) => void; error?: string }) {
  const id = `create-f-${def.field}`;
  const errId = `create-err-${def.field}`;
  const hintId = `create-hint-${def.field}`;
  // A hint that only repeats the label is left out (screen readers would read it twice).
  const hintText = hint(def);
  const hasHint = hintText.toLowerCase() !== label(def.field).toLowerCase();
  const described = [error ? errId : '', hasHint ? hintId : ''].filter(Boolean).join(' ') || undefined;
  const t = def.type;
  const pick = { value: value as string | undefined, onChange, error, errorId: errId };
  let control;
  switch (def.field) {
    case 'templateId': return <div data-field={def.field} class="create-field"><TemplatePicker {...pick} /></div>;
    case 'musicName': return <div data-field={def.field} class="create-field"><MusicPicker {...pick} /></div>;
    case 'memeHookName':
      return <div data-field={def.field} class="create-field"><ClipPicker {...pick} path="/meme-hooks" listKey="memeHooks" legend="Meme clip" what="meme clips" muted={false} /></div>;
    case 'gameVideoName':
      return <div data-field={def.field} class="create-field"><ClipPicker {...pick} path="/game-videos" listKey="gameVideos" legend="Game video" what="game videos" muted /></div>;
  }
  if (t.kind === 'boolean') {
    if (def.defaultValue === undefined) {
      // No default of its own (blurBackground: the account's saved preference): three choices.
      control = (
        <select id={id} aria-describedby={described} aria-invalid={error ? true : undefined}
          value={value === undefined ? '' : String(value)} onChange={(e) => onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.value === 'true')}>
          <option value="">Account preference (default)</option>
          <option value="true">Blurred copy of the video</option>
          <option value="false">Template’s solid colour</option>
        </select>
      );
    } else {
      const checked = value === undefined ? def.defaultValue === true : value === true;
      return (
        <div data-field={def.field} class="create-field create-check">
          <label>
            <input id={id} type="checkbox" checked={checked} aria-describedby={described} aria-invalid={error ? true : undefined}
              onChange={(e) => onChange(e.currentTarget.checked)} />
            {' '}{label(def.field)}{def.defaultValue === true ? ' (on by default)' : ''}
          </label>
          {hasHint && <p id={hintId} class="muted create-small">{hintText}</p>}
          <p id={errId} class="error" role="alert">{error ?? ''}</p>
        </div>
      );
    }
  } else if (t.kind === 'enum') {
    const noDefault = def.defaultValue === undefined;
    control = (
      <select id={id} aria-describedby={described} aria-invalid={error ? true : undefined}
        value={(value as string | undefined) ?? (noDefault ? '' : String(def.defaultValue))}
        onChange={(e) => onChange(e.currentTarget.value || undefined)}>
        {noDefault && <option value="">{def.field === 'captionLanguage' ? 'Same as the spoken language (default)' : 'Default'}</option>}
        {t.values.map((v) => <option key={v} value={v}>{enumText(def.field, v)}{v === def.defaultValue ? ' (default)' : ''}</option>)}
      </select>
    );
  } else if (t.kind === 'number') {
    const placeholder = def.defaultValue === null ? 'Automatic' : def.defaultValue === undefined ? '' : `${def.defaultValue} (default)`;
    control = (
      <input id={id} type="number" inputMode={t.integer ? 'numeric' : 'decimal'} min={t.min} max={t.max} step={t.integer ? 1 : 'any'}
        placeholder={placeholder} value={value === undefined ? '' : String(value)}
        aria-describedby={described} aria-invalid={error ? true : undefined}
        onInput={(e) => { const n = e.currentTarget.valueAsNumber; onChange(Number.isFinite(n) ? n : undefined); }} />
    );
  } else {
    const isUrl = /Url$/.test(def.field);
    control = (
      <input id={id} type={isUrl ? 'url' : 'text'} maxLength={t.maxLength} value={(value as string | undefined) ?? ''}
        placeholder={isUrl ? 'https://…' : ''} aria-describedby={described} aria-invalid={error ? true : undefined}
        onInput={(e) => onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.value)} />
    );
  }
  return (
    <div data-field={def.field} class="create-field">
      <label for={id}>{label(def.field)}</label>
      {control}
      {hasHint && <p id={hintId} class="muted create-small">{hintText}</p>}
      <p id={errId} class="error" role="alert">{error ?? ''}</p>
    </div>
  );
}

/** The "More options" section's open state, opened by itself when a hidden field gets an error. */
export function useMoreOpen(errors: Record<string, string>): [boolean, (o: boolean) => void] {
  const [open, setOpen] = useState(false);
  const forced = Object.keys(errors).some(isRareField);
  return [open || forced, setOpen];
}
