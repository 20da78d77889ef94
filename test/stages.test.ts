// The stage table (issue 22 point 5): the orchestrator walks fetch -> transcribe -> analyze -> render and
// runs each under its retry policy. Real failures only: a loopback file server that answers 503 before it
// serves the file, one that answers 404, and a child process killed by SIGKILL from outside (what the OOM
// killer does).
import { createLocalMediaRunner } from '../src/media/local-runner.js';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { Orchestrator } from '../src/engine/orchestrator.js';
import { renderSettingsFromEnv } from '../src/engine/render-settings.js';
import { REQUEST_STAGES, STAGES, withRetry } from '../src/engine/stages.js';
import { ProcessError, runProcess } from '../src/media/process.js';
import { createTranscriber } from '../src/pipeline/transcribe/transcribe.js';
import { validateCreateRequest } from '../src/service/create-request.js';
import { DEFAULT_TEMPLATE } from '../src/catalog/templates.js';
import { SAMPLE } from './helpers/cli.js';
import { seed, warmCache } from './helpers/seeded-cache.js';
import { fileHandler, loopback, type Loopback } from './helpers/serve.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';

describe('the stage table', () => {
  it('lists the request stages in order, each on its spec step and progress span', () => {
    expect(REQUEST_STAGES.map((s) => [s.name, s.step, s.progress.from, s.progress.from + s.progress.span])).toEqual([
      ['fetch', 'fetching_video', 20, 40], ['transcribe', 'transcribing_audio', 40, 60],
      ['analyze', 'finding_highlights', 60, 80], ['render', 'finalizing', 80, 100],
    ]);
    // The policies webhooks and posts run by (spec 6 and 7.3).
    expect(STAGES.notify.retry.attempts).toBe(3);
    expect(STAGES.publish.retry).toMatchObject({ attempts: 3, backoffMs: [60_000, 300_000] });
  });

  it('retries a run whose child process was killed by SIGKILL from outside, and not one that failed', async () => {
    const signal = new AbortController().signal;
    let runs = 0;
    // The shell kills itself as the OOM killer would: nobody here aborted it.
    const out = await withRetry(STAGES.transcribe.retry, async () => {
      runs++;
      return (await runProcess('sh', ['-c', runs === 1 ? 'kill -9 $$' : 'echo ok'])).stdout.trim();
    }, { signal });
    expect([out, runs]).toEqual(['ok', 2]);

    runs = 0;
    const failed = await withRetry(STAGES.transcribe.retry, async () => {
      runs++;
      return runProcess('sh', ['-c', 'echo broken >&2; exit 3']);
    }, { signal }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ProcessError);
    expect(runs).toBe(1);
  });
});

describe('the fetch stage under its retry policy (a real request)', () => {
  let files: Loopback;
  let answers: number[] = [];
  let warm: string;

  beforeAll(async () => {
    warm = await warmCache();
    // Each GET takes the next scripted status; past the script, the file is served.
    files = await loopback((req, res) => {
      const status = answers.shift();
      if (status !== undefined) { res.writeHead(status).end(); return; }
      fileHandler(SAMPLE)(req, res);
    });
  });
  afterAll(async () => { await files?.close(); });

  /** Runs one request for the sample talk's first minute from the loopback server; the seeded transcript skips whisper. */
  async function runRequest(name: string) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'stages-'));
    seed(dataDir, warm);
    const store = new SqliteRequestStore(path.join(dataDir, 'shorts.db'));
    const orchestrator = new Orchestrator({
      store, blobs: new FsBlobStore(dataDir), media: createLocalMediaRunner(), transcriber: createTranscriber({ dataDir }), dataDir,
      render: renderSettingsFromEnv({ ...process.env, SHORTS_RENDER_SIZE: '270x480', SHORTS_X264_PRESET: 'ultrafast' }),
    });
    const options = validateCreateRequest({
      fileUrl: `${files.url}/${name}`, start: 0, end: 60, language: 'en', maxShorts: 1, preferredLength: 'under30sec', layout: 'fit',
      blurBackground: false, captionsEnabled: false,
    }, { allowLocalFile: false, templateExists: () => true, defaultTemplateId: DEFAULT_TEMPLATE.templateId, supportedFeatures: new Set() });
    const id = name.replace(/\W/g, '').padEnd(24, '0').slice(0, 24);
    store.insertRequest({ id, accountId: 'acc', origin: 'api', userEmail: 'a@b.c', options, url: `${files.url}/${name}`, start: 0, end: 60 });
    const before = files.requests.length;
    const done = await orchestrator.run(id, new AbortController().signal);
    const gets = files.requests.slice(before).filter((r) => r.method === 'GET').length;
    const shorts = await store.listShorts(id);
    await store.close();
    return { done, gets, shorts };
  }

  it('a file URL that answers 503 twice and then serves the file: the request completes after 3 GETs', async () => {
    answers = [503, 503];
    const { done, gets, shorts } = await runRequest('flaky.mp4');
    expect(done).toMatchObject({ status: 'completed', failureReason: null });
    expect(gets).toBe(3);
    expect(shorts.length).toBe(1);
  });

  it('a 404 fails at once with the reason it has always had, after 1 GET', async () => {
    answers = [404];
    const { done, gets } = await runRequest('missing.mp4');
    expect(done).toMatchObject({ status: 'failed', failureReason: 'the file URL answered HTTP 404 Not Found' });
    expect(gets).toBe(1);
  });

  it('a file URL that keeps answering 503 fails after 3 GETs with the last answer as its reason', async () => {
    answers = [503, 503, 503];
    const { done, gets } = await runRequest('down.mp4');
    expect(done).toMatchObject({ status: 'failed', failureReason: 'the file URL answered HTTP 503 Service Unavailable' });
    expect(gets).toBe(3);
  });
});
