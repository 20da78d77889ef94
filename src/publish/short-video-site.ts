// short_video_site: TikTok Content Posting API v2, Direct Post with FILE_UPLOAD (platforms.md 3.3-3.6):
// creator_info (the creator's privacy options and longest allowed video), video/init, the chunks PUT in
// order, then status/fetch until PUBLISH_COMPLETE with the public post id. Progress saved: the
// publish_id and upload_url right after init; `uploaded` once the last chunk was accepted (TikTok posts
// what is fully uploaded, so from then on an attempt only polls). A resumed upload learns how far the
// platform got from the Content-Range every chunk answer carries (a 416 tells it on a mismatch).
import { field, str, TransportError, httpCall, type HttpAnswer } from './http.js';
import { Attempt, cut, mimeOf, openClip, readChunk, type ConnectorOptions } from './attempt.js';
import { checkClipMedia } from './media-check.js';
import { shortVideoSiteError, shortVideoSiteFailReason, tiktokCode } from './platform-errors.js';
import { platformUrls, type PlatformUrls } from './platform-urls.js';
import { PublishError, type ClipMedia, type Connector, type PublishJob, type PublishResult } from './types.js';

const MB = 1024 * 1024;
/** Whole files up to 64 MB go as one chunk; larger ones in 10 MB chunks (the last absorbs the rest). */
const SINGLE_CHUNK_MAX = 64 * MB;
const DEFAULT_CHUNK = 10 * MB;
/** The most public visibility the creator offers, in this order. */
const PRIVACY_PREFERENCE = ['PUBLIC_TO_EVERYONE', 'FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'];

function failed(a: HttpAnswer): boolean {
  const code = tiktokCode(a);
  return a.status < 200 || a.status >= 300 || (code !== undefined && code !== 'ok');
}

export class ShortVideoSiteConnector implements Connector {
  readonly platform = 'short_video_site' as const;

  constructor(private readonly opts: ConnectorOptions = {}) {}

  checkMedia(media: ClipMedia, text: { title: string; description: string }): PublishError | null {
    return checkClipMedia('short_video_site', media, text);
  }

  async publish(job: PublishJob): Promise<PublishResult> {
    const urls = platformUrls('short_video_site', this.opts);
    const at = new Attempt(job, this.opts, this.opts.pollIntervalMs ?? 10_000, shortVideoSiteError);
    const api = (path: string, body: unknown): Promise<HttpAnswer> => at.send(urls.at('api', path), (t) => ({
      method: 'POST', headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json; charset=UTF-8' }, body: JSON.stringify(body),
    }), { retry: true, failed });

    if (!str(at.state.publishId)) await this.init(at, urls, api);
    if (!at.state.uploaded) await this.upload(at, urls, api);
    const publishId = str(at.state.publishId)!;
    const postId = await at.poll('short_video_site\'s processing of the post', async () => {
      const a = await api('/v2/post/publish/status/fetch/', { publish_id: publishId });
      const data = field(a.json, 'data');
      const status = str(field(data, 'status'));
      if (status === 'FAILED') throw shortVideoSiteFailReason(str(field(data, 'fail_reason')));
      if (status !== 'PUBLISH_COMPLETE') return null;
      // int64 ids longer than a JS number holds: read from the text, not the parsed JSON.
      const id = /"publicaly_available_post_id"\s*:\s*\[\s*"?(\d+)/.exec(a.text)?.[1];
      if (id) return id;
      // A SELF_ONLY post never gets a public id (platforms.md 3.6): it is out, with no public URL.
      return at.state.privacyLevel === 'SELF_ONLY' ? '' : null;
    });
    if (!postId) return { platformPostId: publishId, url: null };
    const handle = (str(at.state.username) ?? job.account.handle).replace(/^@/, '');
    return { platformPostId: postId, url: `https://www.tiktok.com/@${handle}/video/${postId}` };
  }

  private async init(at: Attempt, urls: PlatformUrls, api: (p: string, b: unknown) => Promise<HttpAnswer>): Promise<void> {
    const info = field((await api('/v2/post/publish/creator_info/query/', {})).json, 'data');
    const maxSec = Number(field(info, 'max_video_post_duration_sec'));
    if (Number.isFinite(maxSec) && maxSec > 0 && at.job.media.durationSec > maxSec + 0.5) {
      throw new PublishError('media_rejected', `the clip is ${Math.round(at.job.media.durationSec)} s long; this short_video_site creator may post at most ${maxSec} s`);
    }
    const optionsRaw = field(info, 'privacy_level_options');
    const options = Array.isArray(optionsRaw) ? optionsRaw.map(String) : [];
    const privacy = PRIVACY_PREFERENCE.find((p) => options.includes(p));
    if (!privacy) throw new PublishError('account_not_eligible', 'short_video_site offers this account no visibility to post with');
    const { fh, size } = await openClip(at.job.media.file);
    await fh.close();
    const chunk = this.chunkSize(size);
    const caption = cut([at.job.title.trim(), at.job.description.trim()].filter(Boolean).join('\n\n'), 2200);
    const a = await api('/v2/post/publish/video/init/', {
      post_info: {
        title: caption, privacy_level: privacy,
        // The creator's own settings stand (the content-sharing guidelines forbid overriding them).
        disable_duet: field(info, 'duet_disabled') === true, disable_comment: field(info, 'comment_disabled') === true,
        disable_stitch: field(info, 'stitch_disabled') === true, brand_content_toggle: false, brand_organic_toggle: false,
      },
      source_info: { source: 'FILE_UPLOAD', video_size: size, chunk_size: chunk, total_chunk_count: Math.max(1, Math.floor(size / chunk)) },
    });
    const data = field(a.json, 'data');
    const publishId = str(field(data, 'publish_id'));
    const uploadUrl = str(field(data, 'upload_url'));
    if (!publishId || !uploadUrl) throw new PublishError('unknown', 'short_video_site accepted the post without a publish_id or upload_url');
    await at.save({
      publishId, uploadUrl: urls.rebase(uploadUrl), uploaded: false, chunkSize: chunk, size, privacyLevel: privacy,
      username: str(field(info, 'creator_username')) ?? null,
    });
  }

  private chunkSize(size: number): number {
    const chosen = this.opts.chunkSizeBytes;
    if (chosen) return size <= chosen ? size : chosen;
    return size <= SINGLE_CHUNK_MAX ? size : DEFAULT_CHUNK;
  }

  private async upload(at: Attempt, urls: PlatformUrls, api: (p: string, b: unknown) => Promise<HttpAnswer>): Promise<void> {
    const { fh, size } = await openClip(at.job.media.file);
    let reinits = 0;
    try {
      let offset = 0;
      let stuck = 0;
      for (let failures = 0; ;) {
        if (offset >= size) {
          // Every byte arrived (the answer to the last chunk was lost): the platform has the whole file.
          await at.save({ uploaded: true });
          return;
        }
        const chunk = Number(at.state.chunkSize);
        const count = Math.max(1, Math.floor(size / chunk));
        if (Number(at.state.size) !== size) throw new PublishError('video_missing', 'the clip file changed since the upload began; create the clip again');
        const index = Math.min(Math.floor(offset / chunk), count - 1);
        const first = index * chunk;
        const last = index === count - 1 ? size - 1 : first + chunk - 1;
        const body = await readChunk(fh, first, last - first + 1);
        let a: HttpAnswer | null = null;
        try {
          a = await httpCall(urls.rebase(str(at.state.uploadUrl)!), {
            method: 'PUT', signal: at.signal, timeoutMs: this.opts.requestTimeoutMs ?? 600_000, body,
            headers: { 'content-type': mimeOf(at.job.media.file), 'content-range': `bytes ${first}-${last}/${size}` },
          });
        } catch (e) {
          if (!(e instanceof TransportError)) throw e;
        }
        if (a?.status === 201) {
          await at.save({ uploaded: true });
          return;
        }
        if (a && (a.status === 206 || a.status === 416)) {
          const got = progressOf(a) ?? (a.status === 206 ? last + 1 : offset);
          // A 416 that does not move us on twice running is not a gap we can close.
          stuck = got === offset && a.status === 416 ? stuck + 1 : 0;
          if (stuck >= 2) throw new PublishError('unknown', 'short_video_site refused the upload\'s byte ranges (416); will try again later');
          offset = got;
          failures = 0;
          continue;
        }
        if (a && (a.status === 403 || a.status === 404)) {
          // The upload URL lived its hour, or the task is gone: a new init (the old task never posts, it is incomplete).
          if (reinits++ >= 1) throw new PublishError('unknown', `short_video_site refused the upload address (HTTP ${a.status}); will try again later`);
          await at.save({ publishId: null, uploadUrl: null });
          await this.init(at, urls, api);
          offset = 0;
          continue;
        }
        if (a && a.status < 500) throw new PublishError('unknown', `short_video_site refused a chunk (HTTP ${a.status}: ${a.text.slice(0, 200)})`);
        if (!(await at.backoff(failures++))) {
          throw new PublishError('unknown', `the upload to short_video_site kept failing (${a ? `HTTP ${a.status}` : 'connection lost'}); it resumes on the next attempt`);
        }
      }
    } finally {
      await fh.close();
    }
  }
}

/** Bytes received, from `Content-Range: bytes 0-N/T` (N the last byte held; -1 when none). */
function progressOf(a: HttpAnswer): number | null {
  const m = /bytes\s+0-(-?\d+)\/\d+/.exec(a.headers.get('content-range') ?? '');
  return m ? Number(m[1]) + 1 : null;
}
