// A request's fetch, transcribe and analyze as jobs of the stage queues (issue 24: a stage is a job, jobs.ts):
// each runs one stage in request-run.ts's frame from the checkpoints the stages before it stored, so it may run
// on another machine than they did. The render stage is the clip jobs (clip-jobs.ts) and the finalize (finalize.ts).
import { AbortedError } from '../media/process.js';
import { STAGES, type RequestStageName } from './stages.js';
import type { RequestRecord } from '../ports/request-store.js';
import type { JobEvents, OrchestratorDeps } from './orchestrator-deps.js';
import { guarded, resume, runOne } from './request-run.js';

/**
 * Runs one stage of a request that the stage queues carry (issue 24: a stage is a job, jobs.ts), from the
 * checkpoints the stages before it stored, so it may run on another machine than they did. Returns the request
 * as it is after it: still `processing` when the next stage is due (after analyze at `finalizing`, its clips
 * planned: plannedClips), terminal when it failed or was cancelled. Never throws for job failures.
 */
export async function runStage(deps: OrchestratorDeps, id: string, name: Exclude<RequestStageName, 'render'>, signal: AbortSignal,
  events: JobEvents = {}): Promise<RequestRecord> {
  return guarded(deps, id, signal, events, async (run) => {
    await resume(run, name);
    await runOne(deps, run, STAGES[name]);
    await run.later.flush();
    if (name === 'analyze') {
      // The clips render as jobs of their own: the request shows the render step from now on.
      const { step, progress } = STAGES.render;
      if (!await deps.store.advance(id, step, progress.from, events.lease)) throw new AbortedError();
      events.onStep?.(step, progress.from);
    }
  });
}
