// One batch process per folder: two would both rewrite batch.json and run the same items. The lock is a
// file holding the owner's pid, created exclusively; a lock whose process is dead (kill -9, power loss)
// is taken over, which is what lets a re-run continue after a crash.
import { openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import { isAlive } from '../../media/process.js';
import { CliError, EXIT } from '../cli-error.js';

export const LOCK_FILE = '.batch.lock';

/** Takes the folder's lock for this process; returns its release. */
export function lockBatchFolder(dir: string): () => void {
  const file = path.join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
        } catch { /* already gone */ }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let owner = NaN;
    try {
      owner = Number(readFileSync(file, 'utf8').trim());
    } catch { /* removed meanwhile: try again */ }
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
      throw new CliError(`another shorts batch (pid ${owner}) is working in ${dir}; wait for it, or use another --out`, EXIT.failure);
    }
    // The owner died without releasing it.
    rmSync(file, { force: true });
  }
  throw new CliError(`cannot take the lock ${file}`, EXIT.failure);
}
