// Response shapes of the Shorts API (spec sections 2 and 4), shared by the service, the HTTP server,
// both clients and the CLI's --json output.
import type { HeatmapPoint } from '../domain/source.js';
import type { ResolvedLayout } from '../domain/layout.js';
import type { TimeAdjustment } from '../domain/time.js';
import type { RequestStatus, SentenceRecord, Step } from '../domain/request.js';
import type { PostObject } from '../domain/posts-query.js';

export interface Pagination { page: number; limit: number; totalPages: number; totalCount: number }

export interface CreateResponse {
  requestId: string;
  status: 'processing';
  creditsUsed: 1;
  estimatedCompletionTime: string;
  queuePosition: number | null;
  timeAdjustment?: TimeAdjustment;
}

export interface StatusResponse {
  _id: string;
  status: RequestStatus;
  step: Step;
  stepMessage: string;
  progress: number;
  userEmail: string;
  failureReason?: string;
  isDemo: boolean;
  /** Present only when there are any: what the user should know about a request that ran (e.g. speech not in the requested language). */
  warnings?: string[];
}

/** A post (spec 2.4): declared beside its list query in src/domain, where the store ports can name it. */
export type { PostObject };

/**
 * POST /posts (issue 16; the spec leaves scheduling "not shown"). `accountId` or `handle` names the connected
 * account (neither: the only one on that platform); `scheduledAt` defaults to now.
 */
export interface SchedulePostBody {
  shortId: string;
  platform: PostObject['platform'];
  accountId?: string;
  handle?: string;
  scheduledAt?: string;
  title?: string;
  description?: string;
}

/** An automation rule of a connected account (issue 16): new clips scoring at least minViralScore go out at the next free slot. */
export interface AutomationRule {
  id: string;
  /** The connected account it posts to. */
  accountId: string;
  platform: PostObject['platform'];
  handle: string;
  minViralScore: number;
  /** Daily posting times "HH:MM" in `timezone`, earliest first. */
  slots: string[];
  timezone: string;
  createdAt: string;
}

/** A connected account (issue 16; GET /accounts) as the API and the CLI show it: never a token. */
export interface ConnectedAccount {
  id: string;
  platform: PostObject['platform'];
  handle: string;
  /** The platform's id of the account (channel id, IG user id, open_id), when known. */
  platformUserId: string | null;
  /** `expired`: the platform refused to refresh its token; connect it again (`accounts connect` or `add`). */
  status: 'active' | 'expired';
  /** When the current access token stops working (null: the platform gave no lifetime). */
  expiresAt: string | null;
  scopes: string[];
  createdAt: string;
  updatedAt: string;
}

export interface ShortObject {
  id: string;
  title: string;
  sentenceIndexes: number[];
  reason: string;
  description: string;
  viral_score: number;
  video_url: string;
  startTimestamp: number;
  endTimestamp: number;
  duration: number;
  width: number;
  height: number;
  recompiling: boolean;
  error: boolean;
  errorMessage?: string;
  posts: PostObject[];
  /**
   * Extension (issue 13): the layout the clip was rendered with, what `auto` chose or the one asked for.
   * Absent for clips rendered before the service kept it.
   */
  layout?: ResolvedLayout;
  /**
   * Extension (issue 14): why the clip's last re-render failed; the clip is then the one before it (its
   * video, range and duration unchanged). Absent when the last re-render succeeded or there was none.
   */
  editError?: string;
  /**
   * Extension (issue 14): the clip's cover image, a 1080x1920 JPEG of its best frame (hook title drawn when
   * hookTitle was on); signed and temporary like video_url (file:// locally). Absent when the clip has no cover.
   */
  thumbnail_url?: string;
}

export interface RequestDetail {
  _id: string;
  status: RequestStatus;
  progress: number;
  userEmail: string;
  url: string;
  start: number;
  end: number;
  title: string;
  language: string;
  template: string;
  captionLanguage: string;
  heatmap: HeatmapPoint[];
  sentences: SentenceRecord[];
  preferredLength: string;
  projectId: string | null;
  shorts: ShortObject[];
  /** Present only when there are any (as in the status). */
  warnings?: string[];
  /** Extension (issue 25): when the request was made, as the list gives it (the studio's request view shows it). */
  createdAt: string;
  /** Extension (issue 25): a signed, Range-capable link to the source video the server keeps (uploads); absent when none is kept. */
  source_video_url?: string;
}

/** GET /shorts/{id}/transcript (extension, issue 25): the transcript's words in a source range, times in source seconds. */
export interface TranscriptWords {
  language: string;
  words: { text: string; start: number; end: number }[];
}

export interface RequestListItem {
  requestId: string;
  status: RequestStatus;
  progress: number;
  createdAt: string;
  updatedAt: string;
  url: string;
  duration: number;
}

/** An item of the studio's list (GET /shorts with a session, issue 25): where the request was made, and its source's title ('' until known). */
export interface StudioRequestListItem extends RequestListItem {
  createdIn: 'api' | 'studio' | 'local';
  title: string;
}

export interface TemplateItem {
  templateId: string; name: string; displayName: string; thumbnail: string; order: number; preview: string; gif: string;
}
export interface TemplateList { templates: TemplateItem[]; defaultTemplateId: string; defaultTemplateName: string }

export interface CancelResponse { _id: string; status: 'cancelled' }

export interface ListRequestsQuery { page: number; limit: number; status?: RequestStatus; sortBy: 'createdAt' | 'updatedAt'; sortOrder: 'asc' | 'desc' }

// Issue 25: the live progress streams (GET /shorts/{id}/events, GET /events?ids=…), server-sent events.
/** `event: status` and `event: end`: the status answer, with the queue position and ETA create answers. */
export interface LiveStatus extends StatusResponse {
  queuePosition: number | null;
  estimatedCompletionTime: string;
}
/** `event: shorts` (single-request stream only): the clips as they are now, signed links included. */
export interface LiveShorts { shorts: ShortObject[] }
/** The events a stream sends, by name. */
export interface LiveEvents { status: LiveStatus; shorts: LiveShorts; end: LiveStatus }
