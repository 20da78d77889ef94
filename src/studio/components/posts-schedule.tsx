// Scheduling a clip on a connected account (POST /posts): which clip (from ?short= or picked from a
// finished request), which account, when (the browser's local time, sent as ISO 8601 with its zone), and
// the title/description, prefilled from the clip and measured against the platform's limits as you type.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { PostObject, RequestDetail, SchedulePostBody, ShortObject } from '../../api/types';
import { api, messageOf, v1 } from '../api';
import { PLATFORM_NAMES, TEXT_LIMITS, textSize, type ConnectedAccount } from './posts-common';
import { formatDateTime, type StudioListItem } from './list-status';

const pad = (n: number) => String(n).padStart(2, '0');
/** A Date as a datetime-local input's value (local time, no zone). */
function localInputValue(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
/** The next whole hour at least 30 minutes away: a sensible default slot. */
function defaultSlot(): string {
  const d = new Date(Date.now() + 30 * 60_000);
  d.setMinutes(0, 0, 0);
  d.setHours(d.getHours() + 1);
  return localInputValue(d);
}
const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The clip's request when only its id is known: its posts say, else the latest finished requests are searched. */
async function findRequestOf(shortId: string): Promise<string | null> {
  const posted = await api.get<{ posts: PostObject[] }>(v1('/posts'), { shortId, limit: 1 }).catch(() => null);
  if (posted?.posts[0]) return posted.posts[0].requestId;
  const list = await api.get<{ requests: StudioListItem[] }>(v1('/shorts'), { status: 'completed', limit: 30, sortBy: 'updatedAt', sortOrder: 'desc' });
  for (const r of list.requests) {
    const d = await api.get<RequestDetail>(v1(`/shorts/${encodeURIComponent(r.requestId)}`));
    if (d.shorts.some((s) => s.id === shortId)) return r.requestId;
  }
  return null;
}

export function PostsSchedule({ accounts, initialShort, initialRequest, onScheduled }: {
  accounts: ConnectedAccount[] | null; initialShort?: string; initialRequest?: string; onScheduled: (p: PostObject) => void;
}) {
  const [requests, setRequests] = useState<StudioListItem[] | null>(null);
  const [requestId, setRequestId] = useState(initialRequest ?? '');
  const [clips, setClips] = useState<ShortObject[] | null>(null);
  const [shortId, setShortId] = useState(initialShort ?? '');
  const [accountId, setAccountId] = useState('');
  const [now, setNow] = useState(false);
  const [when, setWhen] = useState(defaultSlot);
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  const titleTouched = useRef(false);
  const form = useRef<HTMLFormElement>(null);

  const usable = (accounts ?? []).filter((a) => a.status === 'active');
  const account = usable.find((a) => a.id === accountId) ?? usable[0];
  const platform = account?.platform;
  const limits = platform ? TEXT_LIMITS[platform] : undefined;
  const clip = clips?.find((c) => c.id === shortId);

  useEffect(() => {
    api.get<{ requests: StudioListItem[] }>(v1('/shorts'), { status: 'completed', limit: 100, sortBy: 'updatedAt', sortOrder: 'desc' })
      .then((r) => setRequests(r.requests), (e) => setError(messageOf(e)));
    if (initialShort && !initialRequest) {
      findRequestOf(initialShort).then(
        (id) => (id ? setRequestId(id) : setError('That clip was not found among your requests: pick one below.')),
        (e) => setError(messageOf(e)),
      );
    }
  }, []);

  useEffect(() => {
    setClips(null);
    if (!requestId) return;
    let live = true;
    api.get<RequestDetail>(v1(`/shorts/${encodeURIComponent(requestId)}`)).then((d) => {
      if (!live) return;
      const ready = d.shorts.filter((s) => !s.error && s.video_url);
      setClips(ready);
      setShortId((id) => (ready.some((s) => s.id === id) ? id : ready[0]?.id ?? ''));
    }, (e) => live && setError(messageOf(e)));
    return () => { live = false; };
  }, [requestId]);

  // The clip's own words, until the person edits them.
  useEffect(() => {
    if (!clip || titleTouched.current) return;
    setTitle(clip.title);
    setDescription(clip.description);
  }, [clip?.id]);

  const titleSize = textSize(title, false);
  const descSize = limits ? textSize(description, limits.descriptionBytes) : description.length;
  const problems: string[] = [];
  if (limits && platform) {
    if (title.trim() === '') problems.push(`${limits.titleName} must not be empty.`);
    if (titleSize > limits.title) problems.push(`${limits.titleName} is ${titleSize} characters; ${PLATFORM_NAMES[platform]} takes at most ${limits.title}.`);
    if (descSize > limits.description) problems.push(`Description is ${descSize} ${limits.descriptionBytes ? 'bytes' : 'characters'}; at most ${limits.description}.`);
    if (!limits.angleBrackets && /[<>]/.test(title + description)) problems.push(`${PLATFORM_NAMES[platform]} refuses < and > in the title and description.`);
  }
  const whenDate = useMemo(() => new Date(when), [when]);
  if (!now && (Number.isNaN(whenDate.getTime()) || whenDate.getTime() < Date.now() - 60_000)) problems.push('Pick a time in the future (or "Post now").');

  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    setDone('');
    if (!account || !platform) return setError('Connect an account first.');
    if (!shortId) return setError('Pick a clip.');
    if (problems.length) {
      setError(problems.join(' '));
      return;
    }
    const body: SchedulePostBody = { shortId, platform, accountId: account.id, title: title.trim(), description };
    if (!now) body.scheduledAt = whenDate.toISOString();
    setBusy(true);
    try {
      const post = await api.post<PostObject>(v1('/posts'), body);
      setDone(post.status === 'scheduled' && !now
        ? `Scheduled on @${account.handle} for ${formatDateTime(post.scheduledAt)}.`
        : `Sent to @${account.handle}: it goes out in a moment.`);
      onScheduled(post);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const noAccount = accounts !== null && usable.length === 0;
  return (
    <section class="panel" aria-labelledby="schedule-h">
      <h2 id="schedule-h">Schedule a clip</h2>
      {noAccount && <p class="muted">Connect an account above to schedule clips.</p>}
      <form ref={form} class="schedule" onSubmit={(e) => void submit(e)} noValidate>
        <label>
          <span id="sched-request-l">Request</span>
          <select aria-labelledby="sched-request-l" value={requestId} onChange={(e) => setRequestId(e.currentTarget.value)} disabled={requests === null}>
            <option value="">{requests === null ? 'Loading…' : requests.length ? 'Pick a finished request' : 'No finished request yet'}</option>
            {requestId && requests && !requests.some((r) => r.requestId === requestId) && <option value={requestId}>{requestId}</option>}
            {requests?.map((r) => <option key={r.requestId} value={r.requestId}>{r.title || r.url}</option>)}
          </select>
        </label>
        <label>
          <span id="sched-clip-l">Clip</span>
          <select aria-labelledby="sched-clip-l" value={shortId} onChange={(e) => { titleTouched.current = false; setShortId(e.currentTarget.value); }} disabled={!clips?.length}>
            {!clips?.length && <option value="">{requestId ? (clips === null ? 'Loading…' : 'No finished clip') : 'Pick a request first'}</option>}
            {clips?.map((c) => <option key={c.id} value={c.id}>{c.title} ({Math.round(c.duration)} s, score {c.viral_score})</option>)}
          </select>
        </label>
        <label>
          <span id="sched-account-l">Account</span>
          <select aria-labelledby="sched-account-l" value={account?.id ?? ''} onChange={(e) => setAccountId(e.currentTarget.value)} disabled={!usable.length}>
            {!usable.length && <option value="">No connected account</option>}
            {usable.map((a) => <option key={a.id} value={a.id}>@{a.handle} on {PLATFORM_NAMES[a.platform]}</option>)}
          </select>
        </label>
        <fieldset class="when">
          <legend>When</legend>
          <label class="inline"><input type="radio" name="when" checked={now} onChange={() => setNow(true)} /> Post now</label>
          <label class="inline"><input type="radio" name="when" checked={!now} onChange={() => setNow(false)} /> At a time</label>
          {!now && (
            <label>
              Date and time <span class="muted">({ZONE})</span>
              <input type="datetime-local" value={when} min={localInputValue(new Date())} onInput={(e) => setWhen(e.currentTarget.value)} />
            </label>
          )}
        </fieldset>
        <div class="field">
          <label for="sched-title">{limits?.titleName ?? 'Title'}</label>
          <input id="sched-title" type="text" value={title} aria-describedby="title-count" onInput={(e) => { titleTouched.current = true; setTitle(e.currentTarget.value); }} />
          <span id="title-count" class={limits && titleSize > limits.title ? 'count error' : 'count muted'}>
            {titleSize}{limits ? ` / ${limits.title}` : ''} characters
          </span>
        </div>
        <div class="field">
          <label for="sched-desc">Description</label>
          <textarea id="sched-desc" rows={4} value={description} aria-describedby="desc-count" onInput={(e) => { titleTouched.current = true; setDescription(e.currentTarget.value); }} />
          <span id="desc-count" class={limits && descSize > limits.description ? 'count error' : 'count muted'}>
            {descSize}{limits ? ` / ${limits.description}` : ''} {limits?.descriptionBytes ? 'bytes' : 'characters'}
            {limits && !limits.angleBrackets ? '; no < or >' : ''}
          </span>
        </div>
        <p class="error" role="alert">{error}</p>
        <p class="ok" role="status">{done}</p>
        <button type="submit" class="primary" disabled={busy || noAccount}>{busy ? 'Scheduling…' : now ? 'Post now' : 'Schedule'}</button>
      </form>
    </section>
  );
}
