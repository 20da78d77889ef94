// photo_site: Instagram Graph API Reels with Facebook Login (platforms.md 2.2): a REELS container with
// upload_type=resumable, the bytes posted to its rupload address, the container polled until FINISHED,
// then media_publish and the permalink. Progress saved: the container (and its upload address) before
// the bytes go, `uploaded` after, the ids of the account's latest posts and `publishing` before
// media_publish (the one step that must never run twice), the media id after. A restarted attempt that
// finds `publishing` without a media id asks the container: PUBLISHED means the earlier call went through.
// The platform links a container to no media id, so the post is looked for only among the posts the
// platform lists that were not there before the call (an older post with the same caption is never it);
// when that does not single it out, the post is published with its URL unknown, never a container id.
import { Readable } from 'node:stream';
import { createReadStream } from 'node:fs';
import { field, num, sleep, str, TransportError, httpCall, type HttpAnswer } from './http.js';
import { Attempt, cut, openClip, type ConnectorOptions } from './attempt.js';
import { checkClipMedia } from './media-check.js';
import { photoSiteContainerError, photoSiteError } from './platform-errors.js';
import { GRAPH_VERSION, platformUrls, type PlatformUrls } from './platform-urls.js';
import { PublishError, type ClipMedia, type Connector, type PublishJob, type PublishResult } from './types.js';

export class PhotoSiteConnector implements Connector {
  readonly platform = 'photo_site' as const;

  constructor(private readonly opts: ConnectorOptions = {}) {}

  checkMedia(media: ClipMedia, text: { title: string; description: string }): PublishError | null {
    return checkClipMedia('photo_site', media, text);
  }

  async publish(job: PublishJob): Promise<PublishResult> {
    const urls = platformUrls('photo_site', this.opts);
    const at = new Attempt(job, this.opts, this.opts.pollIntervalMs ?? 30_000, photoSiteError);
    const user = job.account.platformUserId;
    if (!user) throw new PublishError('account_not_eligible', 'the connected photo_site account has no professional account id; connect it again');
    const caption = captionOf(job);
    const graph = (path: string, params: Record<string, string> = {}): string => urls.at('api', `/${GRAPH_VERSION}/${path}?${new URLSearchParams(params)}`);
    const get = (path: string, params: Record<string, string>): Promise<HttpAnswer> =>
      at.send(graph(path, params), (t) => ({ headers: { authorization: `Bearer ${t}` } }), { retry: true });

    let mediaId: string | null = str(at.state.mediaId) ?? null;
    if (!mediaId) {
      let container = str(at.state.containerId);
      let done = false;
      if (container) {
        const status = await this.containerStatus(get, container);
        if (status.code === 'PUBLISHED') {
          mediaId = await this.recoverMedia(at, get, user, caption);
          done = true;
        } else if (status.code === 'ERROR' && !photoSiteContainerError(status.status).retryable) throw photoSiteContainerError(status.status);
        else if (status.code === 'EXPIRED' || status.code === 'ERROR') container = undefined; // start over with a new container
      }
      if (!done) {
        if (!container) {
          await this.checkQuota(get, user);
          container = await this.createContainer(at, urls, graph, user, caption);
        }
        if (!at.state.uploaded) await this.uploadBytes(at, urls);
        mediaId = await this.finishAndPublish(at, graph, get, user, caption, container);
      }
    }
    // Live, but which post it became is not known: no URL rather than a guess.
    if (!mediaId) return { platformPostId: null, url: null };
    // The post is live once media_publish answered; a permalink that cannot be read leaves the URL unknown.
    let url: string | null = null;
    try {
      url = str(field((await get(mediaId, { fields: 'permalink' })).json, 'permalink')) ?? null;
    } catch (e) {
      if (!(e instanceof PublishError)) throw e;
    }
    return { platformPostId: mediaId, url };
  }

  private async checkQuota(get: (p: string, q: Record<string, string>) => Promise<HttpAnswer>, user: string): Promise<void> {
    // The cap differs between accounts and over time (25/50/100): read it rather than assume one.
    const since = String(Math.floor(Date.now() / 1000) - 24 * 3600 + 60);
    const a = await get(`${user}/content_publishing_limit`, { fields: 'quota_usage,config', since });
    const data = field(a.json, 'data');
    const row = Array.isArray(data) ? data[0] : undefined;
    const usage = num(field(row, 'quota_usage'));
    const total = num(field(field(row, 'config'), 'quota_total'));
    if (usage !== undefined && total !== undefined && usage >= total) {
      throw new PublishError('daily_cap', `the account used all ${total} photo_site API posts of the last 24 hours`, 24 * 3600);
    }
  }

  private async createContainer(at: Attempt, urls: PlatformUrls, graph: (p: string) => string, user: string, caption: string): Promise<string> {
    // An unused container expires by itself in 24 h, so retrying this call can do no harm.
    const a = await at.send(graph(`${user}/media`), (t) => ({
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ media_type: 'REELS', upload_type: 'resumable', caption, share_to_feed: 'true', access_token: t }).toString(),
    }), { retry: true });
    const id = str(field(a.json, 'id'));
    const uri = str(field(a.json, 'uri'));
    if (!id || !uri) throw new PublishError('unknown', 'photo_site created the container without its id or upload address');
    await at.save({ containerId: id, uploadUri: urls.rebase(uri), uploaded: false, publishing: false, mediaId: null, mediaBefore: null });
    return id;
  }

  /**
   * The whole file to the rupload address. After a dropped connection it is sent again from offset 0
   * into the same container: the protocol documents no progress query for containers, and nothing is
   * public until media_publish, so a repeat costs bytes, never a second post.
   */
  private async uploadBytes(at: Attempt, urls: PlatformUrls): Promise<void> {
    const uri = urls.rebase(str(at.state.uploadUri) ?? '');
    if (!uri) throw new PublishError('unknown', 'the saved photo_site upload address is missing');
    const { fh, size } = await openClip(at.job.media.file);
    await fh.close();
    for (let failures = 0; ;) {
      let a: HttpAnswer | null = null;
      try {
        const body = Readable.toWeb(createReadStream(at.job.media.file)) as ReadableStream<Uint8Array>;
        a = await httpCall(uri, {
          method: 'POST', signal: at.signal, timeoutMs: this.opts.requestTimeoutMs ?? 600_000, body,
          headers: { authorization: `OAuth ${at.token}`, offset: '0', file_size: String(size), 'content-type': 'application/octet-stream', 'content-length': String(size) },
        });
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
      }
      if (a && a.status >= 200 && a.status < 300 && field(a.json, 'success') !== false) {
        await at.save({ uploaded: true });
        return;
      }
      if (a && a.status < 500) {
        const m = photoSiteError(a);
        if (m === 'auth') {
          await at.authRefused(`HTTP ${a.status}`);
          continue;
        }
        // rupload answers its own envelope ({debug_info}): anything not understood is the platform's words.
        if (m.errorCode === 'unknown' && !field(a.json, 'error')) {
          const info = field(a.json, 'debug_info');
          throw new PublishError('unknown', `photo_site refused the upload (HTTP ${a.status}: ${str(field(info, 'message')) ?? a.text.slice(0, 200)})`);
        }
        throw m;
      }
      if (!(await at.backoff(failures++))) {
        throw new PublishError('unknown', `the upload to photo_site kept failing (${a ? `HTTP ${a.status}` : 'connection lost'}); it resumes on the next attempt`);
      }
    }
  }

  private async containerStatus(get: (p: string, q: Record<string, string>) => Promise<HttpAnswer>, container: string): Promise<{ code: string; status: string | undefined }> {
    const a = await get(container, { fields: 'status_code,status' });
    return { code: str(field(a.json, 'status_code')) ?? '', status: str(field(a.json, 'status')) };
  }

  private async finishAndPublish(
    at: Attempt, graph: (p: string) => string, get: (p: string, q: Record<string, string>) => Promise<HttpAnswer>,
    user: string, caption: string, container: string,
  ): Promise<string | null> {
    for (let unanswered = 0, notReady = 0; ;) {
      const recovered = await at.poll('photo_site\'s processing of the video', async () => {
        const s = await this.containerStatus(get, container);
        if (s.code === 'FINISHED') return 'ready';
        if (s.code === 'PUBLISHED') return 'published';
        if (s.code === 'ERROR') throw photoSiteContainerError(s.status);
        if (s.code === 'EXPIRED') {
          await at.save({ containerId: null, uploaded: false, publishing: false });
          throw new PublishError('unknown', 'the photo_site container expired before it was published; a new one is made on the next attempt');
        }
        return null; // IN_PROGRESS
      });
      if (recovered === 'published') return this.recoverMedia(at, get, user, caption);
      // Once per container, before its first media_publish: what the account had, so a lost answer is
      // looked for only among what came after (a retried call must not count its own post as "before").
      if (typeof at.state.mediaBefore !== 'string') await at.save({ mediaBefore: (await this.latestMedia(get, user)).map((m) => m.id).join(',') });
      await at.save({ publishing: true });
      let a: HttpAnswer | null = null;
      try {
        a = await httpCall(graph(`${user}/media_publish`), {
          method: 'POST', signal: at.signal, timeoutMs: this.opts.requestTimeoutMs ?? 600_000, headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ creation_id: container, access_token: at.token }).toString(),
        });
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
      }
      // No answer, or a 5xx: it may have gone through. The container says; never publish blindly again.
      if (!a || a.status >= 500) {
        if (!(await at.backoff(unanswered++))) throw new PublishError('unknown', 'photo_site did not answer the publish call; it is checked on the next attempt');
        continue;
      }
      if (a.status >= 200 && a.status < 300) {
        const id = str(field(a.json, 'id'));
        if (!id) throw new PublishError('unknown', 'photo_site published the post without returning its id');
        await at.save({ mediaId: id, publishing: false });
        return id;
      }
      const { code, subcode } = { code: num(field(field(a.json, 'error'), 'code')), subcode: num(field(field(a.json, 'error'), 'error_subcode')) };
      if (code === 9007 && subcode === 2207027 && notReady++ < 3) {
        await at.save({ publishing: false });
        await sleep(at.pollIntervalMs, at.signal);
        continue; // not ready after all, whatever the status said: keep polling
      }
      await at.save({ publishing: false });
      const m = photoSiteError(a);
      if (m === 'auth') {
        await at.authRefused(`HTTP ${a.status}`);
        continue;
      }
      throw m;
    }
  }

  /** The account's latest posts as the platform lists them, newest first. */
  private async latestMedia(get: (p: string, q: Record<string, string>) => Promise<HttpAnswer>, user: string): Promise<{ id: string; caption: string | undefined }[]> {
    const data = field((await get(`${user}/media`, { fields: 'id,caption', limit: String(LISTED) })).json, 'data');
    return (Array.isArray(data) ? data : []).flatMap((m) => {
      const id = str(field(m, 'id'));
      return id ? [{ id, caption: str(field(m, 'caption')) }] : [];
    });
  }

  /**
   * The media a published container became, when its publish answer was lost: the one post with this
   * caption among those listed above the newest post the account had before the call. The listing may lag
   * behind the publish, so it is read a few times. Null when that is not exactly one post (not listed yet,
   * the earlier posts out of the list, or two new posts with the same caption).
   */
  private async recoverMedia(at: Attempt, get: (p: string, q: Record<string, string>) => Promise<HttpAnswer>, user: string, caption: string): Promise<string | null> {
    const before = at.state.mediaBefore;
    let id: string | null = null;
    for (let read = 1; typeof before === 'string' && id === null && read <= LIST_READS; read++) {
      if (read > 1) await sleep(at.pollIntervalMs, at.signal);
      const known = new Set(before.split(',').filter(Boolean));
      const latest = await this.latestMedia(get, user);
      const cut = latest.findIndex((m) => known.has(m.id));
      if (known.size > 0 && cut < 0) continue;
      const mine = latest.slice(0, cut >= 0 ? cut : latest.length).filter((m) => m.caption === caption);
      if (mine.length > 1) break;
      if (mine.length === 1) id = mine[0]!.id;
    }
    await at.save({ mediaId: id, publishing: false });
    return id;
  }
}

/** Posts listed to bound a lost publish answer (the platform's default page). */
const LISTED = 25;
/** Reads of the listing before a lost answer's post counts as not found. */
const LIST_READS = 3;

/** Title and description as one caption: at most 2200 characters (platforms.md 2.2). */
function captionOf(job: PublishJob): string {
  const text = [job.title.trim(), job.description.trim()].filter(Boolean).join('\n\n');
  return cut(text, 2200);
}
