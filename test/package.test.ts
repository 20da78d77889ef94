// The package as a user gets it: `npm pack` -> install the tarball into an empty folder -> `npx shorts
// --help`, an ESM script that imports the library and talks to a real `serve`, and a TypeScript file
// type-checked against the installed declarations. Offline: nothing but the npm cache that `npm ci` filled.
//
// How the install stays offline and quick, and why that is sound for what this tests (the package's
// surface: its files, bin, exports and types):
// - The consumer gets a lockfile made from this repository's: the tarball plus every non-dev entry, each
//   with its registry tarball URL and integrity. `npm ci --offline` then needs no packument (a fresh
//   `npm install <tarball>` would resolve every range against the registry's metadata, which the cache
//   does not hold) and installs exactly the versions CI's `npm ci` cached.
// - `--ignore-scripts`: dependency install scripts would reach the network (better-sqlite3's
//   prebuild-install downloads a binary, else compiles for minutes) and ours would build whisper.cpp
//   (minutes). So the installed
//   better-sqlite3 has no native binding: local mode is not exercised here (test/library.test.ts runs
//   it from this checkout); the script drives a `serve` started from this checkout instead.
// - `npm pack --ignore-scripts`: `prepare` would rebuild dist and whisper.cpp; `npm test`'s pretest
//   has just built dist, which is what gets packed.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';
import { createKey, serveEnv, startServe, type ServeProcess } from './helpers/serve.js';

interface Run { code: number | null; stdout: string; stderr: string; ms: number }

function run(command: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Run> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 150_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

function ok(r: Run, what: string): Run {
  if (r.code !== 0) throw new Error(`${what} exited with ${r.code}:\n${r.stderr.slice(-3000)}\n${r.stdout.slice(-2000)}`);
  return r;
}

interface LockEntry { version: string; name?: string; resolved?: string; dev?: boolean; link?: boolean; [k: string]: unknown }

/** The consumer's lockfile: the tarball, and every dependency exactly as this repository's lock pins it. */
function consumerLock(tarball: string, registry: string): object {
  const repoLock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  const base = registry.replace(/\/?$/, '/');
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', version: '1.0.0', dependencies: { shortwright: `file:${tarball}` } },
    'node_modules/shortwright': {
      version: pkg.version, resolved: `file:${tarball}`, license: pkg.license, dependencies: pkg.dependencies,
      bin: pkg.bin, engines: pkg.engines, hasInstallScript: true,
    },
  };
  for (const [where, entry] of Object.entries(repoLock.packages)) {
    if (where === '' || entry.dev || entry.link) continue;
    // The repo's .npmrc omits `resolved` for registry packages; the URL is the registry's usual one.
    const name = entry.name ?? where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
    packages[where] = { ...entry, resolved: entry.resolved ?? `${base}${name}/-/${name.split('/').pop()}-${entry.version}.tgz` };
  }
  return { name: 'consumer', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

// What a user's program does with the library; prints one JSON line for the test to read.
const LIBRARY_SCRIPT = `
import { createRequire } from 'node:module';
import {
  createClient, LocalClient, RemoteClient, ShortsError, ERROR_CODES, verifyWebhook, signWebhook, paginate, pages,
} from 'shortwright';

const [api, key] = process.argv.slice(2);
const out = { version: createRequire(import.meta.url)('shortwright/package.json').version };
out.exports = { createClient: typeof createClient, LocalClient: typeof LocalClient, paginate: typeof paginate, pages: typeof pages, codes: Object.keys(ERROR_CODES).length };

const client = createClient({ baseUrl: api, apiKey: key, pollIntervalMs: 50 });
out.isRemote = client instanceof RemoteClient && client.mode === 'remote';
const t = await client.templates();
out.templates = { count: t.templates.length, defaultTemplateId: t.defaultTemplateId };
const listed = [];
for await (const r of paginate(client, 'list', { limit: 5 })) listed.push(r.requestId);
out.listed = listed.length;
const music = [];
for await (const m of paginate(client, 'music', { limit: 2 })) music.push(m.name);
out.music = music.length;
client.close();

const wrong = createClient({ baseUrl: api, apiKey: 'sk_live_' + '0'.repeat(48) });
try {
  await wrong.templates();
  out.wrongKey = 'accepted';
} catch (e) {
  out.wrongKey = { shortsError: e instanceof ShortsError, code: e.code, httpStatus: e.httpStatus };
}
wrong.close();
try {
  createClient({ baseUrl: api });
  out.noKey = 'accepted';
} catch (e) {
  out.noKey = { shortsError: e instanceof ShortsError, code: e.code };
}

const secret = 'whsec_' + Buffer.from('a receiver secret of 32 bytes!!!').toString('base64');
const body = JSON.stringify({ event: 'shorts.completed', requestId: 'a'.repeat(24) });
const ts = Math.floor(Date.now() / 1000);
const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': signWebhook(secret, 'msg_1', ts, body) };
out.webhook = { valid: verifyWebhook(secret, headers, body), tampered: verifyWebhook(secret, headers, body.replace('completed', 'failed')) };

try {
  await import('shortwright/dist/cli/main.js');
  out.deepImport = 'allowed';
} catch (e) {
  out.deepImport = e.code;
}
console.log(JSON.stringify(out));
`;

// A consumer's TypeScript: what must type-check, and what must not (@ts-expect-error fails the build
// if the line it covers compiles).
const CONSUMER_TS = `
import {
  createClient, LocalClient, RemoteClient, ShortsError, verifyWebhook, paginate, pages,
  type ErrorCode, type RequestListItem, type StatusResponse, type TemplateList, type WebhookEvent, type MusicTrackItem,
} from 'shortwright';

const remote: RemoteClient = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'sk_live_x' });
const local: LocalClient = createClient({ dataDir: '/tmp/shorts' });
const either = createClient();

export async function use(): Promise<void> {
  const s: StatusResponse = await remote.wait('id', { onStatus: (st) => void st.progress });
  const t: TemplateList = await either.templates();
  for await (const r of paginate(remote, 'list', { status: 'completed', limit: 50 })) {
    const item: RequestListItem = r;
    void item.requestId;
  }
  for await (const page of pages(local, 'music', { limit: 10 })) {
    const first: MusicTrackItem | undefined = page.items[0];
    void first?.name;
  }
  try {
    await remote.get('x');
  } catch (e) {
    if (e instanceof ShortsError) {
      const code: ErrorCode = e.code;
      const status: number = e.httpStatus;
      void code; void status;
    }
  }
  const valid: boolean = verifyWebhook('whsec_x', new Headers(), '{}');
  const event = JSON.parse('{}') as WebhookEvent;
  void s; void t; void valid; void event.requestId;
}

// @ts-expect-error a remote needs an apiKey
createClient({ baseUrl: 'http://127.0.0.1:8080' });
// @ts-expect-error not a paginated method
paginate(remote, 'templates');
// @ts-expect-error not one of the spec's codes
const bad: ErrorCode = 'teapot';
void bad;
// The create body is typed from the option table: only fileUrl/start/end needed, fields and values checked.
void remote.create({ fileUrl: 'https://example.com/v.mp4', start: 0, end: 300 });
void remote.create({ fileUrl: 'https://example.com/v.mp4', start: 0, end: 300, layout: 'fit', maxShorts: null, captionsEnabled: false });
// @ts-expect-error not a layout
void remote.create({ fileUrl: 'https://example.com/v.mp4', start: 0, end: 300, layout: 'stretch' });
// @ts-expect-error not a create field
void remote.create({ fileUrl: 'https://example.com/v.mp4', start: 0, end: 300, maxClips: 3 });
`;

describe('the packed package, installed into an empty folder offline', () => {
  let tmp: string;
  let app: string;
  let tarball: string;
  let files: string[];
  let serve: ServeProcess;
  let key: string;
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'shorts-package-'));
    app = path.join(tmp, 'app');
    mkdirSync(app);
    serve = await startServe(serveEnv());
    key = (await createKey(serve.env)).key;

    const packed = ok(await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], { cwd: ROOT }), 'npm pack');
    timings.pack = packed.ms;
    const info = (JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[])[0]!;
    tarball = path.join(tmp, info.filename);
    files = info.files.map((f) => f.path);

    const registry = ok(await run('npm', ['config', 'get', 'registry'], { cwd: app }), 'npm config').stdout.trim();
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({
      name: 'consumer', version: '1.0.0', private: true, type: 'module', dependencies: { shortwright: `file:${tarball}` },
    }));
    writeFileSync(path.join(app, 'package-lock.json'), JSON.stringify(consumerLock(tarball, registry)));
    const install = ok(await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app }), 'npm ci --offline');
    timings.install = install.ms;
  }, 300_000);

  afterAll(async () => {
    await serve?.kill();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    // The cost of this file, for whoever wonders why CI got slower (stderr, not an assertion).
    process.stderr.write(`package.test timings (ms): ${JSON.stringify(timings)}\n`);
  });

  it('ships what runs and nothing of the repository around it', () => {
    for (const f of ['bin/shorts', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'scripts/build-whisper.mjs',
      'CHANGELOG.md', 'README.md', 'LICENSE', 'package.json']) expect(files, f).toContain(f);
    expect(files.some((f) => f.startsWith('assets/catalog/'))).toBe(true);
    // The web studio is built into the package (issue 25): `shorts serve` and `shorts studio` serve it, users never run Vite.
    expect(files).toContain('dist/studio/index.html');
    expect(files.some((f) => /^dist\/studio\/studio-assets\/index-[\w-]+\.js$/.test(f))).toBe(true);
    expect(files.some((f) => f.startsWith('assets/models/'))).toBe(true);
    expect(files.filter((f) => /^(test|src|docs|\.ci)\//.test(f) || /\.test\.|node_modules/.test(f))).toEqual([]);
    // Only the whisper build script is needed after install; benchmarks and evals need the repository.
    expect(files.filter((f) => f.startsWith('scripts/'))).toEqual(['scripts/build-whisper.mjs']);
    expect(files.filter((f) => f.startsWith('assets/sample/'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(path.join(app, 'node_modules', 'shortwright', 'package.json'), 'utf8'));
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
    expect(manifest.dependencies['fluent-ffmpeg']).toBeUndefined();
  });

  it('engines.node is true of every installed dependency', () => {
    // semver comes with the install (conf depends on it).
    const semver = createRequire(path.join(app, 'package.json'))('semver') as { satisfies(v: string, range: string): boolean };
    const ours = (JSON.parse(readFileSync(path.join(app, 'node_modules', 'shortwright', 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    // The first release of each line from 20 on, the first 20.x the dependencies accept, and this Node.
    const admitted = ['20.0.0', '20.5.0', '21.0.0', '22.0.0', '23.0.0', '24.0.0', '25.0.0', process.versions.node]
      .filter((v) => semver.satisfies(v, ours));
    expect(admitted).toContain(process.versions.node);
    const refused: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        if (name.startsWith('.')) continue;
        if (name.startsWith('@')) { walk(path.join(dir, name)); continue; }
        const pkgDir = path.join(dir, name);
        const manifestFile = path.join(pkgDir, 'package.json');
        if (!existsSync(manifestFile)) continue;
        const m = JSON.parse(readFileSync(manifestFile, 'utf8')) as { name: string; version: string; engines?: { node?: string } };
        const range = m.engines?.node;
        for (const v of range ? admitted : []) if (!semver.satisfies(v, range!)) refused.push(`${m.name}@${m.version} wants node ${range}, not ${v}`);
        if (existsSync(path.join(pkgDir, 'node_modules'))) walk(path.join(pkgDir, 'node_modules'));
      }
    };
    walk(path.join(app, 'node_modules'));
    expect(refused, `package.json says node ${ours}`).toEqual([]);
  });

  it('`npx shorts --help` runs the installed CLI', async () => {
    const r = ok(await run('npx', ['--no-install', 'shorts', '--help'], { cwd: app }), 'npx shorts --help');
    timings.help = r.ms;
    expect(r.stdout).toMatch(/^Usage: shorts /);
    for (const sub of ['create', 'status', 'list', 'serve', 'keys']) expect(r.stdout).toContain(`  ${sub}`);
  });

  it('an ESM script imports the library and drives a real serve with it', async () => {
    writeFileSync(path.join(app, 'library.mjs'), LIBRARY_SCRIPT);
    const r = ok(await run(process.execPath, ['library.mjs', serve.api, key], { cwd: app }), 'library.mjs');
    timings.script = r.ms;
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(out.version).toBe(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
    expect(out.exports).toEqual({ createClient: 'function', LocalClient: 'function', paginate: 'function', pages: 'function', codes: expect.any(Number) });
    expect(out.isRemote).toBe(true);
    expect(out.templates.count).toBeGreaterThan(0);
    expect(out.templates.defaultTemplateId).toMatch(/^[0-9a-f]{24}$/);
    expect(out.listed).toBe(0);
    expect(out.music).toBeGreaterThan(2);
    expect(out.wrongKey).toEqual({ shortsError: true, code: 'invalid_api_key', httpStatus: 401 });
    expect(out.noKey).toEqual({ shortsError: true, code: 'missing_api_key' });
    expect(out.webhook).toEqual({ valid: true, tampered: false });
    // Only the entry point is public; the CLI's modules are not an API.
    expect(out.deepImport).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('importing the library starts nothing: no CLI parse, no output, no files, no open handles', async () => {
    const home = path.join(tmp, 'home');
    mkdirSync(home);
    writeFileSync(path.join(app, 'import-only.mjs'), "await import('shortwright');\n");
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local') };
    // CLI-looking arguments: a library that parsed argv would print help or start a server.
    const r = await run(process.execPath, ['import-only.mjs', 'serve', '--help'], { cwd: app, env, timeoutMs: 20_000 });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(readdirSync(home)).toEqual([]);
  });

  it('a TypeScript consumer type-checks against the installed declarations (strict, no skipLibCheck)', async () => {
    writeFileSync(path.join(app, 'consumer.ts'), CONSUMER_TS);
    writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true,
        skipLibCheck: false, types: ['node'],
      },
      files: ['consumer.ts'],
    }));
    // This checkout's TypeScript: the consumer installed only the package (its @types come with it).
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app });
    timings.tsc = r.ms;
    expect(r.stdout + r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
