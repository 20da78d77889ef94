// One request (/requests/:id): watch it run (steps, progress, queue, ETA, Cancel), then review its clips in
// rank order as they finish: play, copy, download, and go on to edit or post each one.
import { useEffect, useRef, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import type { RequestDetail, ShortObject } from '../../api/types';
import { api, ApiError, messageOf, v1 } from '../api';
import { isTerminal, watchRequest, type LiveStatus } from '../live';
import { ReviewProgress, type Step } from '../components/review-progress';
import { ClipCard } from '../components/review-clip-card';
import { RequestDownloads } from '../components/review-downloads';
import { createdEstimate } from '../components/review-handoff';
import { clock, createdWords, languageWords, preferredLengthWords } from '../components/review-format';
import '../components/review.css';

const TICK_MS = 30_000;
/** A video link that fails while no fresher one is at hand: read the detail again, at most this often (a missing file fails every time). */
const RELINK_MS = 60_000;

function SourceLine({ url }: { url: string }) {
  // Only web links are links: an upload or a local file has nothing to open.
  return /^https?:\/\//i.test(url)
    ? <a href={url} target="_blank" rel="noopener noreferrer" class="review-source">{url}</a>
    : <span class="review-source">{url}</span>;
}

export function RequestView() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const [detail, setDetail] = useState<RequestDetail | null>(null);
  const [status, setStatus] = useState<LiveStatus | null>(null);
  const [shorts, setShorts] = useState<ShortObject[]>([]);
  const [lastStep, setLastStep] = useState<Step | null>(null);
  const [loadError, setLoadError] = useState<{ notFound: boolean; message: string } | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const [cancelError, setCancelError] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const relinked = useRef(0);

  const loadDetail = async () => {
    const d = await api.get<RequestDetail>(v1(`/shorts/${encodeURIComponent(id)}`));
    setDetail(d);
    // A running request's stored clips may still be empty while the live stream already shows finished ones.
    if (d.shorts.length > 0 || isTerminal(d.status)) setShorts(d.shorts);
    return d;
  };

  useEffect(() => {
    let stop: (() => void) | undefined;
    let gone = false;
    setDetail(null);
    setStatus(null);
    setShorts([]);
    setLoadError(null);
    Promise.all([loadDetail(), api.get<LiveStatus>(v1(`/shorts/${encodeURIComponent(id)}/status`))])
      .then(([d, first]) => {
        if (gone) return;
        let titled = d.title !== '';
        setStatus({ ...createdEstimate(id), ...first });
        if (!isTerminal(first.step)) setLastStep(first.step);
        let step: Step = first.step;
        stop = watchRequest(id, {
          onStatus(s) {
            // The polling fallback's status has no queue position or ETA (the stream's has): keep the last known.
            setStatus((prev) => ({
              ...s,
              queuePosition: 'queuePosition' in s ? s.queuePosition : prev?.queuePosition,
              estimatedCompletionTime: s.estimatedCompletionTime ?? prev?.estimatedCompletionTime,
            }));
            if (!isTerminal(s.step)) setLastStep(s.step);
            // The source's title is known once it is fetched: read the detail again at each step until it is
            // (every call counts against the account's hourly limit, so not on every status).
            if (s.step !== step && !titled) void loadDetail().then((n) => { titled = n.title !== ''; }, () => {});
            step = s.step;
          },
          onShorts: setShorts,
          onEnd() {
            void loadDetail().catch(() => {});
          },
        });
      })
      .catch((e: unknown) => {
        if (gone) return;
        const notFound = e instanceof ApiError && (e.status === 404 || e.status === 400);
        setLoadError({ notFound, message: messageOf(e) });
      });
    return () => {
      gone = true;
      stop?.();
    };
  }, [id]);

  // The ETA and "created … ago" are relative: keep them true while the page stays open.
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(t);
  }, []);

  const title = detail?.title || '';
  useEffect(() => {
    document.title = `${title || 'Request'} · shortwright studio`;
  }, [title]);

  const relink = () => {
    if (Date.now() - relinked.current < RELINK_MS) return;
    relinked.current = Date.now();
    void loadDetail().catch(() => {});
  };

  const cancel = async () => {
    if (!window.confirm('Cancel this request? The work stops at once; the credit comes back only if it had not started yet.')) return;
    setCancelling(true);
    setCancelError(null);
    try {
      await api.del(v1(`/shorts/${encodeURIComponent(id)}`));
      setStatus((s) => (s ? { ...s, status: 'cancelled', step: 'cancelled', stepMessage: 'Cancelled' } : s));
    } catch (e) {
      setCancelError(`Could not cancel: ${messageOf(e)}`);
    } finally {
      setCancelling(false);
    }
  };

  if (loadError) {
    return (
      <section class="page">
        <h1>{loadError.notFound ? 'Request not found' : 'Could not load this request'}</h1>
        <p class="error" role="alert">{loadError.message}</p>
        <p><a href="/">Back to your requests</a></p>
      </section>
    );
  }
  if (!detail || !status) return <p class="loading" role="status">Loading the request…</p>;

  const completed = status.status === 'completed';
  const rendered = shorts.filter((s) => !s.error).length;
  const created = createdWords(detail.createdAt, now);

  return (
    <section class="page review-page">
      <p class="review-back"><a href="/">← All requests</a></p>
      <header class="review-head">
        <h1>{title || <span class="muted">Untitled video</span>}</h1>
        <p class="review-source-line"><span class="review-label">Source: </span><SourceLine url={detail.url} /></p>
        <dl class="review-options">
          {created && <div><dt>Created</dt><dd>{created}</dd></div>}
          <div><dt>Range</dt><dd>{clock(detail.start)} – {clock(detail.end)}</dd></div>
          <div><dt>Template</dt><dd>{detail.template}</dd></div>
          <div><dt>Language</dt><dd>{languageWords(detail.language)}</dd></div>
          {detail.captionLanguage && detail.captionLanguage !== detail.language && (
            <div><dt>Captions in</dt><dd>{languageWords(detail.captionLanguage)}</dd></div>
          )}
          <div><dt>Clip length</dt><dd>{preferredLengthWords(detail.preferredLength)}</dd></div>
        </dl>
      </header>

      <ReviewProgress
        status={{ ...status, warnings: status.warnings ?? detail.warnings }}
        lastStep={lastStep}
        now={now}
        cancelling={cancelling}
        cancelError={cancelError}
        onCancel={() => void cancel()}
      />

      <section class="review-clips" aria-labelledby="review-clips-h">
        <div class="review-clips-head">
          <h2 id="review-clips-h">Clips{shorts.length > 0 && <span class="muted"> ({shorts.length})</span>}</h2>
          {completed && rendered > 0 && <RequestDownloads requestId={id} />}
        </div>
        {shorts.length === 0 ? (
          <p class="muted review-empty">
            {completed ? 'No clips came out of this video.'
              : isTerminal(status.status) ? 'No clips: the request ended before any was made.'
              : 'Clips appear here as they finish.'}
          </p>
        ) : (
          <ol class="review-grid">
            {shorts.map((clip, i) => (
              <li key={clip.id}>
                <ClipCard requestId={id} clip={clip} rank={i + 1} exportable={completed} headingLevel={3} onStaleLink={relink} />
              </li>
            ))}
          </ol>
        )}
      </section>
    </section>
  );
}
