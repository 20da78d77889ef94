// What the posts view's pieces share: the platforms' names and text limits, the post statuses and the
// failure codes (spec 7.3) said in plain words.
import type { ConnectedAccount, PostObject } from '../../api/types';
import { StatusBadge } from './list-status';

export type Platform = PostObject['platform'];
export type PostStatus = PostObject['status'];
export type { ConnectedAccount };

export const PLATFORM_NAMES: Record<Platform, string> = {
  video_site: 'Video site',
  photo_site: 'Photo site',
  short_video_site: 'Short-video site',
};

/**
 * What each platform takes as text: the server's TEXT_LIMITS (src/posts/posts-service.ts, platforms.md
 * section 4), repeated here because the studio cannot import server code; the server checks again.
 */
export const TEXT_LIMITS: Record<Platform, { title: number; description: number; angleBrackets: boolean; descriptionBytes: boolean; titleName: string }> = {
  video_site: { title: 100, description: 5000, angleBrackets: false, descriptionBytes: true, titleName: 'Title' },
  photo_site: { title: 2200, description: 2200, angleBrackets: true, descriptionBytes: false, titleName: 'Caption' },
  short_video_site: { title: 2200, description: 2200, angleBrackets: true, descriptionBytes: false, titleName: 'Caption' },
};

const POST_STATUS: Record<PostStatus, { icon: string; label: string }> = {
  scheduled: { icon: '◷', label: 'Scheduled' },
  processing: { icon: '↻', label: 'Posting' },
  published: { icon: '✓', label: 'Published' },
  failed: { icon: '✕', label: 'Failed' },
  canceled: { icon: '⊘', label: 'Canceled' },
};
export const POST_STATUSES = Object.keys(POST_STATUS) as PostStatus[];
export const postStatusLabel = (s: PostStatus): string => POST_STATUS[s]?.label ?? s;

export function PostStatusBadge({ status }: { status: PostStatus }) {
  const s = POST_STATUS[status] ?? { icon: '?', label: status };
  return <StatusBadge status={status} icon={s.icon} label={s.label} />;
}

/** Spec 7.3's failure codes, for a person deciding what to do next. */
export const POST_ERRORS: Record<string, string> = {
  auth_expired: 'The connection to this account expired or was revoked. Connect the account again, then schedule the post again.',
  daily_cap: 'The platform\'s daily posting limit was reached. It resets within 24 hours: schedule the post for later.',
  account_restricted: 'The platform\'s spam filter blocked the post. Resolve it in the platform\'s own app before posting again.',
  account_not_eligible: 'This account cannot post this way (for example a personal account, a channel not set up, or a permission not granted).',
  media_rejected: 'The platform refused the video (length, format, resolution or frame rate). Re-export the clip and try again.',
  video_missing: 'The clip\'s video file is no longer available. Re-create the clip, then schedule it again.',
  processing_timeout: 'The platform did not finish processing the video in time. Scheduling it again later usually works.',
  rate_limited: 'The platform is limiting requests for now. Scheduling it again later usually works.',
  unknown: 'Something else went wrong (details below). Scheduling it again later may work.',
};

/** Characters as the platform counts them: code points; video_site's description in UTF-8 bytes. */
export function textSize(text: string, bytes: boolean): number {
  return bytes ? new TextEncoder().encode(text).length : [...text].length;
}
