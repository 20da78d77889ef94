// Where each platform's requests go. Every URL a connector or the OAuth wire code calls is written as
// the real service's URL (platforms.md) and passed through `platformUrl`: with SHORTS_PLATFORM_URL_<P>
// set, its scheme, host and port are replaced by that setting's and the path and query kept, so one
// proxy, sandbox or test server per platform receives the API, upload, token and consent requests alike.
// Upload URLs the platform hands back (a resumable session's Location, TikTok's upload_url, the rupload
// uri) go through it too: a real service answers with its own upload host, which the override must win over.
import { setting, type SettingName } from '../settings.js';
import type { Platform } from './types.js';

const SETTING: Record<Platform, SettingName> = {
  video_site: 'SHORTS_PLATFORM_URL_VIDEO_SITE',
  photo_site: 'SHORTS_PLATFORM_URL_PHOTO_SITE',
  short_video_site: 'SHORTS_PLATFORM_URL_SHORT_VIDEO_SITE',
};

/** The real services' hosts (platforms.md 1.2, 2.2, 3.1), by role. */
export const REAL_URLS = {
  video_site: {
    api: 'https://www.googleapis.com',
    upload: 'https://www.googleapis.com',
    token: 'https://oauth2.googleapis.com',
    consent: 'https://accounts.google.com',
  },
  photo_site: {
    api: 'https://graph.facebook.com',
    upload: 'https://rupload.facebook.com',
    token: 'https://graph.facebook.com',
    consent: 'https://www.facebook.com',
  },
  short_video_site: {
    api: 'https://open.tiktokapis.com',
    upload: 'https://open-upload.tiktokapis.com',
    token: 'https://open.tiktokapis.com',
    consent: 'https://www.tiktok.com',
  },
} as const satisfies Record<Platform, Record<'api' | 'upload' | 'token' | 'consent', string>>;

/** The Graph API version photo_site's paths carry (platforms.md 2.2). */
export const GRAPH_VERSION = 'v25.0';

export type UrlRole = keyof (typeof REAL_URLS)['video_site'];

/**
 * The origin (`http://127.0.0.1:8123`) that replaces every host of `platform`, or null for the real
 * services. Only the origin of the setting counts: a path in it would be added to every real path and
 * break the upload URLs the platform hands back, so it is refused rather than silently dropped.
 */
export function platformOverride(platform: Platform, env: NodeJS.ProcessEnv = process.env): string | null {
  const name = SETTING[platform];
  const value = setting(name, env);
  if (value === undefined) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be a URL such as http://127.0.0.1:8123 (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be an http or https URL (got "${value}")`);
  if (url.pathname !== '/' || url.search || url.hash) {
    throw new Error(`${name} replaces only the scheme and host of ${platform}'s URLs, so it takes no path (got "${value}"; use ${url.origin})`);
  }
  return url.origin;
}

/** `realUrl` (absolute) with its origin replaced by `override` when one is given; path and query kept. */
export function rebase(realUrl: string, override: string | null): string {
  if (!override) return realUrl;
  const url = new URL(realUrl);
  return override + url.pathname + url.search;
}

/**
 * The URLs of one platform: `at(role, path)` builds the URL of a real endpoint (path starting with `/`),
 * `rebase(url)` moves a URL the platform handed back onto the override.
 */
export interface PlatformUrls {
  readonly platform: Platform;
  /** The override origin, or null when the real services are used. */
  readonly override: string | null;
  at(role: UrlRole, pathAndQuery: string): string;
  rebase(url: string): string;
}

/**
 * `baseUrl` (a connector or test option) wins over the setting; both take an origin. Read once per
 * connector or request, so a process started with the setting keeps to it.
 */
export function platformUrls(platform: Platform, opts: { baseUrl?: string | null; env?: NodeJS.ProcessEnv } = {}): PlatformUrls {
  const override = opts.baseUrl ? new URL(opts.baseUrl).origin : platformOverride(platform, opts.env);
  return {
    platform,
    override,
    at: (role, pathAndQuery) => rebase(REAL_URLS[platform][role] + pathAndQuery, override),
    rebase: (url) => rebase(url, override),
  };
}
