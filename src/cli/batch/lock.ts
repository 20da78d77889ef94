// One batch process per folder: two would both rewrite batch.json and run the same items. The lock is a
// lease kept in the lock file itself (issue 22), not a pid: the owner id of this process start and an expiry
// that a heartbeat pushes forward every third of SHORTS_LEASE_TTL. A lock whose expiry passed (its process was
// killed, or the machine lost power) is taken over, which is what lets a re-run continue after a crash; a
// live one is never, whatever PID namespace either process runs in. A lock not expired yet is watched until
// it either expires (taken over: a re-run right after a kill -9 waits at most one TTL) or is renewed (its
// owner is alive: refused). It lives in the file, not in the job
// store: the folder is the thing guarded, and a batch may run against a remote instance with no store here.
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROCESS_OWNER, leaseTtlMs } from '../../engine/lease-keeper.js';
import { CliError, EXIT } from '../cli-error.js';

export const LOCK_FILE = '.batch.lock';

interface LockContent { owner: string; pid: number; expiresAt: number }

function read(file: string): LockContent | null | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined; // gone
  }
  try {
    const c = JSON.parse(text) as Partial<LockContent>;
    return typeof c.owner === 'string' && typeof c.expiresAt === 'number' ? (c as LockContent) : null;
  } catch {
    return null; // half-written or an older format: nobody renews it
  }
}

/**
 * Takes the folder's lock for this process; returns its release, and the owner id of a batch whose expired
 * lock was taken over (it was killed: its requests' leases are running out too).
 */
export async function lockBatchFolder(dir: string, ttlMs = leaseTtlMs()): Promise<{ release: () => void; killedOwner: string | null }> {
  let killedOwner: string | null = null;
  const file = path.join(dir, LOCK_FILE);
  const content = (): string => JSON.stringify({ owner: PROCESS_OWNER, pid: process.pid, expiresAt: Date.now() + ttlMs } satisfies LockContent);
  const ours = () => read(file)?.owner === PROCESS_OWNER;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, content());
      closeSync(fd);
      // The heartbeat: a fresh expiry, written whole (a reader never sees half a file), only while it is still ours.
      const beat = setInterval(() => {
        if (!ours()) return;
        const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
        try {
          writeFileSync(tmp, content());
          renameSync(tmp, file);
        } catch {
          rmSync(tmp, { force: true });
        }
      }, Math.max(50, ttlMs / 3));
      beat.unref();
      const release = () => {
        clearInterval(beat);
        try {
          if (ours()) rmSync(file, { force: true });
        } catch { /* already gone */ }
      };
      return { release, killedOwner };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const held = read(file);
    if (held === undefined) continue; // removed meanwhile: try again
    if (held && held.owner !== PROCESS_OWNER && held.expiresAt > Date.now()) {
      // Renewed before it runs out: its owner is alive. Not renewed: it was killed; its lock is ours once it expires.
      const busy = () => new CliError(`another shorts batch (pid ${held.pid}) is working in ${dir}; wait for it, or use another --out`, EXIT.failure);
      while (Date.now() < held.expiresAt) {
        await sleep(Math.min(200, Math.max(10, held.expiresAt - Date.now())));
        const now = read(file);
        if (now === undefined) break;
        if (now === null || now.owner !== held.owner || now.expiresAt !== held.expiresAt) throw busy();
      }
      attempt--; // waiting is not a failed try
      if (read(file) === undefined) continue;
    }
    // Expired (its process stopped renewing it) or unreadable: moved aside, so of two processes taking it over
    // only one removes the stale lock; the other finds the first one's fresh lock on its next try.
    const aside = `${file}.${randomBytes(4).toString('hex')}.stale`;
    try {
      renameSync(file, aside);
    } catch {
      continue;
    }
    const moved = read(aside);
    if (moved && held && (moved.owner !== held.owner || moved.expiresAt !== held.expiresAt) && moved.expiresAt > Date.now()) {
      // Another process took it over between our read and the move: that lock was live, put it back.
      try { renameSync(aside, file); } catch { /* ignore */ }
      throw new CliError(`another shorts batch (pid ${moved.pid}) is working in ${dir}; wait for it, or use another --out`, EXIT.failure);
    }
    rmSync(aside, { force: true });
    killedOwner = held?.owner ?? null;
  }
  throw new CliError(`cannot take the lock ${file}`, EXIT.failure);
}
