// A request's finalize job: the parent of the flow analyze ends with (jobs.ts's renderFlow), run once every clip
// job ended. It collects the clips' saved outcomes (clip-jobs.ts) and ends the request in request-run.ts's frame,
// exactly as a local run ends.
import { JobArtifacts } from './artifacts.js';
import type { RequestRecord, ShortRecord } from '../ports/request-store.js';
import type { JobEvents, OrchestratorDeps } from './orchestrator-deps.js';
import { complete, guarded, resume } from './request-run.js';
import { erroredClip } from './clip-render.js';

/**
 * Ends a request whose clips were rendered by their own jobs (the flow's parent, once every clip job ended):
 * the clips from their saved outcomes (one without any is errored), then completed — or failed when every
 * clip failed — exactly as run() ends. Never throws for job failures.
 */
export async function finalize(deps: OrchestratorDeps, id: string, signal: AbortSignal, events: JobEvents = {}): Promise<RequestRecord> {
  return guarded(deps, id, signal, events, async (run) => {
    await resume(run, 'render');
    const shorts = await Promise.all(run.plan!.clips.map(async (c, rank) => await run.art.read<ShortRecord>(JobArtifacts.clipOutcomeName(c.id))
      ?? erroredClip(id, c, rank, 'internal error: the clip\'s render stopped unexpectedly', deps.render)));
    await complete(deps, run, shorts);
  });
}
