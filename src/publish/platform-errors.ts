// Platform answers -> spec 7.3 errorCode (platforms.md section 5). One function per platform reads that
// platform's error envelope; each returns a PublishError, or 'auth' for an answer that means "the access
// token was refused" (the connector refreshes once and tries again before that becomes auth_expired).
// Codes the platforms document as transient (5xx, connection loss) never reach here on the first try:
// the connectors retry them with backoff and only hand the last one over (rule 2 of section 5).
import { field, num, str, type HttpAnswer } from './http.js';
import { PublishError } from './types.js';

export type Mapped = PublishError | 'auth';

const DAY_SEC = 24 * 3600;

/** Seconds until the next midnight in the Pacific time zone, when video_site's daily quotas reset. */
export function secondsToPacificMidnight(now = new Date()): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', hour: 'numeric', minute: 'numeric', second: 'numeric', hourCycle: 'h23' }).formatToParts(now);
  const get = (t: string): number => Number(parts.find((p) => p.type === t)?.value ?? 0);
  const elapsed = get('hour') * 3600 + get('minute') * 60 + get('second');
  return Math.max(60, DAY_SEC - elapsed);
}

/** The Retry-After header in seconds, when the answer carries one. */
export function retryAfter(a: HttpAnswer): number | undefined {
  const v = a.headers.get('retry-after');
  if (!v) return undefined;
  const n = Number(v);
  if (Number.isFinite(n)) return Math.max(0, Math.round(n));
  const t = Date.parse(v);
  return Number.isFinite(t) ? Math.max(0, Math.round((t - Date.now()) / 1000)) : undefined;
}

function said(platform: string, a: HttpAnswer, message: string | undefined): string {
  return `${platform} answered ${a.status}: ${message ?? (a.text.slice(0, 300) || 'no message')}`;
}

// ---- video_site (Google JSON errors, platforms.md 1.5) ----

export function videoSiteError(a: HttpAnswer): Mapped {
  const err = field(a.json, 'error');
  const list = field(err, 'errors');
  const reasons = (Array.isArray(list) ? list : []).map((e) => str(field(e, 'reason')) ?? '');
  const message = str(field(err, 'message'));
  const has = (...r: string[]): boolean => reasons.some((x) => r.includes(x));
  const text = said('video_site', a, message);
  if (has('youtubeSignupRequired', 'authenticatedUserNotChannel')) {
    return new PublishError('account_not_eligible', `the connected video_site account has no channel; create one on the site, then post again (${text})`);
  }
  if (has('insufficientPermissions')) return new PublishError('account_not_eligible', `the connected account did not grant the upload permission; connect it again and allow uploads (${text})`);
  if (a.status === 401) return 'auth';
  if (has('authenticatedUserAccountSuspended', 'authenticatedUserAccountClosed', 'channelSuspended', 'channelClosed')) {
    return new PublishError('account_restricted', `the video_site account is suspended or closed (${text})`);
  }
  if (has('uploadLimitExceeded')) return new PublishError('daily_cap', `the channel reached video_site's uploads for the last 24 hours (${text})`, DAY_SEC);
  // A 429 "rateLimitExceeded" whose message names the per-day upload quota is the daily cap, not a throttle.
  if (has('quotaExceeded', 'dailyLimitExceeded') || (a.status === 429 && /per day/i.test(message ?? ''))) {
    return new PublishError('daily_cap', `video_site's daily upload quota is used up; it resets at midnight Pacific time (${text})`, secondsToPacificMidnight());
  }
  if (has('rateLimitExceeded', 'userRateLimitExceeded') || a.status === 429) return new PublishError('rate_limited', text, retryAfter(a));
  if (has('mediaBodyRequired', 'failedPrecondition')) return new PublishError('media_rejected', `video_site refused the file (${text})`);
  return new PublishError('unknown', text, retryAfter(a));
}

/** A video that finished processing badly (status.uploadStatus / processingDetails, platforms.md 1.3), or null. */
export function videoSiteProcessingError(resource: unknown): PublishError | null {
  const status = field(resource, 'status');
  const upload = str(field(status, 'uploadStatus'));
  const processing = str(field(field(resource, 'processingDetails'), 'processingStatus'));
  if (upload === 'rejected') {
    const why = str(field(status, 'rejectionReason')) ?? 'no reason given';
    if (why === 'uploaderAccountSuspended' || why === 'uploaderAccountClosed') return new PublishError('account_restricted', `video_site rejected the upload: the account is ${why === 'uploaderAccountClosed' ? 'closed' : 'suspended'}`);
    return new PublishError('media_rejected', `video_site rejected the video (${why})`);
  }
  if (upload === 'failed') {
    const why = str(field(status, 'failureReason')) ?? 'no reason given';
    if (why === 'uploadAborted') return new PublishError('unknown', 'video_site says the upload was aborted (uploadAborted)');
    return new PublishError('media_rejected', `video_site could not process the video (${why})`);
  }
  if (upload === 'deleted') return new PublishError('unknown', 'the video was deleted on video_site before it finished processing');
  if (processing === 'failed') return new PublishError('media_rejected', 'video_site could not process the video (processing failed)');
  if (processing === 'terminated') return new PublishError('unknown', 'video_site stopped processing the video (terminated)');
  return null;
}

// ---- photo_site (Graph API errors, platforms.md 2.4) ----

export interface GraphErrorFacts { code: number | undefined; subcode: number | undefined; message: string | undefined; type: string | undefined }

export function graphErrorFacts(a: HttpAnswer): GraphErrorFacts {
  const err = field(a.json, 'error');
  return { code: num(field(err, 'code')), subcode: num(field(err, 'error_subcode')), message: str(field(err, 'message')), type: str(field(err, 'type')) };
}

const THROTTLING = new Set([4, 17, 32, 341, 613, 80002]);

export function photoSiteError(a: HttpAnswer): Mapped {
  const { code, subcode, message } = graphErrorFacts(a);
  const text = said('photo_site', a, message !== undefined ? `${message} (code ${code ?? '?'}${subcode ? `/${subcode}` : ''})` : undefined);
  if (code === 190 && (subcode === 459 || subcode === 464)) {
    return new PublishError('auth_expired', `the photo_site account must be confirmed in the app (checkpoint), then connected again (${text})`);
  }
  if (code === 190 || code === 102) return 'auth';
  if (code === 10 || (code !== undefined && code >= 200 && code <= 299)) {
    return new PublishError('account_not_eligible', `the connected photo_site account may not publish this way (a professional account linked to a Page with publishing permission is needed) (${text})`);
  }
  if (code === 9 && subcode === 2207042) return new PublishError('daily_cap', `the account reached photo_site's API publishing limit for the last 24 hours (${text})`, DAY_SEC);
  if ((code === 25 && subcode === 2207050) || (code === 4 && subcode === 2207051) || code === 368) {
    return new PublishError('account_restricted', `photo_site is restricting this account; resolve it in the app (${text})`);
  }
  if (code !== undefined && THROTTLING.has(code)) return new PublishError('rate_limited', text, retryAfter(a));
  if ((code === 352 && (subcode === 2207026 || subcode === undefined)) || subcode === 2207026 || subcode === 2207057) {
    return new PublishError('media_rejected', `photo_site refused the video format (${text})`);
  }
  if (subcode === 2207003 || subcode === 2207052) return new PublishError('processing_timeout', `photo_site could not take in the video in time (${text})`);
  if (code === 9007) return new PublishError('processing_timeout', `photo_site kept saying the video is not ready to publish (${text})`);
  if (a.status === 429) return new PublishError('rate_limited', text, retryAfter(a));
  return new PublishError('unknown', text, retryAfter(a));
}

/** A container in ERROR: its `status` text names the subcode, e.g. "Error: … (2207026)". */
export function photoSiteContainerError(status: string | undefined): PublishError {
  const sub = Number(/\((\d{7})\)/.exec(status ?? '')?.[1] ?? NaN);
  const text = `photo_site could not process the video (${status ?? 'ERROR'})`;
  if (sub === 2207026 || sub === 2207053 || sub === 2207057) return new PublishError('media_rejected', text);
  if (sub === 2207003 || sub === 2207052) return new PublishError('processing_timeout', text);
  return new PublishError('unknown', text);
}

// ---- short_video_site (v2 envelope, platforms.md 3.2, 3.4, 3.6) ----

const TIKTOK: Record<string, PublishError['errorCode'] | 'auth'> = {
  access_token_invalid: 'auth',
  scope_not_authorized: 'account_not_eligible',
  scope_permission_missed: 'account_not_eligible',
  unaudited_client_can_only_post_to_private_accounts: 'account_not_eligible',
  privacy_level_option_mismatch: 'account_not_eligible',
  app_version_check_failed: 'account_not_eligible',
  spam_risk_too_many_posts: 'daily_cap',
  spam_risk_too_many_pending_share: 'daily_cap',
  reached_active_user_cap: 'daily_cap',
  rate_limit_exceeded: 'rate_limited',
  spam_risk_user_banned_from_posting: 'account_restricted',
  spam_risk: 'account_restricted',
  spam_risk_text: 'account_restricted',
  invalid_file_upload: 'media_rejected',
};

const TIKTOK_HINT: Partial<Record<PublishError['errorCode'], string>> = {
  account_not_eligible: 'the connected short_video_site account or the app may not post this way',
  daily_cap: "short_video_site's daily posting limit is reached",
  account_restricted: "short_video_site's spam filter blocked the post; resolve it in the app",
  media_rejected: 'short_video_site refused the video',
};

/** The v2 envelope's error.code ("ok" on success), when there is one. */
export function tiktokCode(a: HttpAnswer): string | undefined {
  return str(field(field(a.json, 'error'), 'code'));
}

export function shortVideoSiteError(a: HttpAnswer): Mapped {
  const code = tiktokCode(a) ?? str(field(a.json, 'error')) ?? `http_${a.status}`;
  const message = str(field(field(a.json, 'error'), 'message')) ?? str(field(a.json, 'error_description'));
  const mapped = TIKTOK[code] ?? (a.status === 429 ? 'rate_limited' : a.status === 401 ? 'auth' : 'unknown');
  if (mapped === 'auth') return 'auth';
  const text = said('short_video_site', a, `${code}${message && message !== code ? `: ${message}` : ''}`);
  const hint = TIKTOK_HINT[mapped];
  return new PublishError(mapped, hint ? `${hint} (${text})` : text, mapped === 'daily_cap' ? DAY_SEC : retryAfter(a));
}

/** status/fetch's FAILED with its fail_reason (platforms.md 3.6). */
export function shortVideoSiteFailReason(reason: string | undefined): PublishError {
  const r = reason ?? 'none given';
  switch (r) {
    case 'auth_removed': return new PublishError('auth_expired', 'the creator removed the app\'s access on short_video_site; connect the account again');
    case 'file_format_check_failed': case 'duration_check_failed': case 'frame_rate_check_failed': case 'picture_size_check_failed':
      return new PublishError('media_rejected', `short_video_site refused the video (${r})`);
    case 'spam_risk_too_many_posts': return new PublishError('daily_cap', `short_video_site's daily posting limit is reached (${r})`, DAY_SEC);
    case 'spam_risk_user_banned_from_posting': case 'spam_risk': case 'spam_risk_text':
      return new PublishError('account_restricted', `short_video_site's spam filter blocked the post; resolve it in the app (${r})`);
    case 'video_pull_failed': return new PublishError('processing_timeout', `short_video_site could not take in the video (${r})`);
    case 'publish_cancelled': return new PublishError('unknown', 'the post was canceled on short_video_site (publish_cancelled)');
    default: return new PublishError('unknown', `short_video_site failed the post (${r})`);
  }
}
