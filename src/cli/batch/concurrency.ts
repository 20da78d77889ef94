// How many items a batch runs at once when -j is not given.
import os from 'node:os';

/**
 * Local mode: each job already spreads whisper.cpp and ffmpeg over every core, but one job alone leaves
 * them idle part of the time (probing, Node-side scoring and planning, the serial ends of each stage).
 * Measured with scripts/bench-batch.mjs on 2 cores (four 5-minute sources, 540x960, --max-shorts 2,
 * docs/benchmarks.md): -j 1 65.5 items/hour (CPU 91 % busy), -j 2 93.4 items/hour (97 %): 1.43x the
 * throughput, each item 33 % slower (55 -> 73 s). Two at once is the default; a single core gets one.
 * More than two was not measured.
 */
export function defaultLocalJobs(cores: number = os.availableParallelism()): number {
  return cores >= 2 ? 2 : 1;
}

/**
 * Remote mode: requests in flight at once. The server queues and runs them with its own workers; more in
 * flight than it runs only waits in its queue (and counts against the hourly limit sooner).
 */
export const DEFAULT_REMOTE_JOBS = 4;
