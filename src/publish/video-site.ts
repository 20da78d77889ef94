// video_site: YouTube Data API v3 videos.insert with the resumable upload protocol (platforms.md 1.2),
// then videos.list until processing is done (1.3). Progress saved: the session URI before any byte is
// sent (a restarted attempt asks the session what it holds, `bytes */T`, and goes on from there; a
// finished session answers with the video again, so a crash after the last chunk never uploads twice),
// then the video id and the upload's time once the final PUT returned it. From then on the video is on
// the channel: every later attempt only asks videos.list about that id, never uploads again, until the
// platform says processed, failed or rejected, or PROCESSING_LIMIT_MS after the upload has passed.
import { field, num, str, TransportError, httpCall, type HttpAnswer } from './http.js';
import { Attempt, cut, mimeOf, openClip, readChunk, type ConnectorOptions } from './attempt.js';
import { checkClipMedia } from './media-check.js';
import { videoSiteError, videoSiteProcessingError } from './platform-errors.js';
import { platformUrls, type PlatformUrls } from './platform-urls.js';
import { PublishError, UPLOADED_MARK, type ClipMedia, type Connector, type PublishJob, type PublishResult } from './types.js';

const UNIT = 262_144;
/** 32 units (8 MiB): few round trips, and a dropped chunk costs little to send again. */
const DEFAULT_CHUNK = 32 * UNIT;
/**
 * How long after the upload its processing is followed. video_site documents no processing limit
 * (platforms.md 1.3); 24 hours is the window of its other per-video limits (daily upload caps, 1.4) and of
 * the other platforms' (photo_site's container lifetime, 2.3). Polls start every 15 s and stretch to 5
 * minutes, so a day of following costs about 300 quota units of videos.list.
 */
export const PROCESSING_LIMIT_MS = 24 * 3600_000;
/** The visibility every upload asks for; an answer with another one is not the post that was scheduled. */
const ASKED_PRIVACY = 'public';

type SessionState = { kind: 'done'; videoId: string } | { kind: 'partial'; received: number } | { kind: 'gone' };

export class VideoSiteConnector implements Connector {
  readonly platform = 'video_site' as const;

  constructor(private readonly opts: ConnectorOptions = {}) {}

  checkMedia(media: ClipMedia, text: { title: string; description: string }): PublishError | null {
    return checkClipMedia('video_site', media, text);
  }

  async publish(job: PublishJob): Promise<PublishResult> {
    const urls = platformUrls('video_site', this.opts);
    const pollMs = this.opts.pollIntervalMs ?? 15_000;
    // No per-attempt cap by default: the platform's limit, counted from the upload, bounds the following.
    const at = new Attempt(job, this.opts, pollMs, videoSiteError, Infinity);
    const videoId = str(at.state.videoId) ?? (await this.upload(at, urls));
    const url = `https://www.youtube.com/shorts/${videoId}`;
    const uploadedAt = num(at.state[UPLOADED_MARK]) ?? at.now();
    await at.poll('video_site\'s processing of the upload', async () => {
      const a = await at.send(urls.at('api', `/youtube/v3/videos?part=status,processingDetails&id=${encodeURIComponent(videoId)}`),
        (t) => ({ headers: { authorization: `Bearer ${t}` } }), { retry: true });
      const items = field(a.json, 'items');
      const item = Array.isArray(items) ? items[0] : undefined;
      if (!item) return null; // not listed yet right after the upload
      const failed = videoSiteProcessingError(item) ?? privacyRefused(item, url);
      if (failed) throw failed;
      return str(field(field(item, 'status'), 'uploadStatus')) === 'processed' ? item : null;
    }, {
      until: uploadedAt + PROCESSING_LIMIT_MS,
      maxIntervalMs: pollMs * 20,
      timedOut: () => new PublishError('processing_timeout', `video_site was still processing the video ${PROCESSING_LIMIT_MS / 3600_000} hours after its upload; it is on the channel (${url}) and is only checked again, never uploaded again`),
    });
    return { platformPostId: videoId, url };
  }

  private metadata(job: PublishJob): string {
    // Titles: at most 100 characters and no angle brackets; descriptions 5000 bytes (platforms.md 1.3).
    const clean = (s: string): string => s.replace(/[<>]/g, '').trim();
    const title = cut(clean(job.title), 100) || 'Short';
    let description = clean(job.description);
    while (Buffer.byteLength(description) > 5000) description = cut(description, Math.floor(description.length * 0.9));
    return JSON.stringify({
      snippet: { title, description, categoryId: '22' },
      status: { privacyStatus: ASKED_PRIVACY, selfDeclaredMadeForKids: false },
    });
  }

  private async startSession(at: Attempt, urls: PlatformUrls, total: number): Promise<string> {
    const body = this.metadata(at.job);
    const a = await at.send(urls.at('upload', '/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status'), (t) => ({
      method: 'POST',
      headers: {
        authorization: `Bearer ${t}`, 'content-type': 'application/json; charset=UTF-8',
        'x-upload-content-length': String(total), 'x-upload-content-type': mimeOf(at.job.media.file),
      },
      body,
    }), { retry: true });
    const location = a.headers.get('location');
    if (!location) throw new PublishError('unknown', 'video_site started an upload session without giving its address (no Location header)');
    const session = urls.rebase(location);
    await at.save({ sessionUrl: session, videoId: null });
    return session;
  }

  /** Asks the session what it holds (`Content-Range: bytes *\/T`). */
  private async sessionState(at: Attempt, session: string, total: number): Promise<SessionState> {
    const a = await at.send(session, (t) => ({
      method: 'PUT', headers: { authorization: `Bearer ${t}`, 'content-range': `bytes */${total}`, 'content-length': '0' },
    }), { retry: true, failed: (x) => !(x.status === 200 || x.status === 201 || x.status === 308 || x.status === 404) });
    if (a.status === 404) return { kind: 'gone' };
    if (a.status === 308) return { kind: 'partial', received: receivedOf(a) };
    return { kind: 'done', videoId: this.videoIdOf(a) };
  }

  private videoIdOf(a: HttpAnswer): string {
    const id = str(field(a.json, 'id'));
    if (!id) throw new PublishError('unknown', 'video_site finished the upload without a video id');
    return id;
  }

  private async upload(at: Attempt, urls: PlatformUrls): Promise<string> {
    const { fh, size: total } = await openClip(at.job.media.file);
    const chunk = Math.max(UNIT, Math.floor((this.opts.chunkSizeBytes ?? DEFAULT_CHUNK) / UNIT) * UNIT);
    let sessionsStarted = 0;
    const newSession = async (): Promise<string> => {
      // A second expired session in one attempt is not the lifetime running out: give up for now.
      if (sessionsStarted++ >= 2) throw new PublishError('unknown', 'video_site keeps losing the upload session (404); will try again later');
      return this.startSession(at, urls, total);
    };
    try {
      let session = str(at.state.sessionUrl);
      let offset = 0;
      if (session) {
        const s = await this.sessionState(at, session, total);
        if (s.kind === 'done') return this.finish(at, s.videoId);
        if (s.kind === 'partial') offset = s.received;
        else session = undefined;
      }
      session ??= await newSession();
      for (let failures = 0; ;) {
        const len = Math.min(chunk, total - offset);
        const body = await readChunk(fh, offset, len);
        let a: HttpAnswer | null = null;
        try {
          a = await httpCall(session, {
            method: 'PUT', signal: at.signal, timeoutMs: this.opts.requestTimeoutMs ?? 600_000, body,
            headers: { authorization: `Bearer ${at.token}`, 'content-type': mimeOf(at.job.media.file), 'content-range': `bytes ${offset}-${offset + len - 1}/${total}` },
          });
        } catch (e) {
          if (!(e instanceof TransportError)) throw e;
        }
        if (a && (a.status === 200 || a.status === 201)) return this.finish(at, this.videoIdOf(a));
        if (a && a.status === 308) {
          offset = receivedOf(a);
          failures = 0;
          continue;
        }
        if (a && a.status === 404) {
          session = await newSession();
          offset = 0;
          continue;
        }
        if (a && a.status < 500) {
          const m = videoSiteError(a);
          if (m !== 'auth') throw m;
          await at.authRefused(`HTTP ${a.status}`);
          continue;
        }
        // A dropped connection or a 5xx: wait, ask the session how much arrived, go on from there.
        if (!(await at.backoff(failures++))) {
          throw new PublishError('unknown', `the upload to video_site kept failing (${a ? `HTTP ${a.status}` : 'connection lost'}); it resumes on the next attempt`);
        }
        const s = await this.sessionState(at, session, total);
        if (s.kind === 'done') return this.finish(at, s.videoId);
        if (s.kind === 'gone') {
          session = await newSession();
          offset = 0;
        } else {
          offset = s.received;
        }
      }
    } finally {
      await fh.close();
    }
  }

  private async finish(at: Attempt, videoId: string): Promise<string> {
    await at.save({ videoId, [UPLOADED_MARK]: at.now() });
    return videoId;
  }
}

/**
 * A video the platform made other than public (unverified API projects' uploads are forced private,
 * platforms.md 1.1): not the post that was scheduled. media_rejected, not retryable: another upload would
 * be forced private too; the message names the video so the user can find it.
 */
function privacyRefused(resource: unknown, url: string): PublishError | null {
  const privacy = str(field(field(resource, 'status'), 'privacyStatus'));
  if (privacy === undefined || privacy === ASKED_PRIVACY) return null;
  return new PublishError('media_rejected', `video_site made the video ${privacy} although ${ASKED_PRIVACY} was asked (status.privacyStatus "${privacy}"; uploads of an unverified API project are restricted to private viewing until it passes Google's audit). The ${privacy} video is on the channel: ${url}; make it public there, or have the project verified before posting again`);
}

/** Bytes the session holds, from `Range: bytes=0-N` (absent: none). */
function receivedOf(a: HttpAnswer): number {
  const m = /bytes=0-(\d+)/.exec(a.headers.get('range') ?? '');
  return m ? Number(m[1]) + 1 : 0;
}
