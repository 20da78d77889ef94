// New request: a video (uploaded resumably or linked), the range to find clips in, every create option, the
// cost, then POST /shorts/create and on to the request's page. The server validates everything again; its
// errors are shown next to the field they name.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { CreateResponse } from '../../api/types';
import { ApiError, api, messageOf, v1 } from '../api';
import { useSession } from '../session';
import { CreateSource, type SourceMode } from '../components/create-source';
import { CreateRange } from '../components/create-range';
import { CreateFields, optionsBody, useMoreOpen, type OptionValue, type OptionValues } from '../components/create-fields';
import { useTusUpload } from '../components/create-upload';
import { formatTime, parseTime, rangeProblem, urlProblem, WINDOW_MAX, type UrlKind } from '../components/create-time';
import { rememberCreated } from '../components/review-handoff';
import '../components/create.css';

/** Where an error the server names belongs: the source and range sections, or an option's own field. */
function placeOf(e: ApiError): string | undefined {
  const named = e.details?.parameter ?? e.details?.field;
  const field = typeof named === 'string' ? named : ({
    invalid_video_site_url: 'url', invalid_file_url: 'fileUrl', file_too_large: 'source', video_too_long: 'range', invalid_webhook_url: 'webhookUrl',
  } as Record<string, string>)[e.code];
  if (field === 'url' || field === 'fileUrl' || field === 'uploadId' || field === 'file') return 'source';
  if (field === 'start' || field === 'end') return 'range';
  return field;
}

export function Create() {
  const { session, refresh } = useSession();
  const { route } = useLocation();
  const local = session?.local ?? false;
  const credits = session?.credits ?? null;

  const [mode, setMode] = useState<SourceMode>('file');
  const [file, setFile] = useState<File | null>(null);
  const [link, setLink] = useState('');
  const [linkKind, setLinkKind] = useState<UrlKind>('url');
  const [linkKindChosen, setLinkKindChosen] = useState(false);
  const upload = useTusUpload();

  const [startText, setStartText] = useState(local ? '' : '0:00');
  const [endText, setEndText] = useState('');
  const [duration, setDuration] = useState<number | undefined>(undefined);

  const [values, setValues] = useState<OptionValues>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [created, setCreated] = useState<CreateResponse | null>(null);
  const [moreOpen, setMoreOpen] = useMoreOpen(errors);
  const doneRef = useRef<HTMLAnchorElement>(null);

  // The picked file plays from memory: no upload is needed to choose the range.
  const fileSrc = useMemo(() => (file ? URL.createObjectURL(file) : null), [file]);
  useEffect(() => () => { if (fileSrc) URL.revokeObjectURL(fileSrc); }, [fileSrc]);
  const linkOk = urlProblem(link) === null;
  const src = mode === 'file' ? fileSrc : linkKind === 'fileUrl' && linkOk ? link.trim() : null;

  // A known length fills in an empty end: the whole video, or the longest window the API takes.
  useEffect(() => {
    if (duration !== undefined && endText.trim() === '' && !local) setEndText(formatTime(Math.min(Math.floor(duration), WINDOW_MAX)));
  }, [duration]);
  useEffect(() => { if (created?.timeAdjustment) doneRef.current?.focus(); }, [created]);

  const clearError = (key: string) => {
    if (errors[key]) setErrors(({ [key]: _, ...rest }) => rest);
    setFormError(null);
  };
  const pickFile = (f: File | null) => {
    setFile(f);
    setDuration(undefined);
    clearError('source');
    if (f) void upload.start(f);
    else upload.reset();
  };

  const start = parseTime(startText);
  const end = parseTime(endText);
  const rangeBad = (startText.trim() !== '' && start === null) || (endText.trim() !== '' && end === null)
    ? 'Fix the range: type times as mm:ss or seconds.' : rangeProblem(start, end, { local, duration });
  const sourceWait = mode === 'file'
    ? (!file ? 'Choose a video file first.' : upload.state.phase !== 'done' ? 'Wait for the upload to finish.' : null)
    : urlProblem(link);
  const noCredits = credits !== null && credits <= 0;
  const blocked = noCredits ? 'You have no credits left, so a new request cannot be created.'
    : sourceWait ?? rangeBad;

  async function submit(e: Event) {
    e.preventDefault();
    if (blocked || submitting) return;
    const body: Record<string, unknown> = { ...optionsBody(values) };
    if (mode === 'file' && upload.state.phase === 'done') body.uploadId = upload.state.uploadId;
    else body[linkKind] = link.trim();
    if (start !== null) body.start = start;
    if (end !== null) body.end = end;
    setSubmitting(true);
    setErrors({});
    setFormError(null);
    try {
      const res = await api.post<CreateResponse>(v1('/shorts/create'), body);
      void refresh();
      // The request view shows the queue position and ETA of this answer until its first live event.
      rememberCreated(res);
      if (res.timeAdjustment) setCreated(res);
      else route(`/requests/${res.requestId}`);
    } catch (err) {
      const place = err instanceof ApiError ? placeOf(err) : undefined;
      const message = messageOf(err);
      setFormError(message);
      if (place) {
        setErrors({ [place]: message });
        // Once the error is drawn, take the keyboard to the field it is about.
        requestAnimationFrame(() => {
          const el = place === 'source' ? document.querySelector<HTMLElement>('.create-source input:not([type=radio]), .create-source button')
            : place === 'range' ? document.getElementById('create-start')
            : document.querySelector<HTMLElement>(`[data-field="${place}"] :is(input, select, textarea)`);
          el?.focus();
        });
      }
    } finally {
      setSubmitting(false);
    }
  }

  if (created?.timeAdjustment) {
    const { original, adjusted } = created.timeAdjustment;
    return (
      <section class="page create">
        <h1>Request created</h1>
        <p role="status">
          The range ran past the end of the video, so the server adjusted it: {formatTime(original.start)}–{formatTime(original.end)} became{' '}
          <strong>{formatTime(adjusted.start)}–{formatTime(adjusted.end)}</strong>.
        </p>
        <p><a ref={doneRef} class="create-button" href={`/requests/${created.requestId}`}>Follow the request</a></p>
      </section>
    );
  }

  const setValue = (field: string, v: OptionValue) => {
    setValues((prev) => ({ ...prev, [field]: v }));
    clearError(field);
  };

  return (
    <section class="page create">
      <h1>New request</h1>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <CreateSource
          mode={mode} onMode={(m) => { setMode(m); clearError('source'); setDuration(undefined); }}
          file={file} onFile={pickFile}
          link={link} onLink={(l) => { setLink(l); clearError('source'); }}
          linkKind={linkKind} linkKindChosen={linkKindChosen}
          onLinkKind={(k, chosen) => { setLinkKind(k); if (chosen) setLinkKindChosen(true); clearError('source'); }}
          upload={upload} error={errors.source}
        />
        <CreateRange
          src={src} srcOnRequest={mode === 'link'} local={local}
          startText={startText} endText={endText}
          onStart={(t) => { setStartText(t); clearError('range'); }} onEnd={(t) => { setEndText(t); clearError('range'); }}
          duration={duration} onDuration={setDuration} error={errors.range}
        />
        <h2 class="create-h2">3. Options</h2>
        <CreateFields values={values} onChange={setValue} errors={errors} moreOpen={moreOpen} onMoreOpen={setMoreOpen} />

        <div class="create-box create-submit">
          <p id="create-cost">
            {credits === null ? 'Not metered: this studio runs on your own machine.'
              : `This uses 1 credit — you have ${credits}.`}
          </p>
          <button type="submit" class="primary" disabled={!!blocked || submitting} aria-describedby="create-cost create-blocked create-form-error">
            {submitting ? 'Creating…' : 'Create clips'}
          </button>
          <p id="create-blocked" class="muted create-small">{blocked ?? ''}</p>
          <p id="create-form-error" class="error" role="alert">{formError ? `Not created: ${formError}` : ''}</p>
        </div>
      </form>
    </section>
  );
}
