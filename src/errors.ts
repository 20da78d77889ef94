// One error class and one table from code to HTTP status and CLI exit code, used by every layer: a
// neutral module (no imports), so pipeline, media and net stages can raise them without depending on the service.
export const ERROR_CODES = {
  invalid_request: { http: 400, exit: 2 },
  invalid_video_site_url: { http: 400, exit: 2 },
  invalid_file_url: { http: 400, exit: 2 },
  invalid_webhook_url: { http: 400, exit: 2 },
  file_too_large: { http: 400, exit: 2 },
  video_too_long: { http: 400, exit: 2 },
  missing_api_key: { http: 401, exit: 1 },
  invalid_api_key: { http: 401, exit: 1 },
  subscription_required: { http: 403, exit: 1 },
  insufficient_credits: { http: 403, exit: 1 },
  /** A browser request authenticated by the studio's cookie that did not come from the server's own pages (issue 25; not a spec code). */
  forbidden: { http: 403, exit: 1 },
  /** A media link whose signature does not match or whose expiry has passed (not a spec code). */
  invalid_media_link: { http: 403, exit: 1 },
  resource_not_found: { http: 404, exit: 1 },
  /** A known path asked with a method it does not have; the 405 carries an `Allow` header (not a spec code). */
  method_not_allowed: { http: 405, exit: 1 },
  /** A re-render asked while the request is not completed or the clip is already re-rendering (issue 14; not a spec code). */
  short_not_editable: { http: 409, exit: 1 },
  request_not_cancellable: { http: 409, exit: 1 },
  /** DELETE /posts/:id of a post that is being published or has ended (issue 16; not a spec code). */
  post_not_cancelable: { http: 409, exit: 1 },
  /** An Idempotency-Key sent again with another method, path or body within 24 hours (issue 23; not a spec code). */
  idempotency_key_reused: { http: 409, exit: 1 },
  /** An Idempotency-Key whose first request still runs after a minute's wait (issue 23; not a spec code). */
  idempotency_key_in_use: { http: 409, exit: 1 },
  /** A platform account another API account has connected (issue 23: one API account per channel; not a spec code). */
  account_already_connected: { http: 409, exit: 1 },
  rate_limit_exceeded: { http: 429, exit: 1 },
  internal_error: { http: 500, exit: 1 },
  /** A posting platform that could not be reached to check an account's tokens (issue 23; not a spec code). */
  platform_unreachable: { http: 502, exit: 1 },
  /** The database (or Redis) cannot be reached: it is restarting or down; tried again a few seconds later it answers (issue 24; not a spec code). */
  service_unavailable: { http: 503, exit: 1 },
} as const satisfies Record<string, { http: number; exit: number }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ShortsError extends Error {
  constructor(readonly code: ErrorCode, message: string, readonly details?: Record<string, unknown>) {
    super(message);
    this.name = 'ShortsError';
  }
  get httpStatus(): number { return ERROR_CODES[this.code].http; }
  get exitCode(): number { return ERROR_CODES[this.code].exit; }
}

/**
 * Whole seconds a client should wait after `e` when it is the API's 429 (`rate_limit_exceeded`): its
 * `details.retryAfter`, at least 1 (1 when the server gave none); null for any other error.
 */
export function rateLimitWaitSec(e: unknown): number | null {
  if (!(e instanceof ShortsError && e.code === 'rate_limit_exceeded')) return null;
  const retryAfter = Number(e.details?.retryAfter);
  return Math.max(1, Number.isFinite(retryAfter) ? Math.ceil(retryAfter) : 1);
}

/**
 * Where a PipelineError happened: a request's step (spec 3.2; the engine's stage table maps its stages to
 * them) or a finer part of one that a test or a log may tell apart (highlights inside finding_highlights,
 * reframe and rendering inside finalizing). Spelled out here because this module imports nothing.
 */
export type PipelineStage = 'fetching_video' | 'transcribing_audio' | 'finding_highlights' | 'finalizing' | 'highlights' | 'reframe' | 'rendering';

/**
 * A processing failure with a reason a user understands (becomes `failureReason`). `stage` says where
 * it happened; the message never contains a stack trace or a raw command line.
 */
export class PipelineError extends Error {
  constructor(readonly stage: PipelineStage, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PipelineError';
  }
}
