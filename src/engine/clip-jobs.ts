// The render jobs of a request's clips (the children of the flow analyze ends with, jobs.ts's renderFlow): each
// renders one planned clip (clip-render.ts) from the request's checkpoints, on whichever worker takes it, and
// saves its outcome as the checkpoint `clip-<shortId>` that the request's finalize (finalize.ts) reads.
import type { Lease } from '../ports/leases.js';
import { engineUnavailable } from '../ports/unavailable.js';
import { JobArtifacts } from './artifacts.js';
import { JobScratch } from './scratch.js';
import { failureReason, type ReasonContext } from './failure-reason.js';
import { AbortedError } from '../media/process.js';
import type { Language } from '../languages.js';
import type { Transcript } from '../domain/transcript.js';
import { STAGES } from './stages.js';
import { timedStage } from './metrics.js';
import type { OrchestratorDeps } from './orchestrator-deps.js';
import { withSourceFile, type PlanCheckpoint, type SourceCheckpoint } from './checkpoints.js';
import { lostLease, ShutdownSignal } from './interruptions.js';
import { erroredClip, renderClip, renderContext } from './clip-render.js';

/** The clips the analyze stage planned (ids in rank order), for the render jobs; empty when there is no plan. */
export async function plannedClips(deps: OrchestratorDeps, id: string): Promise<string[]> {
  return (await new JobArtifacts(deps.blobs, id).read<PlanCheckpoint>('plan'))?.clips.map((c) => c.id) ?? [];
}

/**
 * Renders one planned clip of a request (its render job, a child of the request's flow) and saves its outcome
 * as the checkpoint `clip-<shortId>` that finalize reads: the clip, or the clip errored with its reason.
 * 'stopped' when a shutdown or a lost lease interrupted it (nothing saved: the job runs again), 'gone' when
 * the request is no longer processing (cancelled) or its checkpoints are.
 */
export async function renderPlannedClip(deps: OrchestratorDeps, requestId: string, shortId: string, signal: AbortSignal,
  events: { lease?: Lease } = {}): Promise<'done' | 'stopped' | 'gone'> {
  const { store, blobs } = deps;
  const req = await store.getRequest(requestId);
  if (req?.status !== 'processing') return 'gone';
  const art = new JobArtifacts(blobs, requestId);
  const scratch = new JobScratch(deps.dataDir, requestId);
  const reasons: ReasonContext = { dataDir: deps.dataDir, hideAllPaths: req.origin === 'api' };
  const media = deps.media.scoped(signal);
  const saved = await art.read<SourceCheckpoint>('source');
  const transcript = await art.read<Transcript>('transcript');
  const plan = await art.read<PlanCheckpoint>('plan');
  const rank = plan?.clips.findIndex((c) => c.id === shortId) ?? -1;
  if (!saved || !transcript || !plan || rank < 0) return 'gone';
  if (req.options.language === 'auto') req.options.language = transcript.language as Language;
  const workDir = scratch.clipDir(shortId);
  try {
    // One render stage per clip job in the metrics (the clip's time is what sizes a render pool).
    const record = await timedStage(deps.metrics, 'render', signal, () => withSourceFile(blobs, saved, async () => {
      reasons.sourcePath = saved.source.path;
      const one = { clips: [plan.clips[rank]!] };
      const ctx = await renderContext(deps, req, art, workDir, saved.source, saved.info, transcript, one, signal, media);
      return renderClip(deps, ctx, plan.clips[rank]!, rank, () => {}, reasons);
    }));
    await art.write(JobArtifacts.clipOutcomeName(shortId), record);
  } catch (e) {
    if (lostLease(e, signal) || (signal.aborted && signal.reason instanceof ShutdownSignal)) return 'stopped';
    if (engineUnavailable(e)) throw e; // not the clip's fault: its job runs again (the worker hands it back)
    if (signal.aborted || e instanceof AbortedError) {
      // Cancelled while its clips render: a cancelled request keeps no partial output (its finalize never runs).
      if ((await store.getRequest(requestId))?.status === 'cancelled') {
        scratch.remove();
        await art.removeAll().catch(() => undefined);
      }
      return 'gone';
    }
    // What the clips share failed (a translation, the end card): this clip is errored, the others decide.
    await saveErroredClip(deps, requestId, shortId, failureReason(e, reasons));
  } finally {
    scratch.removeClip(shortId);
  }
  await reportClipsDone(deps, requestId, art, plan);
  return 'done';
}

/** A clip whose render job failed or died past its attempts: saved errored, for finalize. */
export async function saveErroredClip(deps: OrchestratorDeps, requestId: string, shortId: string, why: string): Promise<void> {
  const art = new JobArtifacts(deps.blobs, requestId);
  const plan = await art.read<PlanCheckpoint>('plan');
  const rank = plan?.clips.findIndex((c) => c.id === shortId) ?? -1;
  if (!plan || rank < 0) return;
  await art.write(JobArtifacts.clipOutcomeName(shortId), erroredClip(requestId, plan.clips[rank]!, rank, why, deps.render));
}

/** The render step's progress from the clips whose outcome is saved (their jobs run apart, in any order). */
async function reportClipsDone(deps: OrchestratorDeps, id: string, art: JobArtifacts, plan: PlanCheckpoint): Promise<void> {
  const saved = await Promise.all(plan.clips.map((c) => art.has(JobArtifacts.clipOutcomeName(c.id))));
  const { from, span } = STAGES.render.progress;
  await deps.store.setProgress(id, Math.floor(from + (saved.filter(Boolean).length / plan.clips.length) * (span - 1)));
}
