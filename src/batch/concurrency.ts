// How many items a batch runs at once when -j is not given.
import os from 'node:os';

/**
 * Local mode: each job already spreads whisper.cpp and ffmpeg over every core, so running several only
 * pays where one job leaves cores idle (probing, Node-side scoring and planning, the serial ends of each
 * stage). Measured with scripts/bench-batch.mjs (docs/benchmarks.md): see the figure there for the
 * chosen value. One job per two cores, at least one.
 */
export function defaultLocalJobs(cores: number = os.availableParallelism()): number {
  return Math.max(1, Math.floor(cores / 2));
}

/**
 * Remote mode: requests in flight at once. The server queues and runs them with its own workers; more in
 * flight than it runs only waits in its queue (and counts against the hourly limit sooner).
 */
export const DEFAULT_REMOTE_JOBS = 4;
