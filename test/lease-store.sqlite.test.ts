// The LeaseStore conformance suite against today's adapter (a `leases` table in the job store's SQLite file),
// plus what only a real file can show: processes on separate connections racing for one key.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JobStore } from '../src/engine/job-store.js';
import { SqliteLeaseStore } from '../src/adapters/sqlite/lease-store.js';
import { leaseStoreConformance } from './conformance/lease-store.js';
import { ROOT } from './helpers/cli.js';

leaseStoreConformance('SQLite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shorts-leases-'));
  const store = new JobStore(path.join(dir, 'shorts.db'));
  return {
    port: new SqliteLeaseStore(store.db),
    close: async () => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite leases across processes', () => {
  it('of several processes acquiring one key at the same instant, exactly one gets it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'shorts-leases-'));
    const file = path.join(dir, 'shorts.db');
    new JobStore(file).close();
    const mod = (p: string) => JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', ...p.split('/'))).href);
    const at = Date.now() + 2000;
    const script = `const { JobStore } = await import(${mod('engine/job-store.js')});
      const { SqliteLeaseStore } = await import(${mod('adapters/sqlite/lease-store.js')});
      const store = new JobStore(${JSON.stringify(file)});
      const leases = new SqliteLeaseStore(store.db);
      while (Date.now() < ${at}) await new Promise((r) => setTimeout(r, 1));
      const got = await leases.acquire({ kind: 'request', id: 'one' }, 'owner-' + process.pid, 10000);
      process.stdout.write(got ? 'taken' : 'held');`;
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '', err = '';
      child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
      child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(err))));
    })));
    expect(outcomes.sort()).toEqual(['held', 'held', 'held', 'held', 'held', 'taken']);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
