// The contract between the post scheduler (src/posts) and the three platform connectors (issue 16). A
// connector knows one platform's documented wire contract (../shared/research/platforms.md) and nothing
// of our store: the scheduler hands it a fresh token, the clip's file and the progress saved by an earlier
// attempt, and gets back the public post or a PublishError carrying the spec's errorCode (spec 7.3).
// Neutral like src/net: imports nothing from service, engine, server, client or cli.

export const PLATFORMS = ['video_site', 'photo_site', 'short_video_site'] as const;
export type Platform = (typeof PLATFORMS)[number];

import { POST_ERROR_CODES, UPLOADED_MARK, type PostErrorCode, type PublishState } from '../domain/post.js';

export { POST_ERROR_CODES, UPLOADED_MARK, type PostErrorCode, type PublishState };

/** Spec 7.3's retryable column: the default for each code (a connector may not say otherwise). */
export const RETRYABLE: Record<PostErrorCode, boolean> = {
  auth_expired: false, daily_cap: true, account_restricted: false, account_not_eligible: false, media_rejected: false,
  video_missing: false, processing_timeout: true, rate_limited: true, unknown: true,
};

/** A publish that did not go out. `message` is plain language and, for `unknown`, includes the platform's own words. */
export class PublishError extends Error {
  readonly retryable: boolean;
  constructor(
    readonly errorCode: PostErrorCode,
    message: string,
    /** Seconds the platform asked us to wait (Retry-After, a quota reset), when it said. */
    readonly retryAfterSec?: number,
  ) {
    super(message);
    this.name = 'PublishError';
    this.retryable = RETRYABLE[errorCode];
  }
}

/** The connected account as a connector sees it: who to post as, with a token that is valid now. */
export interface PublishAccount {
  handle: string;
  /** The platform's id of the account (channel id, IG user id, open_id) when the platform needs it in paths. */
  platformUserId: string | null;
  accessToken: string;
}

/** Facts about the clip file, read with ffprobe before upload (checked against each platform's limits). */
export interface ClipMedia {
  file: string;
  sizeBytes: number;
  durationSec: number;
  width: number;
  height: number;
  fps: number;
  videoCodec: string;
  audioCodec: string | null;
  /** The moov atom comes before mdat (faststart): photo_site requires it. */
  faststart: boolean;
  /** ffprobe's format_name ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm"). */
  container?: string;
  /** Video bit rate in bits per second, when the file says. */
  videoBitrate?: number | null;
  audioSampleRate?: number | null;
  audioChannels?: number | null;
}

export interface PublishJob {
  /** Our post id: the idempotency key of every step. */
  postId: string;
  media: ClipMedia;
  /** The title (video_site) or caption (photo_site, short_video_site). */
  title: string;
  description: string;
  account: PublishAccount;
  /** What an earlier attempt of this post saved; null on the first. */
  state: PublishState | null;
  /**
   * Persists progress so a later attempt sees it: durable once the promise resolves (the connector waits for
   * it before the step it protects); rejects when it could not be saved (the connector must not take the step).
   */
  saveState(state: PublishState): void | Promise<void>;
  /**
   * The platform rejected the access token (401 / code 190 / access_token_invalid): returns a refreshed
   * one, or throws PublishError('auth_expired') when the refresh fails (platforms.md section 5, rule 1).
   */
  refreshAccessToken(): Promise<string>;
  signal?: AbortSignal;
}

export interface PublishResult {
  /**
   * The platform's id of the post (video id, IG media id, TikTok post id); null when the platform says the
   * post is live but its answer naming it was lost and nothing it gave singles it out (photo_site).
   */
  platformPostId: string | null;
  /** The public URL; null when the platform gives none (a private TikTok post). */
  url: string | null;
}

export interface Connector {
  readonly platform: Platform;
  /** The clip against this platform's constraints (platforms.md section 4): a media_rejected error, or null. */
  checkMedia(media: ClipMedia, text: { title: string; description: string }): PublishError | null;
  /** Uploads and publishes, resuming from `job.state`; throws PublishError. */
  publish(job: PublishJob): Promise<PublishResult>;
}
