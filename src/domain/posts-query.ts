// The filters of GET /posts (spec 4.6): the values each may take and the query they make once validated
// (service/list-query.ts parses it; the request store lists by it; the OpenAPI document names the same values).
export const POST_STATUSES = ['scheduled', 'processing', 'published', 'failed', 'canceled'] as const;
export const PLATFORMS = ['video_site', 'photo_site', 'short_video_site'] as const;

export interface PostsQuery {
  page: number;
  limit: number;
  status?: (typeof POST_STATUSES)[number];
  platform?: (typeof PLATFORMS)[number];
  source?: 'manual' | 'automation';
  requestId?: string;
  shortId?: string;
  since?: string;
  until?: string;
  date: 'scheduled' | 'published';
}

/** The API's Post object (spec 2.4). */
export interface PostObject {
  id: string;
  platform: 'video_site' | 'photo_site' | 'short_video_site';
  status: 'scheduled' | 'processing' | 'published' | 'failed' | 'canceled';
  scheduledAt: string;
  publishedAt: string | null;
  url: string | null;
  shortId: string;
  requestId: string;
  title: string;
  account: { handle: string };
  source: 'manual' | 'automation';
  error: string | null;
  errorCode: string | null;
  retryable: boolean | null;
  createdAt: string;
}
