// The studio's browser tests drive Debian's Chromium (/usr/bin/chromium, the `chromium` apt package that
// .ci/run installs) through playwright-core: no browser download, the same engine in CI and here.
// A watched page records what a user never sees but a broken page shows (console errors, uncaught errors,
// failed requests, 4xx/5xx answers), so a test can say "and nothing went wrong on the way".
import { existsSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { ROOT } from './cli.js';

export const CHROMIUM = '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the studio's browser tests need Debian's chromium package ` +
      '(`apt-get install chromium`, as .ci/run does)');
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** A phone the studio must work on: 390 px wide (an iPhone 12-15), retina, touch. */
export const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
export const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 };

/** A fresh context (own cookies: one signed-in user each) whose relative URLs resolve against baseURL. */
export function phone(browser: Browser, baseURL: string): Promise<BrowserContext> {
  return browser.newContext({ ...PHONE, baseURL });
}
export function desktop(browser: Browser, baseURL: string): Promise<BrowserContext> {
  return browser.newContext({ ...DESKTOP, baseURL });
}

export interface WatchedPage {
  page: Page;
  /** console.error and uncaught exceptions, each with where it came from. */
  consoleErrors: string[];
  /** Requests that got no answer (refused, blocked by CSP, DNS...); a request aborted by navigating away is not one. */
  failedRequests: string[];
  /** Answers 400 and above, as `STATUS METHOD path`. */
  httpErrors: string[];
  /** Everything above except the answers `allow` matches (e.g. [/^401 GET \/studio\/session$/] before signing in). */
  problems(allow?: RegExp[]): string[];
}

/**
 * A new page in `context` that records its problems. Chromium also logs every 4xx/5xx answer to a fetch as
 * a console error ("Failed to load resource: …"); those go to httpErrors (with the path), not consoleErrors,
 * so an expected 401 (GET /studio/session when signed out) can be allowed without hiding real errors.
 */
export async function watchedPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  const failedRequests: string[] = [];
  const httpErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() !== 'error' || m.text().startsWith('Failed to load resource: the server responded with a status of')) return;
    const at = m.location().url ? ` (${m.location().url}:${m.location().lineNumber})` : '';
    consoleErrors.push(`${m.text()}${at}`);
  });
  page.on('pageerror', (e) => consoleErrors.push(`uncaught: ${e.stack ?? e.message}`));
  page.on('requestfailed', (r) => {
    const why = r.failure()?.errorText ?? 'failed';
    if (why !== 'net::ERR_ABORTED') failedRequests.push(`${r.method()} ${pathOf(r.url())}: ${why}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) httpErrors.push(`${r.status()} ${r.request().method()} ${pathOf(r.url())}`);
  });
  return {
    page, consoleErrors, failedRequests, httpErrors,
    problems: (allow = []) => [...consoleErrors, ...failedRequests, ...httpErrors.filter((h) => !allow.some((a) => a.test(h)))],
  };
}

function pathOf(url: string): string {
  const u = new URL(url);
  return u.origin === 'null' ? url : `${u.pathname}${u.search}`;
}

const require = createRequire(import.meta.url);
let axeSource: Promise<string> | undefined;

export interface AxeViolation { id: string; impact: string; help: string; targets: string[] }

/**
 * The page's serious and critical accessibility violations (axe-core's WCAG 2.x A/AA rules and best
 * practices), as readable lines for an assertion message. axe is evaluated through the DevTools protocol,
 * not as a <script>, so the studio's CSP (script-src 'self') stays on and is tested too.
 */
export async function axeSerious(page: Page): Promise<string[]> {
  axeSource ??= readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  const source = await axeSource;
  const violations = await page.evaluate(async (src) => {
    const w = window as unknown as { axe?: { run: (ctx: Document, o: object) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } };
    if (!w.axe) (0, eval)(src);
    const result = await w.axe!.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact ?? 'unknown', help: v.help, targets: v.nodes.map((n) => n.target.map(String).join(' ')) }));
  }, source);
  return (violations as AxeViolation[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.targets.slice(0, 5).join(', ')}${v.targets.length > 5 ? ` and ${v.targets.length - 5} more` : ''}`);
}

/**
 * Saves a screenshot to docs/studio/<name>.png only under SHORTS_SCREENSHOTS=1 (`npm run screenshots`), so
 * `npm test` never rewrites the docs. `fullPage: false` keeps to the viewport (a long form of thumbnails would
 * weigh a megabyte). Returns the file written, or null.
 */
export async function screenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<string | null> {
  if (process.env.SHORTS_SCREENSHOTS !== '1') return null;
  const dir = path.join(ROOT, 'docs', 'studio');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  const fullPage = opts.fullPage ?? true;
  // A full-page capture keeps the layout viewport, so a sticky bottom bar (the editor's) would be drawn across
  // the middle of the page: the viewport grows to the page's height for the shot instead.
  const viewport = page.viewportSize();
  if (fullPage && viewport) {
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: viewport.width, height: Math.max(height, viewport.height) });
  }
  // One image pixel per CSS pixel: a retina phone's shot is a quarter of the bytes and reads the same in docs.
  await page.screenshot({ path: file, fullPage, animations: 'disabled', scale: 'css' });
  if (fullPage && viewport) await page.setViewportSize(viewport);
  return file;
}
