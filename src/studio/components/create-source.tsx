// Where the video comes from: a file dropped or picked (uploaded resumably), or a pasted link (a video
// page -> `url`, a direct file -> `fileUrl`; guessed from the link, switchable, checked by the server).
import { useState } from 'preact/hooks';
import type { useTusUpload } from './create-upload';
import { fileProblem, formatBytes, guessUrlKind, type UrlKind } from './create-time';

export type SourceMode = 'file' | 'link';

export interface SourceProps {
  mode: SourceMode;
  onMode: (m: SourceMode) => void;
  file: File | null;
  onFile: (f: File | null) => void;
  link: string;
  onLink: (link: string) => void;
  linkKind: UrlKind;
  onLinkKind: (k: UrlKind, chosen: boolean) => void;
  linkKindChosen: boolean;
  upload: ReturnType<typeof useTusUpload>;
  /** The server's or the form's message about the source, shown under it. */
  error?: string;
}

export function CreateSource(p: SourceProps) {
  const [over, setOver] = useState(false);
  const [pickError, setPickError] = useState<string | null>(null);

  const take = (files: FileList | null | undefined) => {
    const f = files?.[0];
    if (!f) return;
    const problem = fileProblem(f);
    setPickError(problem);
    if (problem) return;
    p.onFile(f);
  };
  const message = pickError ?? p.error;

  return (
    <fieldset class="create-box create-source" aria-describedby={message ? 'create-source-error' : undefined}>
      <legend>1. Video</legend>
      <div class="create-seg" role="radiogroup" aria-label="Video source">
        <label><input type="radio" name="create-source-mode" checked={p.mode === 'file'} onChange={() => p.onMode('file')} /> Upload a file</label>
        <label><input type="radio" name="create-source-mode" checked={p.mode === 'link'} onChange={() => p.onMode('link')} /> Paste a link</label>
      </div>

      {p.mode === 'file' ? (
        <>
          {!p.file || p.upload.state.phase === 'idle' ? (
            <div
              class="create-drop"
              data-over={over || undefined}
              onDragOver={(e) => { e.preventDefault(); setOver(true); }}
              onDragLeave={() => setOver(false)}
              onDrop={(e) => { e.preventDefault(); setOver(false); take(e.dataTransfer?.files); }}
            >
              <p>Drop a video file here, or</p>
              <label class="create-pick">
                <input type="file" accept="video/*" onChange={(e) => { take(e.currentTarget.files); e.currentTarget.value = ''; }} />
                <span>Choose a video file</span>
              </label>
              <p class="muted create-small">Up to 10 GB. Uploads continue after a lost connection: pick the same file again.</p>
            </div>
          ) : (
            <UploadProgress file={p.file} upload={p.upload} onOther={() => { void p.upload.cancel(); p.onFile(null); }} />
          )}
        </>
      ) : (
        <div class="create-link">
          <label for="create-link">Video link</label>
          <input
            id="create-link" type="url" inputMode="url" placeholder="https://…" value={p.link}
            aria-invalid={p.error ? true : undefined}
            aria-describedby={p.error ? 'create-source-error' : 'create-link-hint'}
            onInput={(e) => {
              const v = e.currentTarget.value;
              p.onLink(v);
              if (!p.linkKindChosen) p.onLinkKind(guessUrlKind(v), false);
            }}
          />
          <p id="create-link-hint" class="muted create-small">A video page (for example a YouTube or Vimeo link) or a direct link to a video file (.mp4, .mov, .webm…).</p>
          <div class="create-seg" role="radiogroup" aria-label="This link is">
            <label><input type="radio" name="create-link-kind" checked={p.linkKind === 'url'} onChange={() => p.onLinkKind('url', true)} /> A video page</label>
            <label><input type="radio" name="create-link-kind" checked={p.linkKind === 'fileUrl'} onChange={() => p.onLinkKind('fileUrl', true)} /> A video file</label>
          </div>
        </div>
      )}
      <p id="create-source-error" class="error" role="alert">{message ?? ''}</p>
    </fieldset>
  );
}

function UploadProgress({ file, upload, onOther }: { file: File; upload: SourceProps['upload']; onOther: () => void }) {
  const s = upload.state;
  const total = 'total' in s ? s.total : file.size;
  const sent = s.phase === 'done' ? total : 'sent' in s ? s.sent : 0;
  const pct = total ? Math.floor((sent / total) * 100) : 0;
  const speed = s.phase === 'uploading' && s.speed ? ` · ${formatBytes(Math.round(s.speed))}/s` : '';
  const state = s.phase === 'done' ? 'Uploaded' : s.phase === 'paused' ? 'Paused' : s.phase === 'error' ? 'Stopped' : 'Uploading';
  return (
    <div class="create-upload">
      <p class="create-file-name"><strong>{file.name}</strong> <span class="muted">({formatBytes(file.size)})</span></p>
      <label for="create-upload-progress">{state}: {pct}%</label>
      <progress id="create-upload-progress" max={total || 1} value={sent} aria-valuetext={`${pct}%`} />
      <p class="visually-hidden" aria-live="polite">{s.phase === 'uploading' ? '' : `${state}: ${file.name}`}</p>
      <p class="muted create-small">
        {formatBytes(sent)} of {formatBytes(total)}{speed}
        {'resumed' in s && s.resumed ? ' · continued an earlier upload of this file' : ''}
      </p>
      {s.phase === 'error' && <p class="error" role="alert">{s.message}</p>}
      <div class="create-row">
        {s.phase === 'uploading' && <button type="button" onClick={upload.pause}>Pause</button>}
        {s.phase === 'paused' && <button type="button" onClick={upload.resume}>Resume</button>}
        {s.phase === 'error' && <button type="button" onClick={() => void upload.start(file)}>Try again</button>}
        {s.phase !== 'done' && <button type="button" class="danger" onClick={onOther}>Cancel upload</button>}
        {s.phase === 'done' && <button type="button" onClick={onOther}>Use another file</button>}
      </div>
    </div>
  );
}
