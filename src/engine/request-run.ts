// Runs a request's stages (the table of stages.ts: fetch -> transcribe -> analyze -> render): the frame every way
// of running them shares (guarded: the run's state, then a failure, cancel, shutdown or lost lease settled; runOne:
// one stage; resume: a stage job's checkpoints; complete: the request's end), and the local run that walks them all
// in this process (runRequest). The stage jobs (stage-jobs.ts) and the flow's parent (finalize.ts) run in the same
// frame, one job at a time. It only sequences: reports spec 3.2 steps and progress, checkpoints each stage so a
// retry, a restart or another machine resumes (checkpoints.ts), applies each stage's retry policy, and honours an
// AbortSignal at every stage (child processes are killed, not waited for). What a stage does is request-stages.ts.
import { LeaseLost } from '../ports/leases.js';
import { engineUnavailable } from '../ports/unavailable.js';
import { rmSync } from 'node:fs';
import { JobArtifacts } from './artifacts.js';
import { JobScratch } from './scratch.js';
import { failureReason, type ReasonContext } from './failure-reason.js';
import { AbortedError } from '../media/process.js';
import { RangeAudio } from '../pipeline/transcribe/speech-audio.js';
import { keepsSource } from './uploads.js';
import type { Language } from '../languages.js';
import { PipelineError } from '../errors.js';
import type { Transcript } from '../domain/transcript.js';
import { REQUEST_STAGES, STAGES, withRetry, type RequestStageName } from './stages.js';
import type { RequestRecord, ShortRecord } from '../ports/request-store.js';
import { WriteQueue } from './write-queue.js';
import { timedStage } from './metrics.js';
import type { JobEvents, OrchestratorDeps } from './orchestrator-deps.js';
import { withSourceFile, type PlanCheckpoint, type SourceCheckpoint } from './checkpoints.js';
import { lostLease, passesThrough, ShutdownSignal } from './interruptions.js';
import { STAGE_HANDLERS, type RunState } from './request-stages.js';

/**
 * Runs a queued or interrupted request to a terminal state and returns it, every stage in this process (local
 * mode). Never throws for job failures. It walks the stage table (stages.ts): each stage advances the
 * request's step, reports progress within its span, and runs under its retry policy from its checkpoint; a
 * final error fails the request at once.
 */
export async function runRequest(deps: OrchestratorDeps, id: string, signal: AbortSignal, events: JobEvents = {}): Promise<RequestRecord> {
  return guarded(deps, id, signal, events, async (run) => {
    for (const stage of REQUEST_STAGES) await runOne(deps, run, stage);
    await complete(deps, run, run.shorts!);
  });
}

/**
 * The frame of every way of running a request's stages: the run's state, then `body`; an error fails the
 * request with its reason (a cancel cancels it; a shutdown or a lost lease leaves it to whoever resumes it;
 * the database or Redis unreachable is thrown, for the job to run again).
 */
export async function guarded(deps: OrchestratorDeps, id: string, signal: AbortSignal, events: JobEvents, body: (run: RunState) => Promise<void>): Promise<RequestRecord> {
  const { store } = deps;
  const art = new JobArtifacts(deps.blobs, id);
  const scratch = new JobScratch(deps.dataDir, id);
  // What failure reasons may say about paths (failure-reason.ts): filled in as the job learns them.
  const reasons: ReasonContext = { dataDir: deps.dataDir };
  const media = deps.media.scoped(signal);
  try {
    const req = await store.getRequest(id);
    if (!req) throw new Error(`request ${id} not found`);
    reasons.hideAllPaths = req.origin === 'api';
    // Progress and language facts arrive through synchronous callbacks: their writes queue up in order
    // and each step (and the end) waits for them, so none is left floating.
    const later = new WriteQueue();
    await body({ req, art, scratch, signal, events, reasons, media, later });
  } catch (e) {
    if (signal.aborted && signal.reason instanceof ShutdownSignal) return (await store.getRequest(id))!;
    // Another process runs it now: nothing here is written or removed (its artifacts are the new runner's).
    if (lostLease(e, signal)) return (await store.getRequest(id))!;
    // The database (or Redis) is restarting: not the request's fault, nor one to fail it with; the worker hands
    // its job back and the stage runs again from its checkpoint.
    if (engineUnavailable(e)) throw e;
    try {
      if (signal.aborted || e instanceof AbortedError) await store.finish(id, 'cancelled', null, events.lease);
      else await store.finish(id, 'failed', failureReason(e, reasons), events.lease);
    } catch (refused) {
      if (refused instanceof LeaseLost) return (await store.getRequest(id))!;
      throw refused;
    }
    // Cancelled or failed requests keep no partial output.
    scratch.remove();
    await art.removeAll().catch(() => undefined);
  }
  return (await store.getRequest(id))!;
}

/** One stage of the table: the request's step advanced, then its handler under its retry policy, with the source at hand. */
export async function runOne(deps: OrchestratorDeps, run: RunState, stage: typeof REQUEST_STAGES[number]): Promise<void> {
  const { store } = deps;
  const { req: { id }, events, signal, later } = run;
  const { step: s, progress } = stage;
  await later.flush();
  if (!await store.advance(id, s, progress.from, events.lease)) throw new AbortedError();
  events.onStep?.(s, progress.from);
  const within = (fraction: number) => {
    const p = Math.floor(progress.from + Math.max(0, Math.min(1, fraction)) * (progress.span - 1));
    later.push(() => store.setProgress(id, p));
    events.onProgress?.(p);
  };
  const handler = STAGE_HANDLERS[stage.name];
  const withSource = () => (run.source
    ? withSourceFile(deps.blobs, run.source, async () => { useSource(run); await handler(deps, run, within); })
    : handler(deps, run, within));
  // The render stage retries per clip (renderStage); the others as a whole, from their checkpoint.
  await timedStage(deps.metrics, stage.name, signal, () => stage.name === 'render' ? withSource()
    : withRetry(stage.retry, withSource, { signal, stop: passesThrough(signal) }));
}

/** The checkpoints a stage starts from (it runs in a job of its own, maybe on another machine). */
export async function resume(run: RunState, stage: RequestStageName): Promise<void> {
  if (stage === 'fetch') return;
  const missing = (what: string) => new PipelineError(STAGES[stage].step, `the ${what} this stage starts from is gone`);
  run.source = await run.art.read<SourceCheckpoint>('source') ?? undefined;
  if (!run.source) throw missing('fetched source');
  if (stage === 'transcribe') return;
  run.transcript = await run.art.read<Transcript>('transcript') ?? undefined;
  if (!run.transcript) throw missing('transcript');
  // As the transcribe stage resolved it: every later stage works in the language the words are in.
  if (run.req.options.language === 'auto') run.req.options.language = run.transcript.language as Language;
  if (stage === 'analyze') return;
  run.plan = await run.art.read<PlanCheckpoint>('plan') ?? undefined;
  if (!run.plan) throw missing('clip plan');
}

/** The source's path as this stage has it: what failure reasons hide, and the range's speech audio decoded from it. */
function useSource(run: RunState): void {
  const { source, range } = run.source!;
  run.reasons.sourcePath = source.path;
  // Decoded once for the recogniser and the clip edges (gone after the highlights); again where it is missing.
  if (run.audio?.mediaPath !== source.path) run.audio = new RangeAudio(source.path, range, run.scratch.file('range-speech.wav'), run.media);
}

/** The end of a request whose clips are rendered: stored, completed (failed when every clip failed), scratch and source removed. */
export async function complete(deps: OrchestratorDeps, run: RunState, shorts: ShortRecord[]): Promise<void> {
  const { store } = deps;
  const { req: { id }, signal, events, later, source } = run;
  if (signal.aborted) throw new AbortedError();
  await later.flush();
  await store.replaceShorts(id, shorts, events.lease);
  if (shorts.length > 0 && shorts.every((s) => s.error)) {
    throw new PipelineError('finalizing', `rendering failed for every clip: ${shorts[0]!.errorMessage ?? 'unknown error'}`);
  }
  await store.finish(id, 'completed', null, events.lease);
  events.onStep?.('completed', 100);
  // A download is not kept once its request completed (disk is the scarce thing on a server), unless the
  // request keeps its source for editing (uploads.ts).
  if (!keepsSource(run.req)) {
    if (source?.sourceKey) await deps.blobs.delete(source.sourceKey);
    else if (source?.source.downloaded) rmSync(source.source.path, { force: true });
  }
  run.scratch.remove();
}
