#!/usr/bin/env node
// Issue 25: which small framework the studio is built with, chosen by measured bundle size. Builds the same
// tiny app (scripts/studio-framework-size/: a router with 3 routes, a form with 5 controlled inputs, a list of
// 1,000 rows with a filter, one fetch call) with Vite 8 three times — Preact 10 + preact-iso, Svelte 5 +
// sv-router, Solid + @solidjs/router — and again with the same 15-line router (common.js) in place of each
// router library, then prints the JS each ships: raw, minified+gzip (level 9, as the studio's build
// precompresses) and brotli (quality 11).
// Each build is then opened in Chromium (/usr/bin/chromium through the repo's playwright-core) and driven the
// same way — filter the list, fill and save the form, fetch, back — so the six builds are shown to do the same
// thing; the bytes counted are the JS the page loads (index.html's script and modulepreload files; a chunk
// nothing loads, like sv-router's dev-only route validator that Rolldown still emits, is listed apart).
// It installs the pinned versions (scripts/studio-framework-size/package.json) from the npm registry into a
// temp dir, so it needs the network and is NOT part of `npm test`.
// Run: `node scripts/studio-framework-size.mjs` (FWSIZE_DIR=<dir> reuses an installed dir; --keep keeps the temp dir).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), 'studio-framework-size');
const APPS = [
  { name: 'preact', label: 'Preact', packages: ['preact', 'preact-iso', '@preact/preset-vite'], router: 'preact-iso' },
  { name: 'svelte', label: 'Svelte', packages: ['svelte', 'sv-router', '@sveltejs/vite-plugin-svelte'], router: 'sv-router' },
  { name: 'solid', label: 'Solid', packages: ['solid-js', '@solidjs/router', 'vite-plugin-solid'], router: '@solidjs/router' },
];

const reuse = process.env.FWSIZE_DIR;
const dir = reuse ?? mkdtempSync(path.join(os.tmpdir(), 'studio-fwsize-'));
const run = (cmd, args, env = {}) => execFileSync(cmd, args, { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });

let browser;
/** Serves a build (index.html for any path without a file; /api/v1/healthz answers ok) and checks in Chromium that it works. */
async function drive(out, label) {
  const { chromium } = await import('playwright-core');
  browser ??= await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  const server = http.createServer((req, res) => {
    if (req.url === '/api/v1/healthz') return res.end('ok');
    const file = path.join(out, req.url.split('?')[0]);
    const found = file.startsWith(out) && existsSync(file) && statSync(file).isFile();
    res.writeHead(200, { 'content-type': found && file.endsWith('.js') ? 'text/javascript' : 'text/html' });
    res.end(readFileSync(found ? file : path.join(out, 'index.html')));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  try {
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.getByText('1000 rows').waitFor({ timeout: 5000 });
    await page.getByLabel('Filter').fill('completed');
    await page.getByText('333 rows').waitFor({ timeout: 5000 });
    if ((await page.locator('li').count()) !== 333) throw new Error('the filtered list does not show 333 rows');
    await page.getByRole('link', { name: 'New' }).click();
    await page.getByLabel('Name').fill('clip');
    await page.getByLabel('Email').fill('a@b.c');
    await page.getByLabel('Clips').fill('5');
    await page.getByLabel('Layout').selectOption('split');
    await page.getByLabel('Captions').uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    const saved = JSON.parse(await page.locator('output').textContent({ timeout: 5000 }));
    const want = { name: 'clip', email: 'a@b.c', count: 5, layout: 'split', captions: false };
    if (JSON.stringify(saved) !== JSON.stringify(want)) throw new Error(`the form saved ${JSON.stringify(saved)}`);
    await page.getByRole('link', { name: 'Status' }).click();
    await page.getByText('200 ok').waitFor({ timeout: 5000 });
    await page.goBack();
    await page.getByRole('heading', { name: 'New' }).waitFor({ timeout: 5000 });
    if (errors.length) throw new Error(errors.join('; '));
  } catch (e) {
    throw new Error(`${label} does not behave like the others: ${e.message}`);
  } finally {
    await page.close();
    server.close();
  }
}

try {
  cpSync(SRC, dir, { recursive: true, filter: (p) => !/node_modules|dist-/.test(path.relative(SRC, p)) });
  if (!existsSync(path.join(dir, 'node_modules', '.package-lock.json'))) run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error']);
  const version = (p) => JSON.parse(readFileSync(path.join(dir, 'node_modules', p, 'package.json'), 'utf8')).version;

  const rows = [];
  for (const app of APPS) {
    for (const router of ['lib', 'bare']) {
      run(process.execPath, [path.join(dir, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', path.join(app.name, 'vite.config.js')], { ROUTER: router });
      const out = path.join(dir, app.name, `dist-${router}`);
      const walk = (d) => readdirSync(d).flatMap((f) => (statSync(path.join(d, f)).isDirectory() ? walk(path.join(d, f)) : [path.join(d, f)]));
      const html = readFileSync(path.join(out, 'index.html'), 'utf8');
      const js = [...html.matchAll(/(?:src|href)="\/([^"]+\.js)"/g)].map((m) => path.join(out, m[1]));
      const unloaded = walk(out).filter((f) => f.endsWith('.js') && !js.includes(f)).map((f) => path.basename(f));
      await drive(out, `${app.label} (${router})`);
      let raw = 0, gz = 0, br = 0;
      for (const f of js) {
        const bytes = readFileSync(f);
        raw += bytes.length;
        gz += gzipSync(bytes, { level: 9 }).length;
        br += brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
      }
      rows.push({ app, router: router === 'lib' ? app.router : 'common.js (15 lines)', files: js.length, raw, gz, br, unloaded });
    }
  }

  const kb = (n) => `${n.toLocaleString('en-US')} B`;
  console.log(`\nvite ${version('vite')}, node ${process.version}; versions: ${APPS.flatMap((a) => a.packages.map((p) => `${p} ${version(p)}`)).join(', ')}\n`);
  console.log('| framework | router | JS files | minified | min+gzip -9 | min+brotli 11 |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.app.label} | ${r.router} | ${r.files} | ${kb(r.raw)} | ${kb(r.gz)} | ${kb(r.br)} |`);
  for (const r of rows) if (r.unloaded.length) console.log(`\n${r.app.label} with ${r.router} also emits ${r.unloaded.join(', ')}, which the page never loads (not counted).`);
} finally {
  await browser?.close();
  if (!reuse && !process.argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  else console.log(`\nbuilt apps kept in ${dir}`);
}
