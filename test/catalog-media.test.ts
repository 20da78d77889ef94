// Catalog items carry playable media (issue 12): music `url`, meme-hook and game-video `video` and
// `video_duration`. Against a real `shorts serve` on loopback, every link a listing gives is fetched
// the way a player does (ffprobe straight over HTTP, which seeks with Range requests) and must be a real
// audio or video stream of the stated length, with the right content type, without a key; paths that
// are not exactly an item's media are 404. In local mode the CLI's links are file:// URLs of the files.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gameVideoCatalog, gameVideoFilePath } from '../src/catalog/game-videos.js';
import { memeHookCatalog, memeHookFilePath } from '../src/catalog/meme-hooks.js';
import { musicCatalog, musicFilePath } from '../src/catalog/music.js';
import { cliEnv, runCli } from './helpers/cli.js';
import { issueKey } from './helpers/issue-key.js';
import { api, serveEnv, startServe, type ServeProcess } from './helpers/serve.js';

interface Probed { streams: { codec_type: string; codec_name: string; duration?: string }[]; format: { duration?: string } }

/** What a player learns from a link: ffprobe reads it directly (file path or http:// URL). */
function probe(target: string): Probed {
  const r = spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name,duration:format=duration', '-of', 'json', target], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`ffprobe ${target}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Probed;
}

/** Seconds of audio (the container's length: Ogg keeps no per-stream duration) of a music link. */
function audioSeconds(p: Probed): number {
  expect(p.streams.map((s) => s.codec_type)).toContain('audio');
  return Number(p.format.duration);
}

/** Seconds of picture: what the render plays of a meme hook or gameplay loop. */
function videoSeconds(p: Probed): number {
  const v = p.streams.find((s) => s.codec_type === 'video');
  expect(v, 'a video stream').toBeDefined();
  return Number(v!.duration);
}

/** A raw GET/HEAD with the path sent exactly as written (fetch would normalise `..` and friends). */
function rawRequest(base: string, method: string, rawPath: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path: rawPath, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const CATALOGS = [
  { endpoint: 'music', key: 'music', folder: 'music', link: 'url', type: 'audio/ogg', items: () => musicCatalog().items, file: musicFilePath },
  { endpoint: 'meme-hooks', key: 'memeHooks', folder: 'meme-hooks', link: 'video', type: 'video/mp4', items: () => memeHookCatalog().items, file: memeHookFilePath },
  { endpoint: 'game-videos', key: 'gameVideos', folder: 'game-videos', link: 'video', type: 'video/mp4', items: () => gameVideoCatalog().items, file: gameVideoFilePath },
] as const;

/** One serve of the shipped catalog for the file (started on first use): each start costs a Node process. */
let shipped: Promise<{ serve: ServeProcess; key: string }> | undefined;
function shippedServe(): Promise<{ serve: ServeProcess; key: string }> {
  shipped ??= startServe(serveEnv()).then(async (serve) => ({ serve, key: (await issueKey(serve.env)).key }));
  return shipped;
}
afterAll(async () => { await (await shipped)?.serve.kill(); });

describe('catalog media on serve (loopback)', () => {
  let serve: ServeProcess;
  let key: string;

  beforeAll(async () => {
    ({ serve, key } = await shippedServe());
  }, 60_000);

  for (const c of CATALOGS) {
    it(`GET /${c.endpoint}: every item's ${c.link} is a public ${c.type} link that plays for its stated length`, async () => {
      const r = await api(serve.api, key, 'GET', `/${c.endpoint}?limit=100`);
      expect(r.status).toBe(200);
      const items = r.json.data[c.key] as Record<string, unknown>[];
      expect(items.map((i) => i.name)).toEqual(c.items().map((i) => i.name));
      for (const item of items) {
        const name = item.name as string;
        const link = item[c.link] as string;
        expect(link, name).toBe(`${serve.url}/assets/catalog/${c.folder}/${encodeURIComponent(name)}/media`);
        if (c.key === 'music') {
          expect(Object.keys(item).sort()).toEqual(['duration', 'name', 'url']);
        } else {
          expect(Object.keys(item).sort()).toEqual(['name', 'preview', 'video', 'video_duration']);
          expect(item.preview).toBe(`${serve.url}/assets/catalog/${c.folder}/${encodeURIComponent(name)}/preview`);
          expect(typeof item.video_duration).toBe('number');
        }

        // No key: the catalog is public. HEAD tells a client the type and size before it downloads.
        const head = await fetch(link, { method: 'HEAD' });
        expect(head.status, name).toBe(200);
        expect(head.headers.get('content-type')).toBe(c.type);
        expect(head.headers.get('accept-ranges')).toBe('bytes');
        const file = c.file(c.items().find((i) => i.name === name)!);
        expect(Number(head.headers.get('content-length'))).toBe(statSync(file).size);

        // A player opening the link: ffprobe over HTTP (it seeks with Range requests to find the length).
        const p = probe(link);
        if (c.key === 'music') {
          expect(p.streams.find((s) => s.codec_type === 'audio')?.codec_name).toBe('opus');
          expect(Math.abs(audioSeconds(p) - (item.duration as number)), name).toBeLessThanOrEqual(0.1);
        } else {
          expect(p.streams.find((s) => s.codec_type === 'video')?.codec_name).toBe('h264');
          expect(Math.abs(videoSeconds(p) - (item.video_duration as number)), name).toBeLessThanOrEqual(0.1);
        }
      }
    }, 120_000);
  }

  it('answers a byte range of a media file with 206 and exactly those bytes; the preview link is the PNG', async () => {
    const r = await api(serve.api, key, 'GET', '/game-videos?limit=1');
    const item = r.json.data.gameVideos[0] as { name: string; preview: string; video: string };
    const bytes = readFileSync(gameVideoFilePath(gameVideoCatalog().items.find((g) => g.name === item.name)!));
    const part = await fetch(item.video, { headers: { range: 'bytes=1000-1999' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(part.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(1000, 2000))).toBe(true);
    const tail = await fetch(item.video, { headers: { range: 'bytes=-500' } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 500))).toBe(true);
    const beyond = await fetch(item.video, { headers: { range: `bytes=${bytes.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${bytes.length}`);

    const png = await fetch(item.preview);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await png.arrayBuffer()).subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('serves nothing but an item\'s own media: traversal, encoded separators, file names and other paths are 404', async () => {
    const track = musicCatalog().items[0]!;
    const hook = memeHookCatalog().items[0]!;
    const enc = encodeURIComponent(track.name);
    const paths = [
      '/assets/catalog/music/..%2Fmeme-hooks%2F' + encodeURIComponent(hook.name) + '/media',
      '/assets/catalog/music/..%2F..%2F..%2Fpackage.json/media',
      '/assets/catalog/music/%2E%2E/media',
      '/assets/catalog/music/../../../package.json/media',
      '/assets/catalog/music/' + enc + '%2F..%2F..%2Fmanifest.json/media',
      '/assets/catalog/music/' + enc + '/media/',
      '/assets/catalog/music/' + enc + '/media/x',
      '/assets/catalog/music/' + enc + '/media%2F..',
      '/assets/catalog/music/' + enc + '/file',
      '/assets/catalog/music/' + encodeURIComponent(track.name.toUpperCase()) + '/media',
      '/assets/catalog/music/' + encodeURIComponent(path.basename(track.file)) + '/media',
      '/assets/catalog/music/manifest.json',
      '/assets/catalog/music/' + track.file,
      '/assets/catalog/meme-hooks/' + enc + '/media',
      '/assets/catalog/fonts/' + enc + '/media',
      '/assets/catalog/music/%00/media',
    ];
    for (const p of paths) {
      const r = await rawRequest(serve.url, 'GET', p);
      expect(r.status, p).toBe(404);
      expect(r.headers['content-type'], p).toMatch(/^application\/json/);
      expect(JSON.parse(r.body.toString()).error.code, p).toBe('resource_not_found');
    }
    // A name that is not valid percent-encoding is the client's error (400) or simply no item (404):
    // either way an error envelope, never a file.
    const bad = await rawRequest(serve.url, 'GET', '/assets/catalog/music/%E0%A4%A/media');
    expect([400, 404]).toContain(bad.status);
    expect(JSON.parse(bad.body.toString()).error.code).toMatch(/^(invalid_request|resource_not_found)$/);
    // The exact path works, sent raw too.
    const ok = await rawRequest(serve.url, 'HEAD', `/assets/catalog/music/${enc}/media`);
    expect(ok.status).toBe(200);
  });
});

describe("an operator's own items get working media links", () => {
  let serve: ServeProcess;
  let key: string;
  const NAME = 'AC/DC? #1 Café & 100%';

  beforeAll(async () => {
    // A catalog folder of the operator's own: one MP3 track whose name needs every kind of escaping.
    const root = mkdtempSync(path.join(os.tmpdir(), 'catalog-media-'));
    const music = path.join(root, 'music');
    mkdirSync(music, { recursive: true });
    const ff = spawnSync('ffmpeg', ['-hide_banner', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=f=330:d=4.5:sample_rate=44100',
      '-c:a', 'libmp3lame', '-b:a', '64k', path.join(music, 'mine.mp3')], { encoding: 'utf8' });
    if (ff.status !== 0) throw new Error(ff.stderr);
    spawnSync('ffmpeg', ['-hide_banner', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=0x336699:s=400x100', '-frames:v', '1', path.join(music, 'mine.png')]);
    const seconds = Number(spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path.join(music, 'mine.mp3')], { encoding: 'utf8' }).stdout.trim());
    writeFileSync(path.join(music, 'manifest.json'), JSON.stringify({ version: 1, kind: 'music', items: [{
      name: NAME, file: 'mine.mp3', preview: 'mine.png', duration: seconds, loudnessLufs: -20, licence: 'CC0-1.0', attribution: 'Me', source: { kind: 'operator' },
    }] }));
    serve = await startServe(serveEnv({ SHORTS_CATALOG_DIR: root }));
    key = (await issueKey(serve.env)).key;
  }, 60_000);
  afterAll(async () => { await serve?.kill(); });

  it('an MP3 under a name with slashes, ?, #, & and % is listed with an encoded link served as audio/mpeg', async () => {
    const r = await api(serve.api, key, 'GET', '/music');
    expect(r.status).toBe(200);
    const [item] = r.json.data.music as { name: string; duration: number; url: string }[];
    expect(item!.name).toBe(NAME);
    expect(item!.url).toBe(`${serve.url}/assets/catalog/music/${encodeURIComponent(NAME)}/media`);
    const res = await fetch(item!.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    const p = probe(item!.url);
    expect(p.streams.find((s) => s.codec_type === 'audio')?.codec_name).toBe('mp3');
    expect(Math.abs(audioSeconds(p) - item!.duration)).toBeLessThanOrEqual(0.1);
    // The name's own slash, unencoded, is a different path: 404, not a file lookup.
    expect((await rawRequest(serve.url, 'GET', '/assets/catalog/music/AC/DC%3F%20%231%20Caf%C3%A9%20%26%20100%25/media')).status).toBe(404);
  });
});

describe('catalog media in the CLI', () => {
  it('local mode: shorts music / meme-hooks / game-videos --json give file:// links to the files, of the stated length', async () => {
    const env = cliEnv();
    const music = await runCli(['music', '--limit', '100', '--json'], env);
    expect(music.code, music.stderr).toBe(0);
    const tracks = JSON.parse(music.stdout).data.music as { name: string; duration: number; url: string }[];
    expect(tracks).toHaveLength(musicCatalog().items.length);
    for (const t of tracks) {
      expect(t.url).toMatch(/^file:\/\/.*\.opus$/);
      expect(statSync(fileURLToPath(t.url)).isFile()).toBe(true);
    }
    // The files are the ones serve hands out (each probed above); here one of each proves the local link plays.
    expect(Math.abs(audioSeconds(probe(fileURLToPath(tracks[0]!.url))) - tracks[0]!.duration)).toBeLessThanOrEqual(0.1);
    for (const [cmd, key] of [['meme-hooks', 'memeHooks'], ['game-videos', 'gameVideos']] as const) {
      const r = await runCli([cmd, '--limit', '100', '--json'], env);
      expect(r.code, r.stderr).toBe(0);
      const items = JSON.parse(r.stdout).data[key] as { name: string; preview: string; video: string; video_duration: number }[];
      expect(items.length).toBeGreaterThan(0);
      for (const i of items) {
        expect(i.video).toMatch(/^file:\/\/.*\.mp4$/);
        expect(statSync(fileURLToPath(i.video)).isFile()).toBe(true);
        expect(i.preview).toMatch(/^file:\/\/.*\.png$/);
        expect(statSync(fileURLToPath(i.preview)).isFile()).toBe(true);
      }
      expect(Math.abs(videoSeconds(probe(fileURLToPath(items[0]!.video))) - items[0]!.video_duration)).toBeLessThanOrEqual(0.1);
    }
  }, 120_000);

  it('tables show the length and the link a person opens: local file:// and remote http:// alike', async () => {
    const local = cliEnv();
    const m = await runCli(['music', '--limit', '2'], local);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout).toMatch(/duration \(s\)/);
    expect(m.stdout).toContain(new URL(`file://${musicFilePath(musicCatalog().items[0]!)}`).href);
    const g = await runCli(['game-videos', '--limit', '2'], local);
    expect(g.stdout).toMatch(/length \(s\)/);
    expect(g.stdout).toContain(new URL(`file://${gameVideoFilePath(gameVideoCatalog().items[0]!)}`).href);

    const { serve, key } = await shippedServe();
    const remote = cliEnv({ SHORTS_REMOTE: serve.api, SHORTS_API_KEY: key });
    const h = await runCli(['meme-hooks', '--limit', '2'], remote);
    expect(h.code, h.stderr).toBe(0);
    const first = memeHookCatalog().items[0]!;
    expect(h.stdout).toContain(`${serve.url}/assets/catalog/meme-hooks/${encodeURIComponent(first.name)}/media`);
    expect(h.stdout).toContain(String(first.duration));
  }, 120_000);
});
