// The three fake platforms (platforms.md 1.8, 2.6, 3.9), one real loopback HTTP server each. Point code
// at one with SHORTS_PLATFORM_URL_<PLATFORM>=fake.url (every host of that platform: API, upload, token,
// consent) and SHORTS_OAUTH_<PLATFORM>_CLIENT_ID/SECRET = fake.clientId/clientSecret.
//
//   const fake = await startFakePlatform('video_site');
//   const env = fakePlatformEnv(fake);          // the settings above, to spread into a child's env
//   const tokens = fake.issueTokens();           // as if connected: { accessToken, refreshToken, ... }
//   ... publish ...; expect(fake.publishCount).toBe(1);
//   await fake.close();
import type { Platform } from '../../../src/publish/types.js';
import { FakePhotoSite } from './photo-site.js';
import { FakeShortVideoSite } from './short-video-site.js';
import { FakeVideoSite } from './video-site.js';
import type { FakeOptions } from './fake-server.js';

export { FakeVideoSite, googleError, VIDEO_SITE_FAULTS } from './video-site.js';
export { FakePhotoSite, graphError, PHOTO_SITE_FAULTS } from './photo-site.js';
export { FakeShortVideoSite, tiktokError, SHORT_VIDEO_SITE_FAULTS } from './short-video-site.js';
export type { Fault, FakeOptions, TokenRecord } from './fake-server.js';

export type AnyFakePlatform = FakeVideoSite | FakePhotoSite | FakeShortVideoSite;

export interface FakeFor {
  video_site: FakeVideoSite;
  photo_site: FakePhotoSite;
  short_video_site: FakeShortVideoSite;
}

export async function startFakePlatform<P extends Platform>(platform: P, opts: FakeOptions = {}): Promise<FakeFor[P]> {
  const fake = platform === 'video_site' ? new FakeVideoSite(opts) : platform === 'photo_site' ? new FakePhotoSite(opts) : new FakeShortVideoSite(opts);
  return (await fake.start()) as FakeFor[P];
}

function platformOf(fake: AnyFakePlatform): Platform {
  return fake instanceof FakeVideoSite ? 'video_site' : fake instanceof FakePhotoSite ? 'photo_site' : 'short_video_site';
}

/** The settings that send a platform's traffic and OAuth app to this fake. */
export function fakePlatformEnv(...fakes: AnyFakePlatform[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const fake of fakes) {
    const P = platformOf(fake).toUpperCase();
    env[`SHORTS_PLATFORM_URL_${P}`] = fake.url;
    env[`SHORTS_OAUTH_${P}_CLIENT_ID`] = fake.clientId;
    env[`SHORTS_OAUTH_${P}_CLIENT_SECRET`] = fake.clientSecret;
  }
  return env;
}
