#!/usr/bin/env node
// Issue 25 benchmark: what the web studio costs a browser and the server. Starts its own `shorts serve`
// (fresh data dir, a key; scripts/bench-serve.mjs), the sample talk on a loopback file server, and Debian's
// Chromium (/usr/bin/chromium through playwright-core), then measures:
//   (a) first-load bytes: every HTML/JS/CSS file the first load of /sign-in and of / (signed in) transfers,
//       as Chromium's network events list them, each counted raw (Accept-Encoding: identity) and gzipped (the
//       server's gzip answer; `*` where it sent none and gzip -9 was computed here), beside the bytes
//       Chromium actually received (it asks for br);
//   (b) time to interactive, median of 10 cold loads (a fresh context each: empty cache and cookies; the
//       browser process stays up): from navigation start (performance.timeOrigin) to the first moment, seen
//       by a MutationObserver installed before the page's scripts, when
//         /sign-in: the page's <h1> is visible, its form has an enabled input and an enabled submit button;
//         /       : (signed in) the page's <h1> is visible;
//       or, where the shell sets it, the `studio-interactive` performance mark (the table says which);
//   (c) events per request: one request (the sample's first minute, 2 clips, 270x480 x264 ultrafast, the
//       tiny English Whisper model) watched in its request view from creation to `end`: the server-sent
//       events the page's EventSource received by type (Chromium's DevTools Network.eventSourceMessage-
//       Received), the other API calls the view made meanwhile, and a stream read by node alongside;
//   (d) server CPU of 20 open tabs: the serve process's own CPU time (utime+stime of /proc/<pid>/stat; its
//       ffmpeg/whisper children are not in it) over a window with no tab open and over the same window with
//       20 pages (one browser, one signed-in context) each on a live request's view, in two setups:
//         queued : `serve --workers 0`, 20 requests that stay queued: the streams' cost alone, no pipeline;
//         running: the default workers running 20 requests: windows no tabs / tabs / no tabs, the tabs'
//                  cost taken against the mean of the two no-tab windows (the pipeline's own in-process CPU
//                  drifts between windows, so read this row with its noise in mind).
// Parts the server cannot do yet (no static studio, no sign-in, no event stream, no request view) fail with
// the reason; the others still run; the exit code is then 1.
// Run: `npm run build && node scripts/bench-studio.mjs [--window SECONDS] [--loads N] [--tabs N]`
//      (defaults 60, 10, 20; SHORTS_WHISPER_MODEL picks the model, else ../shared/models/ggml-tiny.en-q8_0.bin).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { percentile, serveFile, startBenchServe } from './bench-serve.mjs';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BIN = path.join(ROOT, 'bin', 'shorts');
const SAMPLE = path.join(ROOT, 'assets', 'sample', 'talk.mp4');
const CHROMIUM = '/usr/bin/chromium';
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const WINDOW_S = arg('window', 60);
const LOADS = arg('loads', 10);
const TABS = arg('tabs', 20);
const MODEL = process.env.SHORTS_WHISPER_MODEL ?? path.resolve(ROOT, '..', 'shared', 'models', 'ggml-tiny.en-q8_0.bin');

if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium)`);
if (!existsSync(path.join(ROOT, 'dist', 'studio', 'index.html'))) throw new Error('dist/studio is missing: run `npm run build` first');
if (!existsSync(MODEL)) throw new Error(`no Whisper model at ${MODEL}: set SHORTS_WHISPER_MODEL`);

const files = await serveFile(SAMPLE);
const fileUrl = files.url;

const dirs = [];
const serves = [];
async function startServe(args = []) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-studio-'));
  dirs.push(dir);
  const env = {
    ...process.env, SHORTS_DATA_DIR: dir, SHORTS_ALLOW_PRIVATE_URLS: '1', SHORTS_RENDER_SIZE: '270x480', SHORTS_X264_PRESET: 'ultrafast',
    SHORTS_WHISPER_MODEL: MODEL,
  };
  const s = await startBenchServe(BIN, env, { credits: 1000, args });
  let stopped;
  const serve = { ...s, stop: () => (stopped ??= s.stop()) };
  serves.push(serve);
  return serve;
}

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

class NotReady extends Error {}

/** The server's answers that parts depend on, checked once so a missing piece is named instead of timing out. */
async function prerequisites(s) {
  const missing = {};
  const page = await fetch(`${s.base}/sign-in`, { headers: { accept: 'text/html' } });
  if (!page.ok || !(page.headers.get('content-type') ?? '').startsWith('text/html')) {
    missing.static = `GET /sign-in answered ${page.status} ${page.headers.get('content-type')}: this server does not serve the studio's files (dist/studio) yet`;
  }
  const signIn = await fetch(`${s.base}/studio/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: s.base }, body: JSON.stringify({ apiKey: s.key }) });
  if (!signIn.ok || !/shorts_session=/.test(signIn.headers.get('set-cookie') ?? '')) {
    missing.session = `POST /studio/session answered ${signIn.status} without a shorts_session cookie: no studio sign-in on this server yet`;
  }
  const probe = await fetch(`${s.base}/api/v1/shorts/000000000000000000000000/events`, { headers: { 'x-api-key': s.key } });
  const body = await probe.text();
  if (probe.status === 404 && /no endpoint/.test(body)) missing.events = 'GET /api/v1/shorts/{id}/events is not a route on this server: no live progress yet';
  return missing;
}

function need(missing, ...what) {
  for (const w of what) if (missing[w]) throw new NotReady(missing[w]);
}

async function api(s, method, p, body) {
  const r = await fetch(`${s.base}/api/v1${p}`, { method, headers: { 'x-api-key': s.key, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  const json = await r.json();
  if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(json)}`);
  return json.data;
}

const createRequest = (s, start = 0) =>
  api(s, 'POST', '/shorts/create', { fileUrl, start, end: start + 60, language: 'en', maxShorts: 2, preferredLength: 'under30sec' }).then((d) => d.requestId);

/** A fresh context (phone-less desktop), signed in through the API when asked (the cookie lands in the context). */
async function context(s, signedIn) {
  const ctx = await browser.newContext({ baseURL: s.base, viewport: { width: 1280, height: 800 } });
  if (signedIn) {
    const r = await ctx.request.post('/studio/session', { data: { apiKey: s.key }, headers: { origin: s.base } });
    if (!r.ok()) throw new Error(`sign-in failed: ${r.status()} ${await r.text()}`);
  }
  return ctx;
}

/** GET without decompression: the body's length as the server sends it for that Accept-Encoding. */
function bytesOf(url, encoding, accept) {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { 'accept-encoding': encoding, accept } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ encoding: res.headers['content-encoding'] ?? 'identity', body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

const KINDS = { document: 'HTML', script: 'JS', stylesheet: 'CSS' };

// (a) ------------------------------------------------------------------------------------------------------
async function firstLoad(s, pagePath, signedIn) {
  const ctx = await context(s, signedIn);
  const page = await ctx.newPage();
  const seen = [];
  page.on('requestfinished', (r) => {
    if (KINDS[r.resourceType()]) seen.push({ url: r.url(), kind: KINDS[r.resourceType()], wire: r.sizes().then((z) => z.responseBodySize) });
  });
  // 'load', then a moment for what the first view fetches (networkidle never comes while a view streams events).
  await page.goto(pagePath, { waitUntil: 'load' });
  await page.waitForFunction(() => document.querySelector('h1') !== null, null, { timeout: 15_000 }).catch(() => {});
  await sleep(1500);
  const rows = [];
  for (const f of seen) {
    const accept = f.kind === 'HTML' ? 'text/html' : '*/*';
    const raw = await bytesOf(f.url, 'identity', accept);
    const gz = await bytesOf(f.url, 'gzip', accept);
    const gzBytes = gz.encoding === 'gzip' ? gz.body.length : gzipSync(raw.body, { level: 9 }).length;
    rows.push({ ...f, wire: await f.wire, raw: raw.body.length, gz: gzBytes, computed: gz.encoding !== 'gzip' });
  }
  await ctx.close();
  return rows;
}

// (b) ------------------------------------------------------------------------------------------------------
// Runs before the page's own scripts (a DevTools-injected script: the page's CSP does not apply to it).
const WATCH_INTERACTIVE = `(() => {
  const visible = (el) => !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const ready = () => {
    const h1 = document.querySelector('main h1, h1');
    if (!visible(h1)) return false;
    if (location.pathname !== '/sign-in') return true;
    const form = document.querySelector('form');
    return !!form && !!form.querySelector('input:not([disabled]):not([type=hidden])') && !!form.querySelector('button[type=submit]:not([disabled])');
  };
  const check = () => {
    if (window.__interactiveAt === undefined && ready()) { window.__interactiveAt = performance.now(); observer.disconnect(); }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { subtree: true, childList: true, attributes: true });
})();`;

async function timeToInteractive(s, pagePath, signedIn) {
  const times = [];
  let source = 'observer';
  for (let i = 0; i < LOADS; i++) {
    const ctx = await context(s, signedIn);
    await ctx.addInitScript(WATCH_INTERACTIVE);
    const page = await ctx.newPage();
    await page.goto(pagePath);
    await page.waitForFunction(() => window.__interactiveAt !== undefined || performance.getEntriesByName('studio-interactive').length > 0, null, { timeout: 30_000 })
      .catch(() => { throw new Error(`${pagePath} never became interactive (no visible <h1>${pagePath === '/sign-in' ? ', enabled input and submit button' : ''})`); });
    const t = await page.evaluate(() => {
      const mark = performance.getEntriesByName('studio-interactive')[0];
      return mark ? { at: mark.startTime, source: 'mark' } : { at: window.__interactiveAt, source: 'observer' };
    });
    times.push(t.at);
    source = t.source;
    await ctx.close();
  }
  return { median: percentile(times, 50), min: Math.min(...times), max: Math.max(...times), source };
}

// (c) ------------------------------------------------------------------------------------------------------
/** Reads one event stream with node until `end` (or the stream closes): event counts by type. */
function nodeStream(s, id) {
  const counts = {};
  const done = new Promise((resolve, reject) => {
    http.get(`${s.base}/api/v1/shorts/${id}/events`, { headers: { 'x-api-key': s.key, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`events stream answered ${res.statusCode}`));
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        buf += c;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const ev = /^event: (.+)$/m.exec(block)?.[1] ?? (block.startsWith(':') ? 'ping (comment)' : block.startsWith('retry:') ? null : 'message');
          if (ev) counts[ev] = (counts[ev] ?? 0) + 1;
        }
      });
      res.on('end', () => resolve(counts));
    }).on('error', reject);
  });
  return done;
}

async function eventsPerRequest(s) {
  const t0 = performance.now();
  const id = await createRequest(s);
  const fromNode = nodeStream(s, id);
  const ctx = await context(s, true);
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Network.enable');
  const counts = {};
  let dataBytes = 0;
  let ended;
  const end = new Promise((r) => { ended = r; });
  cdp.on('Network.eventSourceMessageReceived', (e) => {
    counts[e.eventName || 'message'] = (counts[e.eventName || 'message'] ?? 0) + 1;
    dataBytes += Buffer.byteLength(e.data);
    if (e.eventName === 'end') ended();
  });
  const calls = {};
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (!u.pathname.startsWith('/api/') || u.pathname.endsWith('/events')) return;
    const key = `${r.method()} ${u.pathname.replace(/[0-9a-f]{24}/g, '{id}').replace(/\/shorts\/\{id\}\/shorts\/[^/]+/, '/shorts/{id}/shorts/{shortId}')}`;
    calls[key] = (calls[key] ?? 0) + 1;
  });
  await page.goto(`/requests/${id}`);
  for (let t = 0; t < 200 && !Object.keys(counts).length; t++) await sleep(100);
  if (!Object.keys(counts).length) throw new NotReady(`the request view (/requests/${id}) received no server-sent event in 20 s: the view does not watch the request through /events yet`);
  // An unref'd timer: it must not keep the script alive once `end` came.
  await Promise.race([end, sleep(15 * 60_000, undefined, { ref: false }).then(() => { throw new Error('no `end` event in 15 minutes'); })]);
  const seconds = (performance.now() - t0) / 1000;
  const status = await api(s, 'GET', `/shorts/${id}/status`);
  const node = await fromNode;
  await ctx.close();
  return { id, seconds, status: status.status, counts, dataBytes, calls, node };
}

// (d) ------------------------------------------------------------------------------------------------------
const cpuSeconds = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14, 15) in USER_HZ = 100
};

async function cpuWindow(pid) {
  const before = cpuSeconds(pid);
  await sleep(WINDOW_S * 1000);
  return cpuSeconds(pid) - before;
}

// One signed-in browser context per tab: a browser allows 6 HTTP/1.1 connections per host per profile, and
// each visible request view holds one event stream, so 20 tabs of ONE profile would queue their page loads
// behind the first 6 streams (over HTTP/2, behind a TLS proxy, they would share one connection). The server's
// cost per open stream is what is measured here, so each tab is its own profile.
async function openTabs(s, ids) {
  const contexts = [];
  let streams = 0;
  for (const id of ids) {
    const ctx = await context(s, true);
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('request', (r) => { if (r.url().includes('/events')) streams++; });
    await page.goto(`/requests/${id}`);
  }
  for (let t = 0; t < 100 && streams < ids.length; t++) await sleep(100);
  if (streams < ids.length) throw new NotReady(`${ids.length} request views opened ${streams} event streams: the request view does not watch through /events yet`);
  await sleep(2000); // the page loads' own work settles before the window
  return { close: () => Promise.all(contexts.map((c) => c.close())) };
}

async function tabsCost(s, setup) {
  const ids = [];
  for (let i = 0; i < TABS; i++) ids.push(await createRequest(s, i % 20));
  await sleep(2000);
  const live = await Promise.all(ids.map((id) => api(s, 'GET', `/shorts/${id}/status`)));
  const notLive = live.filter((x) => ['completed', 'failed', 'cancelled'].includes(x.status)).length;
  if (notLive) throw new Error(`${notLive} of the requests ended before the window`);
  const idle = [await cpuWindow(s.pid)];
  const ctx = await openTabs(s, ids);
  const tabs = await cpuWindow(s.pid);
  await ctx.close();
  if (setup === 'running') idle.push(await cpuWindow(s.pid));
  const stillLive = (await Promise.all(ids.map((id) => api(s, 'GET', `/shorts/${id}/status`)))).filter((x) => !['completed', 'failed', 'cancelled'].includes(x.status)).length;
  for (const id of ids) await api(s, 'DELETE', `/shorts/${id}`).catch(() => {});
  const base = idle.reduce((a, b) => a + b, 0) / idle.length;
  return { setup, idle, tabs, cost: tabs - base, stillLive };
}

// ----------------------------------------------------------------------------------------------------------
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const failures = [];
const out = [];
const print = (line = '') => { out.push(line); console.log(line); };

try {
  print(`machine: ${os.cpus().length} x ${os.cpus()[0].model}, node ${process.version}, ${browser.version()}, load ${os.loadavg()[0].toFixed(1)}`);
  const s = await startServe();
  const missing = await prerequisites(s);
  for (const m of Object.values(missing)) print(`- not ready: ${m}`);

  print('\n### (a) First-load bytes (HTML, JS, CSS)\n');
  print('| page | files | HTML raw / gz | JS raw / gz | CSS raw / gz | total raw | total gz | received by Chromium |');
  print('|---|---|---|---|---|---|---|---|');
  for (const [p, signedIn] of [['/sign-in', false], ['/', true]]) {
    try {
      need(missing, 'static', ...(signedIn ? ['session'] : []));
      const rows = await firstLoad(s, p, signedIn);
      const sum = (k, key) => rows.filter((r) => !k || r.kind === k).reduce((a, r) => a + r[key], 0);
      const cell = (k) => `${kb(sum(k, 'raw'))} / ${kb(sum(k, 'gz'))}${rows.some((r) => r.kind === k && r.computed) ? '*' : ''}`;
      print(`| ${p}${signedIn ? ' (signed in)' : ''} | ${rows.length} | ${cell('HTML')} | ${cell('JS')} | ${cell('CSS')} | ${kb(sum(null, 'raw'))} | ${kb(sum(null, 'gz'))} | ${kb(sum(null, 'wire'))} |`);
      for (const r of rows) console.error(`    ${p}: ${r.kind} ${new URL(r.url).pathname} raw ${r.raw} gz ${r.gz}${r.computed ? '*' : ''} received ${r.wire}`);
    } catch (e) {
      failures.push(`(a) ${p}: ${e.message}`);
      print(`| ${p} | not measured: ${e.message} |`);
    }
  }

  print(`\n### (b) Time to interactive, median of ${LOADS} cold loads (fresh context each)\n`);
  print('| page | until | median ms | min ms | max ms |');
  print('|---|---|---|---|---|');
  for (const [p, signedIn] of [['/sign-in', false], ['/', true]]) {
    try {
      need(missing, 'static', ...(signedIn ? ['session'] : []));
      const t = await timeToInteractive(s, p, signedIn);
      const until = t.source === 'mark' ? "performance.mark('studio-interactive')" : p === '/sign-in' ? '<h1> visible, input and submit enabled' : '<h1> visible (signed in)';
      print(`| ${p} | ${until} | ${t.median.toFixed(0)} | ${t.min.toFixed(0)} | ${t.max.toFixed(0)} |`);
    } catch (e) {
      failures.push(`(b) ${p}: ${e.message}`);
      print(`| ${p} | not measured: ${e.message} |`);
    }
  }

  print('\n### (c) Events per request (request view, creation to `end`)\n');
  try {
    need(missing, 'static', 'session', 'events');
    const r = await eventsPerRequest(s);
    const list = (o) => Object.entries(o).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
    print('| request | ended | seconds | events received by the page | data bytes | other API calls of the view | node stream, same request |');
    print('|---|---|---|---|---|---|---|');
    print(`| ${r.id} | ${r.status} | ${r.seconds.toFixed(0)} | ${list(r.counts)} | ${r.dataBytes} | ${list(r.calls)} | ${list(r.node)} |`);
  } catch (e) {
    failures.push(`(c): ${e.message}`);
    print(`not measured: ${e.message}`);
  }
  await s.stop();

  print(`\n### (d) Server CPU of ${TABS} open request views (${WINDOW_S} s windows; serve's own utime+stime)\n`);
  print('| setup | no tabs, CPU s | tabs, CPU s | tabs\' cost, CPU s per window | % of one core | requests still live after |');
  print('|---|---|---|---|---|---|');
  for (const setup of ['queued', 'running']) {
    let srv;
    try {
      need(missing, 'static', 'session', 'events');
      srv = await startServe(setup === 'queued' ? ['--workers', '0'] : []);
      const r = await tabsCost(srv, setup);
      print(`| ${setup} | ${r.idle.map((x) => x.toFixed(2)).join(' / ')} | ${r.tabs.toFixed(2)} | ${r.cost.toFixed(2)} | ${(100 * r.cost / WINDOW_S).toFixed(1)} % | ${r.stillLive} of ${TABS} |`);
    } catch (e) {
      failures.push(`(d) ${setup}: ${e.message}`);
      print(`| ${setup} | not measured: ${e.message} |`);
    } finally {
      await srv?.stop();
    }
  }
} finally {
  await browser.close();
  for (const s of serves) await s.stop().catch(() => {});
  files.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
if (failures.length) {
  console.error(`\n${failures.length} part(s) not measured:\n- ${failures.join('\n- ')}`);
  process.exitCode = 1;
}
