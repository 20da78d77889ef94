// What the posts tests share (issue 16): a live `shorts serve` pointed at the fake platforms, an API key,
// one small completed request (a clip of the sample talk, rendered at 360x640 so every platform's
// minimum size holds), and connected accounts holding tokens the fakes issued.
// These tests are about posting a clip, not about making it: the serve's data dir starts with the sample's
// 0-60 s transcript (seeded-cache.ts, made once per machine), and the clip is the cheapest render that is
// still a real one (fit layout: no face detection; no captions; a solid background).
import type { ConnectedAccount } from '../../src/posts/connected-accounts.js';
import type { Platform } from '../../src/publish/types.js';
import type { PostObject, RequestDetail } from '../../src/api/types.js';
import type { FakePlatform } from './fake-platforms/fake-server.js';
import { SAMPLE } from './cli.js';
import { issueKey } from './issue-key.js';
import { seed, warmCache } from './seeded-cache.js';
import { api, fileHandler, loopback, serveEnv, startServe, until, type Loopback, type ServeProcess } from './serve.js';

export const PLATFORM_URL_SETTING: Record<Platform, string> = {
  video_site: 'SHORTS_PLATFORM_URL_VIDEO_SITE',
  photo_site: 'SHORTS_PLATFORM_URL_PHOTO_SITE',
  short_video_site: 'SHORTS_PLATFORM_URL_SHORT_VIDEO_SITE',
};

/** The serve's environment: fakes as the platforms, clips big enough for them. */
export function postsEnv(fakes: Partial<Record<Platform, FakePlatform>>, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const urls = Object.fromEntries(Object.entries(fakes).map(([p, f]) => [PLATFORM_URL_SETTING[p as Platform], f!.url]));
  return serveEnv({ SHORTS_RENDER_SIZE: '360x640', ...urls, ...extra });
}

/** A request of the sample talk's first minute (one clip unless asked), completed through the serve's API. */
export async function completedRequest(serve: ServeProcess, key: string, cdn: Loopback, maxShorts = 1): Promise<RequestDetail> {
  const created = await api(serve.api, key, 'POST', '/shorts/create',
    { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 60, maxShorts, preferredLength: 'under30sec', layout: 'fit', captionsEnabled: false, blurBackground: false });
  if (created.status !== 202) throw new Error(`create: ${created.status} ${created.text}`);
  const id = created.json.data.requestId as string;
  const status = await until(() => api(serve.api, key, 'GET', `/shorts/${id}/status`), (r) => ['completed', 'failed'].includes(r.json?.data?.status), 240_000, 250);
  if (status.json.data.status !== 'completed') throw new Error(`request failed: ${JSON.stringify(status.json)}`);
  return (await api(serve.api, key, 'GET', `/shorts/${id}`)).json.data as RequestDetail;
}

export async function addAccount(serve: ServeProcess, key: string, fake: FakePlatform, platform: Platform, handle: string,
  opts: { ttlSec?: number; platformUserId?: string } = {}): Promise<ConnectedAccount> {
  const t = fake.issueTokens({ ttlSec: opts.ttlSec });
  const r = await api(serve.api, key, 'POST', '/accounts', {
    platform, handle, accessToken: t.accessToken, refreshToken: t.refreshToken, expiresIn: opts.ttlSec ?? 3600,
    ...(opts.platformUserId ? { platformUserId: opts.platformUserId } : {}),
  });
  if (r.status !== 201) throw new Error(`accounts add: ${r.status} ${r.text}`);
  return r.json.data as ConnectedAccount;
}

export async function postOf(serve: ServeProcess, key: string, id: string): Promise<PostObject> {
  const r = await api(serve.api, key, 'GET', `/posts/${id}`);
  if (r.status !== 200) throw new Error(`GET /posts/${id}: ${r.status} ${r.text}`);
  return r.json.data as PostObject;
}

/** Waits for a post to leave scheduled/processing (the scheduler publishes within a tick). */
export function settledPost(serve: ServeProcess, key: string, id: string, timeoutMs = 30_000): Promise<PostObject> {
  return until(() => postOf(serve, key, id), (p) => p.status === 'published' || p.status === 'failed' || p.status === 'canceled', timeoutMs, 100);
}

export interface PostsServe { serve: ServeProcess; key: string; cdn: Loopback; env: NodeJS.ProcessEnv; close(): Promise<void> }

export async function startPostsServe(fakes: Partial<Record<Platform, FakePlatform>>, extra: Record<string, string> = {}): Promise<PostsServe> {
  const env = postsEnv(fakes, extra);
  seed(env.SHORTS_DATA_DIR!, await warmCache());
  const { key } = await issueKey(env, { hourlyLimit: 2000, dailyLimit: 20000 });
  const cdn = await loopback(fileHandler(SAMPLE));
  const serve = await startServe(env);
  // close() stops the serve running then (a test may have replaced a killed one).
  const ps: PostsServe = { serve, key, cdn, env, close: async () => { await ps.serve.kill(); await cdn.close(); } };
  return ps;
}
