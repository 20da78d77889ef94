// The job queue port's conformance suite against today's adapter: a `jobs` table in the job store's SQLite file
// (a second instance: another connection to the same file, as another process would have), and real processes
// racing for the jobs of one data dir (they load the built adapter from dist/: build first).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SqliteJobQueue } from '../src/adapters/sqlite/job-queue.js';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { jobQueueConformance } from './conformance/job-queue.js';
import { ROOT } from './helpers/cli.js';
import { sqliteHarness } from './helpers/sqlite-harness.js';

jobQueueConformance('SQLite', (retention) => sqliteHarness((db) => new SqliteJobQueue(db, retention)), { hearsOtherInstances: false });

describe('SQLite job queue across processes', () => {
  it('of several processes taking from one data dir at the same instant, each job goes to exactly one', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'queue-procs-'));
    const file = path.join(dir, 'shorts.db');
    const store = new SqliteRequestStore(file);
    const queue = new SqliteJobQueue(store.db);
    const ids = Array.from({ length: 30 }, (_, i) => `job-${i}`);
    for (const id of ids) await queue.enqueue({ queue: 'race', id, data: {} });
    store.close();
    const dist = (p: string) => JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'adapters', 'sqlite', p)).href);
    const at = Date.now() + 2500;
    const script = `const { SqliteRequestStore } = await import(${dist('request-store.js')});
      const { SqliteJobQueue } = await import(${dist('job-queue.js')});
      const store = new SqliteRequestStore(${JSON.stringify(file)});
      const queue = new SqliteJobQueue(store.db);
      while (Date.now() < ${at}) await new Promise((r) => setTimeout(r, 1));
      const got = [];
      for (let job = await queue.take(['race'], 'p' + process.pid, 60000); job; job = await queue.take(['race'], 'p' + process.pid, 60000)) got.push(job.id);
      process.stdout.write(JSON.stringify(got));`;
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => new Promise<string[]>((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '', err = '';
      child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
      child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(err))));
    })));
    expect(outcomes.flat().sort()).toEqual([...ids].sort());
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
