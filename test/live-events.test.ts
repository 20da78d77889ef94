// Live progress (issue 25): server-sent events of a real `shorts serve` on loopback (real ffmpeg, whisper tiny.en,
// SQLite). A request watched from its creation streams its steps in order with progress that never goes back,
// each clip as soon as its MP4 exists (playable through its link while the request still runs), and an `end`;
// an ended request answers at once; a cancel ends the stream; a list stream follows several requests; a
// re-render keeps a completed request's stream open until the new clip is in; nothing is polled once the last
// stream closed.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SAMPLE } from './helpers/cli.js';
import { seed, warmCache } from './helpers/seeded-cache.js';
import { api, createKey, fileHandler, loopback, serveEnv, startServe, until, type Loopback, type ServeProcess } from './helpers/serve.js';

interface SseEvent { event: string; data: any; at: number }
interface Stream { status: number; headers: Headers; events: SseEvent[]; raw: () => string; ended: Promise<void>; abort(): void }

/** Opens a stream and collects its events until the server closes it (or abort). */
async function stream(url: string, key: string, onEvent: (e: SseEvent) => void = () => {}): Promise<Stream> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { 'x-api-key': key, accept: 'text/event-stream' }, signal: controller.signal });
  const events: SseEvent[] = [];
  let raw = '';
  const ended = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        raw += text;
        buffer += text;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) {
            const e = { event, data: JSON.parse(data), at: Date.now() };
            events.push(e);
            onEvent(e);
          }
        }
      }
    } catch (e) {
      if (!controller.signal.aborted) throw e;
    }
  })();
  return { status: res.status, headers: res.headers, events, raw: () => raw, ended, abort: () => controller.abort() };
}

const STEPS = ['queued', 'fetching_video', 'transcribing_audio', 'finding_highlights', 'finalizing', 'completed'];

let serve: ServeProcess;
let cdn: Loopback;
let key = '';
/** Another account's key: its requests are not the first's. */
let otherKey = '';
let done = '';
const env = serveEnv({ SHORTS_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'shorts-live-')) });
/** The seeded range and language (the transcript comes from the warm cache), rendered cheaply. */
const BODY = { start: 0, end: 60, language: 'en', preferredLength: 'under30sec', layout: 'fit', blurBackground: false };
const sha = async (url: string) => createHash('sha256').update(Buffer.from(await (await fetch(url)).arrayBuffer())).digest('hex');
const metric = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await (await fetch(`${serve.url}/metrics`)).text())?.[1]);

beforeAll(async () => {
  [{ key }, { key: otherKey }] = await Promise.all([createKey(env, ['--hourly-limit', '2000', '--daily-limit', '20000']), createKey(env)]);
  seed(env.SHORTS_DATA_DIR!, await warmCache());
  cdn = await loopback(fileHandler(SAMPLE));
  serve = await startServe(env);
}, 300_000);

afterAll(async () => {
  await serve?.kill('SIGKILL');
  await cdn?.close();
});

describe('live progress streams', () => {
  it('streams a request from its creation: steps in order, clips as they finish, then end and close', async () => {
    const created = await api(serve.api, key, 'POST', '/shorts/create', { fileUrl: `${cdn.url}/talk.mp4`, ...BODY, maxShorts: 2 });
    expect(created.status, created.text).toBe(202);
    done = created.json.data.requestId;
    // A clip's link is fetched the moment it is announced: it must already play.
    const playable: Promise<{ status: number; type: string | null; bytes: number; during: string }>[] = [];
    let lastStatus = '';
    const s = await stream(`${serve.api}/shorts/${done}/events`, key, (e) => {
      if (e.event === 'status') lastStatus = e.data.status;
      if (e.event === 'shorts' && playable.length === 0) {
        const during = lastStatus;
        playable.push(fetch(e.data.shorts[0].video_url).then(async (r) => ({ status: r.status, type: r.headers.get('content-type'), bytes: (await r.arrayBuffer()).byteLength, during })));
      }
    });
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(s.headers.get('cache-control')).toBe('no-store');
    expect(s.headers.get('x-accel-buffering')).toBe('no');
    expect(s.headers.get('content-encoding')).toBeNull();
    await s.ended;
    expect(s.raw()).toMatch(/^retry: 3000\n\n/);
    const names = s.events.map((e) => e.event);
    expect(names[0]).toBe('status');
    expect(names.at(-1)).toBe('end');
    expect(names.filter((n) => n === 'end')).toHaveLength(1);
    const statuses = s.events.filter((e) => e.event === 'status').map((e) => e.data);
    for (let i = 1; i < statuses.length; i++) {
      expect(statuses[i].progress).toBeGreaterThanOrEqual(statuses[i - 1].progress);
      expect(STEPS.indexOf(statuses[i].step)).toBeGreaterThanOrEqual(STEPS.indexOf(statuses[i - 1].step));
    }
    expect(statuses.map((x) => x.step)).toContain('finalizing');
    for (const x of statuses) {
      expect(x._id).toBe(done);
      expect(x).toHaveProperty('queuePosition');
      expect(Number.isFinite(Date.parse(x.estimatedCompletionTime))).toBe(true);
    }
    const end = s.events.at(-1)!.data;
    expect(end).toMatchObject({ _id: done, status: 'completed', progress: 100 });
    const shorts = s.events.filter((e) => e.event === 'shorts');
    expect(shorts.length).toBeGreaterThan(0);
    const first = await playable[0]!;
    expect(first).toMatchObject({ status: 200, type: 'video/mp4' });
    expect(first.bytes).toBeGreaterThan(10_000);
    // The last clips shown are the request's, as GET /shorts/{id} has them.
    const detail = (await api(serve.api, key, 'GET', `/shorts/${done}`)).json.data;
    expect(shorts.at(-1)!.data.shorts.map((c: { id: string }) => c.id)).toEqual(detail.shorts.map((c: { id: string }) => c.id));
    console.log(`events for one request: ${s.events.length} (${names.join(', ')}); first clip shown while ${first.during}`);
  }, 120_000);

  it('a request already ended: status, shorts and end at once, then the stream closes', async () => {
    const started = Date.now();
    const s = await stream(`${serve.api}/shorts/${done}/events`, key);
    await s.ended;
    expect(s.events.map((e) => e.event)).toEqual(['status', 'shorts', 'end']);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(s.events[1]!.data.shorts.every((c: { video_url: string }) => c.video_url.startsWith('http'))).toBe(true);
  });

  it('refuses an unknown request, another account\'s and a list without ids before any stream starts', async () => {
    const unknown = await api(serve.api, key, 'GET', `/shorts/${'a'.repeat(24)}/events`);
    expect([unknown.status, unknown.json.error.code]).toEqual([404, 'resource_not_found']);
    const foreign = await api(serve.api, otherKey, 'GET', `/shorts/${done}/events`);
    expect([foreign.status, foreign.json.error.code]).toEqual([404, 'resource_not_found']);
    expect((await api(serve.api, otherKey, 'GET', `/events?ids=${done}`)).status).toBe(404);
    expect((await api(serve.api, key, 'GET', '/events')).status).toBe(400);
    expect((await api(serve.api, key, 'GET', '/events?ids=nope')).status).toBe(400);
    expect((await api(serve.api, null, 'GET', `/shorts/${done}/events`)).status).toBe(401);
  });

  it('a re-render after completion: recompiling, then the new clip, then end', async () => {
    const before = (await api(serve.api, key, 'GET', `/shorts/${done}`)).json.data.shorts[0];
    const oldHash = await sha(before.video_url);
    const accepted = await api(serve.api, key, 'POST', `/shorts/${done}/shorts/${before.id}/render`, { hookTitle: true, title: 'Live now' });
    expect(accepted.status, accepted.text).toBe(202);
    const s = await stream(`${serve.api}/shorts/${done}/events`, key);
    await s.ended;
    const clipOf = (e: SseEvent) => e.data.shorts.find((c: { id: string }) => c.id === before.id);
    const shorts = s.events.filter((e) => e.event === 'shorts');
    expect(clipOf(shorts[0]!).recompiling).toBe(true);
    const last = clipOf(shorts.at(-1)!);
    expect(last.recompiling).toBe(false);
    expect(last.title).toBe('Live now');
    expect(await sha(last.video_url)).not.toBe(oldHash);
    expect(s.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
  }, 60_000);

  it('a cancel ends the request\'s stream, and a list stream follows several requests until all ended', async () => {
    const created = await api(serve.api, key, 'POST', '/shorts/create', { fileUrl: `${cdn.url}/talk.mp4`, ...BODY, maxShorts: 1 });
    const id = created.json.data.requestId as string;
    const one = await stream(`${serve.api}/shorts/${id}/events`, key);
    const list = await stream(`${serve.api}/events?ids=${done},${id}`, key);
    await until(async () => list.events.length, (n) => n >= 3, 10_000, 100);
    expect((await api(serve.api, key, 'DELETE', `/shorts/${id}`)).status).toBe(200);
    await Promise.all([one.ended, list.ended]);
    expect(one.events.at(-1)).toMatchObject({ event: 'end', data: { _id: id, status: 'cancelled' } });
    const ends = list.events.filter((e) => e.event === 'end').map((e) => [e.data._id, e.data.status]);
    expect(ends).toEqual([[done, 'completed'], [id, 'cancelled']]);
    expect(list.events.every((e) => e.event !== 'shorts')).toBe(true);
  }, 30_000);

  it('counts open streams, and stops polling the store when the last one closes', async () => {
    const created = await api(serve.api, key, 'POST', '/shorts/create', { fileUrl: `${cdn.url}/talk.mp4`, ...BODY, maxShorts: 1 });
    const id = created.json.data.requestId as string;
    const tabs = await Promise.all([1, 2, 3].map(() => stream(`${serve.api}/shorts/${id}/events`, key)));
    await until(async () => tabs.every((t) => t.events.length > 0), Boolean, 10_000, 100);
    expect(await metric('shorts_event_streams')).toBe(3);
    // Three tabs, one read of the store per tick.
    const p0 = await metric('shorts_event_polls_total');
    await new Promise((r) => setTimeout(r, 2200));
    expect(await metric('shorts_event_polls_total') - p0).toBeLessThanOrEqual(3);
    for (const t of tabs) t.abort();
    await until(() => metric('shorts_event_streams'), (n) => n === 0, 5000, 50);
    const polls = await metric('shorts_event_polls_total');
    await new Promise((r) => setTimeout(r, 2200));
    expect(await metric('shorts_event_polls_total')).toBe(polls);
    await api(serve.api, key, 'DELETE', `/shorts/${id}`);
  }, 30_000);
});
