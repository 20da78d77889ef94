// The filters of GET /posts (spec 4.6): the values each may take and the query they make once validated
// (service/list-query.ts parses it; the store lists by it; the OpenAPI document names the same values).
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
