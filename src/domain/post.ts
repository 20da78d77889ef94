// What a post (issue 16) is made of, below every layer that handles one: the platforms, the stable error codes
// of a failed post (spec 7.3) and the connector's saved progress. The connectors (src/publish) and the posts
// ports (src/ports) both speak these.
import { PLATFORMS } from './posts-query.js';

export type Platform = (typeof PLATFORMS)[number];

/** Spec 7.3: the stable codes of a failed post. */
export const POST_ERROR_CODES = [
  'auth_expired', 'daily_cap', 'account_restricted', 'account_not_eligible', 'media_rejected', 'video_missing',
  'processing_timeout', 'rate_limited', 'unknown',
] as const;
export type PostErrorCode = (typeof POST_ERROR_CODES)[number];

/**
 * Connector-defined progress (upload session URI, container id, publish_id, the published media id): saved
 * by the scheduler before the step that would be unsafe to repeat, handed back on the next attempt, so a
 * crash or restart resumes instead of posting twice. Plain JSON.
 */
export type PublishState = Record<string, string | number | boolean | null>;

/**
 * The publish-state field (ms since epoch) a connector sets once the platform holds the whole upload (video_site's
 * video id came back): from then on that upload is only checked again, never uploaded again, by this post or by a
 * new post of the same clip to the same account (issue 23).
 */
export const UPLOADED_MARK = 'uploadedAt';
