// The connector for a platform: what the publisher (src/posts) calls. Options are for tests and
// operators' proxies; by default each connector talks to the real service, or to
// SHORTS_PLATFORM_URL_<PLATFORM> when it is set.
import type { ConnectorOptions } from './attempt.js';
import { PhotoSiteConnector } from './photo-site.js';
import { ShortVideoSiteConnector } from './short-video-site.js';
import type { Connector, Platform } from './types.js';
import { VideoSiteConnector } from './video-site.js';

export type { ConnectorOptions } from './attempt.js';
export { clipMedia } from './media-check.js';

export function connectorFor(platform: Platform, opts: ConnectorOptions = {}): Connector {
  switch (platform) {
    case 'video_site': return new VideoSiteConnector(opts);
    case 'photo_site': return new PhotoSiteConnector(opts);
    case 'short_video_site': return new ShortVideoSiteConnector(opts);
  }
}
