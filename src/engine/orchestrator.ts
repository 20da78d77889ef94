// Runs a request's stages (the table of stages.ts: fetch -> transcribe -> analyze -> render): all of them in
// this process (run: local mode), or one per job (runStage, renderPlannedClip, finalize: the stage queues of
// jobs.ts, on whichever worker takes each). It only sequences: reports spec 3.2 steps and progress, checkpoints
// each stage so a retry, a restart or another machine resumes, applies each stage's retry policy, and honours an
// AbortSignal at every stage (child processes are killed, not waited for). What a stage does lives in its
// folder of src/pipeline.
//
// Where things live: checkpoints (the source's facts, the transcript, the plan, each clip's outcome), the kept
// captions, clips and covers are blobs (artifacts.ts) — what a stage job, a re-render or an export needs, on this
// machine or another; the rest is this machine's scratch (scratch.ts), a cache a stage rebuilds where it is
// missing (the range's speech WAV is decoded again). A downloaded source is a blob while its request runs (with
// the data dir a rename; a stage elsewhere gets a local copy), removed once the request completes (disk is the
// scarce thing on a server): a re-render fetches it again (through the same URL guard), as it always has.
import { LeaseLost, type Lease } from '../ports/leases.js';
import { randomUUID } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { JobArtifacts } from './artifacts.js';
import { JobScratch } from './scratch.js';
import { coverKeyOf } from '../ports/blob-store.js';
import type { BlobStore } from '../ports/blob-store.js';
import { mapPool } from './pool.js';
import type { RenderSettings } from './render-settings.js';
import { probeMedia } from '../media/probe.js';
import { failureReason, type ReasonContext } from './failure-reason.js';
import { AbortedError } from '../media/process.js';
import type { MediaRunner } from '../ports/media-runner.js';
import { RangeAudio } from '../pipeline/transcribe/speech-audio.js';
import { outputFps, type RenderPlan } from '../media/render-plan.js';
import { fetchSource, uploadedSource } from '../pipeline/fetch/fetch.js';
import { finishedUpload, keepsSource } from './uploads.js';
import type { UrlCheck } from '../net/download.js';
import { clampRange } from '../pipeline/fetch/range.js';
import type { Transcriber } from '../pipeline/transcribe/transcribe.js';
import { languageForAuto, mismatchWarning, unsureDetectionWarning } from '../pipeline/transcribe/model-choice.js';
import { scriptWarning } from '../pipeline/transcribe/script-warning.js';
import type { Language } from '../languages.js';
import { pickMoments } from '../pipeline/analyze/moments.js';
import { llmConfigFromEnv, refineWithLlm } from '../pipeline/analyze/llm.js';
import type { FaceDetector } from '../pipeline/reframe/faces.js';
import { withLayoutReason } from '../pipeline/analyze/reason.js';
import { buildCues } from '../pipeline/captions/captions.js';
import { captionCuesFor } from '../pipeline/captions/caption-cues.js';
import { joinWords, scriptMismatch } from '../pipeline/shared/script-text.js';
import { translatorFromEnv } from '../pipeline/captions/translate.js';
import { DEFAULT_TEMPLATE, findTemplate } from '../catalog/templates.js';
import { measureIntegratedLoudness } from '../media/speech-loudness.js';
import { PipelineError } from '../errors.js';
import type { CaptionCue } from '../domain/captions.js';
import type { ClipCopy, Highlight } from '../domain/highlight.js';
import type { FetchedSource, MediaInfo } from '../domain/source.js';
import type { TimeRange } from '../domain/time.js';
import type { Transcript } from '../domain/transcript.js';
import { applyCaptionEdits, wordsWithEdits, type CaptionEdits } from '../pipeline/captions/caption-edits.js';
import { coverRange } from '../pipeline/transcribe/transcript-extend.js';
import { clipOptions, sentencesIn } from '../pipeline/render/clip-edit.js';
import { memeHookChooser, memeHookPlan, outroFor } from '../pipeline/render/clip-extras.js';
import { putClipCover } from '../pipeline/render/clip-cover.js';
import { renderOne, type ClipRender } from '../pipeline/render/render-plan-builder.js';
import type { CaptionTemplate } from '../catalog/templates.js';
import { REQUEST_STAGES, STAGES, withRetry, type RequestStageName } from './stages.js';
import type { RequestStore, RequestRecord, ShortRecord } from '../ports/request-store.js';
import { WriteQueue } from './write-queue.js';
import { timedStage, type StageMetrics } from './metrics.js';
import type { ClipEdit, CreateRequest, Step } from '../domain/request.js';

/**
 * Abort reason for a server shutting down: the request is neither cancelled nor failed, it stays
 * `processing` with its checkpoints so the next start resumes it.
 */
export class ShutdownSignal extends Error {
  constructor() {
    super('the server is shutting down');
    this.name = 'ShutdownSignal';
  }
}

/** Whether work stopped because another process took its lease over (the keeper aborted it, or a write was refused). */
function lostLease(e: unknown, signal: AbortSignal): boolean {
  return e instanceof LeaseLost || (signal.aborted && signal.reason instanceof LeaseLost);
}

/** Errors no retry may hold back: a cancel, a shutdown, a lease another process took. */
function passesThrough(signal: AbortSignal): (e: unknown) => boolean {
  return (e) => e instanceof AbortedError || lostLease(e, signal);
}

export const STEP_MESSAGES: Record<Step, string> = {
  queued: 'Waiting in queue...',
  fetching_video: 'Fetching video...',
  transcribing_audio: 'Analyzing video...',
  finding_highlights: 'Finding interesting segments...',
  finalizing: 'Finalizing data...',
  completed: 'Task complete!',
  failed: 'Processing failed',
  cancelled: 'Request cancelled',
};

export interface JobEvents {
  onStep?: (step: Step, progress: number) => void;
  onProgress?: (progress: number) => void;
  onClipRendered?: (done: number, total: number) => void;
  /**
   * The runner's lease on the request (issue 22): the writes that finish a step are made only while it is
   * held; once another process took it over this run stops without writing (its signal aborts with LeaseLost).
   */
  lease?: Lease;
}

export interface OrchestratorDeps {
  store: RequestStore;
  /** Where checkpoints, kept captions, clips and covers are kept (made in the scratch folder, then put). */
  blobs: BlobStore;
  transcriber: Transcriber;
  /** This machine's data dir: its `scratch/` folder holds work in progress (scratch.ts); failure reasons hide its paths. */
  dataDir: string;
  render: RenderSettings;
  /** The account's saved background preference, used when blurBackground is omitted. */
  blurPreference?: (accountId: string) => Promise<boolean> | boolean;
  /** The URL guard for downloads of API requests (every address and redirect checked). */
  checkUrl?: UrlCheck;
  /** The engine's runner of every child process of a job (scoped to the job: counted, and killed when it is cancelled). */
  media: MediaRunner;
  /** Finds faces for the crops and covers, made once by whoever builds the engine; default the process's own. */
  faces?: FaceDetector;
  /** Where each stage's time and outcome is reported (/metrics). */
  metrics?: StageMetrics;
}

/** `sourceKey`: the download stored as a blob (artifacts.ts); absent for a local file, which stays where it is. */
interface SourceCheckpoint { source: FetchedSource; info: MediaInfo; range: TimeRange; sourceKey?: string }
interface PlanCheckpoint { clips: { id: string; highlight: Highlight; copy: ClipCopy }[] }

/** What the clips rendered together share (renderContext). */
interface RenderContext {
  req: RequestRecord; art: JobArtifacts; workDir: string; source: FetchedSource; info: MediaInfo; transcript: Transcript; template: CaptionTemplate;
  captionSet: Awaited<ReturnType<typeof captionCuesFor>> | null; outro: RenderPlan['outro'] | null; signal: AbortSignal; media: MediaRunner;
  memeFor: ((id: string) => ReturnType<ReturnType<typeof memeHookChooser>>) | null; memeAudio: Map<string, Promise<boolean>>;
}

/** One request's run as it goes through the stages: what it started with and what each stage made. */
interface RunState {
  req: RequestRecord;
  art: JobArtifacts;
  scratch: JobScratch;
  signal: AbortSignal;
  events: JobEvents;
  reasons: ReasonContext;
  media: MediaRunner;
  /** Store writes made from synchronous callbacks (progress, detected language), awaited in order before each step. */
  later: WriteQueue;
  source?: SourceCheckpoint;
  audio?: RangeAudio;
  transcript?: Transcript;
  plan?: PlanCheckpoint;
  shorts?: ShortRecord[];
}

export class Orchestrator {
  private readonly deps: OrchestratorDeps;
  private readonly media: MediaRunner;

  constructor(deps: OrchestratorDeps) {
    this.deps = deps;
    this.media = deps.media;
  }

  /**
   * Runs a queued or interrupted request to a terminal state and returns it, every stage in this process (local
   * mode). Never throws for job failures. It walks the stage table (stages.ts): each stage advances the
   * request's step, reports progress within its span, and runs under its retry policy from its checkpoint; a
   * final error fails the request at once.
   */
  async run(id: string, signal: AbortSignal, events: JobEvents = {}): Promise<RequestRecord> {
    return this.guarded(id, signal, events, async (run) => {
      for (const stage of REQUEST_STAGES) await this.runOne(run, stage);
      await this.complete(run, run.shorts!);
    });
  }

  /**
   * Runs one stage of a request that the stage queues carry (issue 24: a stage is a job, jobs.ts), from the
   * checkpoints the stages before it stored, so it may run on another machine than they did. Returns the request
   * as it is after it: still `processing` when the next stage is due (after analyze at `finalizing`, its clips
   * planned: plannedClips), terminal when it failed or was cancelled. Never throws for job failures.
   */
  async runStage(id: string, name: Exclude<RequestStageName, 'render'>, signal: AbortSignal, events: JobEvents = {}): Promise<RequestRecord> {
    return this.guarded(id, signal, events, async (run) => {
      await this.resume(run, name);
      await this.runOne(run, STAGES[name]);
      await run.later.flush();
      if (name === 'analyze') {
        // The clips render as jobs of their own: the request shows the render step from now on.
        const { step, progress } = STAGES.render;
        if (!await this.deps.store.advance(id, step, progress.from, events.lease)) throw new AbortedError();
        events.onStep?.(step, progress.from);
      }
    });
  }

  /** The clips the analyze stage planned (ids in rank order), for the render jobs; empty when there is no plan. */
  async plannedClips(id: string): Promise<string[]> {
    return (await new JobArtifacts(this.deps.blobs, id).read<PlanCheckpoint>('plan'))?.clips.map((c) => c.id) ?? [];
  }

  /**
   * Renders one planned clip of a request (its render job, a child of the request's flow) and saves its outcome
   * as the checkpoint `clip-<shortId>` that finalize reads: the clip, or the clip errored with its reason.
   * 'stopped' when a shutdown or a lost lease interrupted it (nothing saved: the job runs again), 'gone' when
   * the request is no longer processing (cancelled) or its checkpoints are.
   */
  async renderPlannedClip(requestId: string, shortId: string, signal: AbortSignal, events: { lease?: Lease } = {}): Promise<'done' | 'stopped' | 'gone'> {
    const { store, blobs } = this.deps;
    const req = await store.getRequest(requestId);
    if (req?.status !== 'processing') return 'gone';
    const art = new JobArtifacts(blobs, requestId);
    const scratch = new JobScratch(this.deps.dataDir, requestId);
    const reasons: ReasonContext = { dataDir: this.deps.dataDir, hideAllPaths: req.origin === 'api' };
    const media = this.media.scoped(signal);
    const saved = await art.read<SourceCheckpoint>('source');
    const transcript = await art.read<Transcript>('transcript');
    const plan = await art.read<PlanCheckpoint>('plan');
    const rank = plan?.clips.findIndex((c) => c.id === shortId) ?? -1;
    if (!saved || !transcript || !plan || rank < 0) return 'gone';
    if (req.options.language === 'auto') req.options.language = transcript.language as Language;
    const workDir = scratch.clipDir(shortId);
    try {
      // One render stage per clip job in the metrics (the clip's time is what sizes a render pool).
      const record = await timedStage(this.deps.metrics, 'render', signal, () => this.withSourceFile(saved, async () => {
        reasons.sourcePath = saved.source.path;
        const one = { clips: [plan.clips[rank]!] };
        const ctx = await this.renderContext(req, art, workDir, saved.source, saved.info, transcript, one, signal, media);
        return this.renderClip(ctx, plan.clips[rank]!, rank, () => {}, reasons);
      }));
      await art.write(JobArtifacts.clipOutcomeName(shortId), record);
    } catch (e) {
      if (lostLease(e, signal) || (signal.aborted && signal.reason instanceof ShutdownSignal)) return 'stopped';
      if (signal.aborted || e instanceof AbortedError) {
        // Cancelled while its clips render: a cancelled request keeps no partial output (its finalize never runs).
        if ((await store.getRequest(requestId))?.status === 'cancelled') {
          scratch.remove();
          await art.removeAll().catch(() => undefined);
        }
        return 'gone';
      }
      // What the clips share failed (a translation, the end card): this clip is errored, the others decide.
      await this.saveErroredClip(requestId, shortId, failureReason(e, reasons));
    } finally {
      scratch.removeClip(shortId);
    }
    await this.reportClipsDone(requestId, art, plan);
    return 'done';
  }

  /** A clip whose render job failed or died past its attempts: saved errored, for finalize. */
  async saveErroredClip(requestId: string, shortId: string, why: string): Promise<void> {
    const art = new JobArtifacts(this.deps.blobs, requestId);
    const plan = await art.read<PlanCheckpoint>('plan');
    const rank = plan?.clips.findIndex((c) => c.id === shortId) ?? -1;
    if (!plan || rank < 0) return;
    await art.write(JobArtifacts.clipOutcomeName(shortId), erroredClip(requestId, plan.clips[rank]!, rank, why, this.deps.render));
  }

  /**
   * Ends a request whose clips were rendered by their own jobs (the flow's parent, once every clip job ended):
   * the clips from their saved outcomes (one without any is errored), then completed — or failed when every
   * clip failed — exactly as run() ends. Never throws for job failures.
   */
  async finalize(id: string, signal: AbortSignal, events: JobEvents = {}): Promise<RequestRecord> {
    return this.guarded(id, signal, events, async (run) => {
      await this.resume(run, 'render');
      const shorts = await Promise.all(run.plan!.clips.map(async (c, rank) => await run.art.read<ShortRecord>(JobArtifacts.clipOutcomeName(c.id))
        ?? erroredClip(id, c, rank, 'internal error: the clip\'s render stopped unexpectedly', this.deps.render)));
      await this.complete(run, shorts);
    });
  }

  /**
   * The frame of every way of running a request's stages: the run's state, then `body`; an error fails the
   * request with its reason (a cancel cancels it; a shutdown or a lost lease leaves it to whoever resumes it).
   */
  private async guarded(id: string, signal: AbortSignal, events: JobEvents, body: (run: RunState) => Promise<void>): Promise<RequestRecord> {
    const { store } = this.deps;
    const art = new JobArtifacts(this.deps.blobs, id);
    const scratch = new JobScratch(this.deps.dataDir, id);
    // What failure reasons may say about paths (failure-reason.ts): filled in as the job learns them.
    const reasons: ReasonContext = { dataDir: this.deps.dataDir };
    const media = this.media.scoped(signal);
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
  private async runOne(run: RunState, stage: typeof REQUEST_STAGES[number]): Promise<void> {
    const { store } = this.deps;
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
    const handler = this.stageHandlers[stage.name];
    const withSource = () => (run.source ? this.withSourceFile(run.source, async () => { this.useSource(run); await handler(run, within); }) : handler(run, within));
    // The render stage retries per clip (renderStage); the others as a whole, from their checkpoint.
    await timedStage(this.deps.metrics, stage.name, signal, () => stage.name === 'render' ? withSource()
      : withRetry(stage.retry, withSource, { signal, stop: passesThrough(signal) }));
  }

  /** The checkpoints a stage starts from (it runs in a job of its own, maybe on another machine). */
  private async resume(run: RunState, stage: RequestStageName): Promise<void> {
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

  /**
   * Runs `fn` with the source as a local file: where the checkpoint names it on this machine, else the stored
   * object's local copy (the fetch stage may have run elsewhere; with the data dir it is the very file).
   */
  private async withSourceFile<T>(cp: SourceCheckpoint, fn: () => Promise<T>): Promise<T> {
    if (!cp.sourceKey || existsSync(cp.source.path)) return fn();
    return this.deps.blobs.withLocalFile(cp.sourceKey, async (file) => {
      cp.source.path = file;
      return fn();
    });
  }

  /** The source's path as this stage has it: what failure reasons hide, and the range's speech audio decoded from it. */
  private useSource(run: RunState): void {
    const { source, range } = run.source!;
    run.reasons.sourcePath = source.path;
    // Decoded once for the recogniser and the clip edges (gone after the highlights); again where it is missing.
    if (run.audio?.mediaPath !== source.path) run.audio = new RangeAudio(source.path, range, run.scratch.file('range-speech.wav'), run.media);
  }

  /** The end of a request whose clips are rendered: stored, completed (failed when every clip failed), scratch and source removed. */
  private async complete(run: RunState, shorts: ShortRecord[]): Promise<void> {
    const { store } = this.deps;
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
      if (source?.sourceKey) await this.deps.blobs.delete(source.sourceKey);
      else if (source?.source.downloaded) rmSync(source.source.path, { force: true });
    }
    run.scratch.remove();
  }

  /** The render step's progress from the clips whose outcome is saved (their jobs run apart, in any order). */
  private async reportClipsDone(id: string, art: JobArtifacts, plan: PlanCheckpoint): Promise<void> {
    const saved = await Promise.all(plan.clips.map((c) => art.has(JobArtifacts.clipOutcomeName(c.id))));
    const { from, span } = STAGES.render.progress;
    await this.deps.store.setProgress(id, Math.floor(from + (saved.filter(Boolean).length / plan.clips.length) * (span - 1)));
  }

  /** What each request stage does with the run's state; each leaves its result on it for the next. */
  private readonly stageHandlers: Record<RequestStageName, (run: RunState, onProgress: (fraction: number) => void) => Promise<void>> = {
    fetch: async (run, onProgress) => {
      const { req, art, scratch, signal, media } = run;
      run.source = await this.fetchStage(req, art, scratch, signal, onProgress, media);
      run.reasons.sourcePath = run.source.source.path;
    },
    transcribe: async (run, onProgress) => {
      const { store } = this.deps;
      const { req, signal, media, audio, later, art } = run;
      const { id } = req;
      const { source, range } = run.source!;
      // Its checkpoint: a stage job taken again, on this machine or another, does not transcribe twice.
      const saved = await art.read<Transcript>('transcript');
      if (saved) {
        if (req.options.language === 'auto') req.options.language = saved.language as Language;
        run.transcript = saved;
        return;
      }
      const transcript = await this.deps.transcriber.transcribe({
        mediaPath: source.path, range, language: req.options.language, cacheKey: source.contentKey,
        // Advisory (issue 11): speech confidently detected in another language than the one named is a warning.
        checkLanguage: true,
        onWarning: (w) => later.push(() => store.addWarning(id, w)),
        onLanguageDetected: (d) => {
          if (req.options.language === 'auto') {
            later.push(() => store.saveDetectedLanguage(id, languageForAuto(d)));
            const unsure = unsureDetectionWarning(d);
            if (unsure) later.push(() => store.addWarning(id, unsure));
          }
          const warning = mismatchWarning(req.options.language, d);
          if (warning) later.push(() => store.addWarning(id, warning));
        },
        audio, media, signal, onProgress,
      });
      // "auto" resolved: every later stage works in the language the words are in (not persisted: the
      // stored options keep what was asked, the detected language has its own column).
      if (req.options.language === 'auto') req.options.language = transcript.language as Language;
      await later.flush();
      await store.saveSentences(id, transcript.sentences.map(({ index, sentence, start, end }) => ({ index, sentence, start, end })));
      const script = scriptMismatch(transcript.language, transcript.sentences.map((s) => s.sentence).join(' '));
      if (script) await store.addWarning(id, scriptWarning(transcript, script));
      if (transcript.sentences.length === 0)
        throw new PipelineError('transcribing_audio', 'no speech was found in the selected range, so there is nothing to clip');
      await art.write('transcript', transcript);
      run.transcript = transcript;
    },
    analyze: async (run) => {
      const { source, range } = run.source!;
      run.plan = await this.highlightStage(run.req, run.art, source, range, run.transcript!, run.signal, run.media, run.audio!);
      await run.audio!.remove();
    },
    render: async (run, onProgress) => {
      const { source, info } = run.source!;
      run.shorts = await this.renderStage(run.req, run.art, run.scratch, source, info, run.transcript!, run.plan!, run.signal, onProgress, run.events, run.reasons, run.media);
    },
  };

  /**
   * Re-renders one clip of a completed request with the change marked on it (issue 14: its pending edit),
   * from the request's checkpoints: the source (fetched again when it was a download, removed after), the
   * cached transcript (whisper.cpp runs only for a range past the transcribed one, and then only on the
   * missing part), the plan's copy, and the clip's last render plan, whose crop, gameplay, music and meme
   * intro are kept where the change does not touch them. The new MP4 replaces the old one atomically; the
   * clip's facts change and `recompiling` goes false in one transaction. Never throws for a failed
   * re-render: the clip keeps its previous MP4 and says why in `editError`. A ShutdownSignal leaves it
   * recompiling, for the next start to resume.
   */
  async rerender(requestId: string, shortId: string, signal: AbortSignal, events: { onProgress?: (fraction: number) => void; lease?: Lease } = {}): Promise<ShortRecord | undefined> {
    const { store } = this.deps;
    const req = await store.getRequest(requestId);
    const short = await store.getShort(requestId, shortId);
    if (!req || !short?.recompiling || !short.pendingEdit) return short;
    const art = new JobArtifacts(this.deps.blobs, requestId);
    const scratch = new JobScratch(this.deps.dataDir, requestId);
    const workDir = scratch.rerenderDir(shortId);
    const reasons: ReasonContext = { dataDir: this.deps.dataDir, hideAllPaths: req.origin === 'api' };
    let lost = false;
    const media = this.media.scoped(signal);
    try {
      const saved = await art.read<SourceCheckpoint>('source');
      const planned = (await art.read<PlanCheckpoint>('plan'))?.clips.find((c) => c.id === shortId);
      if (!saved || !planned) throw new PipelineError('finalizing', 'the checkpoints this clip was made from are gone, so it cannot be re-rendered');
      let source = saved.source;
      if (!existsSync(source.path) && keepsSource(req) && saved.sourceKey && await this.deps.blobs.stat(saved.sourceKey)) {
        // A kept source (uploads.ts) is read where it is stored, never fetched again.
        source = { ...source, path: await this.deps.blobs.withLocalFile(saved.sourceKey, async (file) => file) };
      } else if (!existsSync(source.path)) {
        // A downloaded source is deleted once its request completes, and another machine never had it:
        // fetched again, through the same URL guard (the module comment says why it is not a blob).
        source = await fetchSource(req.options.source, { workDir, signal, media, checkUrl: this.deps.checkUrl });
      }
      reasons.sourcePath = source.path;
      const { info } = saved;
      const pending = short.pendingEdit;
      const { captionEdits, ...change } = pending;
      const edit: ClipEdit = { ...(short.edit ?? {}), ...change };
      const options = clipOptions(req.options, edit);
      const before = clipOptions(req.options, short.edit ?? {});
      const current: TimeRange = { start: short.startTimestamp, end: short.endTimestamp };
      const clip: TimeRange = { start: edit.start ?? current.start, end: edit.end ?? current.end };
      const sameRange = Math.abs(clip.start - current.start) < 1e-3 && Math.abs(clip.end - current.end) < 1e-3;
      const language = req.options.language === 'auto' ? (req.detectedLanguage ?? 'auto') : req.options.language;

      // The request's transcript: its checkpoint (in the blob store, so any worker has it), else — a request
      // from before it was kept — the transcriber's cache (same content, range, language and model as its run).
      let transcript = await art.read<Transcript>('transcript')
        ?? await this.deps.transcriber.transcribe({ mediaPath: source.path, range: saved.range, language, cacheKey: source.contentKey, media, signal });
      if (clip.start < transcript.range.start || clip.end > transcript.range.end)
        transcript = await coverRange(this.deps.transcriber, transcript, clip, { mediaPath: source.path, cacheKey: source.contentKey, signal });

      const template = findTemplate(options.templateId) ?? DEFAULT_TEMPLATE;
      const prev = await art.read<RenderPlan>(JobArtifacts.renderPlanName(shortId));
      const seenCues = await art.read<CaptionCue[]>(JobArtifacts.cuesName(shortId));
      const cues = options.captionsEnabled ? await this.rerenderCues({
        id: shortId, clip, current, sameRange, transcript, template, options, source, seenCues, captionEdits: captionEdits as CaptionEdits | undefined, signal, media,
        // An SRT/VTT sent back is in the MP4's time (the export's): after the meme intro the user saw.
        subtitleOffset: prev?.memeHook?.seconds ?? 0,
      }) : null;
      const outro = options.outroEnabled
        ? await outroFor(options, workDir, template, info, { width: this.deps.render.width, height: this.deps.render.height }, this.deps.checkUrl, signal) : null;
      const memeHook = prev ? prev.memeHook ?? null : req.options.memeHook
        ? await memeHookPlan(memeHookChooser(req.options)(shortId), outputFps(info) ?? info.fps, new Map(), signal, media) : null;
      const title = edit.title ?? planned.copy.title;
      const reuse: ClipRender['reuse'] = {};
      if (prev) {
        reuse.gameVideo = prev.gameVideo ?? null;
        // The crop (faces sampled over the range) holds while the range and the asked layout do.
        if (sameRange && options.layout === before.layout) reuse.reframe = prev.reframe;
        // The same track (a random one stays the one drawn), at the asked volume, re-measured against a new range's speech.
        if (pending.music === undefined && pending.musicName === undefined && prev.music && options.music && options.musicVolume > 0) {
          reuse.music = { ...prev.music, volume: options.musicVolume,
            speechLufs: sameRange ? prev.music.speechLufs : info.hasAudio ? await measureIntegratedLoudness(source.path, clip, signal, media) : null };
        }
      }
      const key = short.fileKey ?? art.clipKey(short.rank, shortId);
      const rendered = await this.renderOne(req, source, info, transcript.language, {
        id: shortId, clip, title, options, cues, template: cues && options.captionLanguage && options.captionLanguage !== transcript.language ? { ...template, animation: 'none' } : template,
        assPath: path.join(workDir, `${shortId}.ass`), output: path.join(workDir, path.posix.basename(key)), outro, memeHook, reuse,
        onProgress: (f) => events.onProgress?.(f), speech: { words: transcript.words, sentences: transcript.sentences },
      }, signal, media);
      // The new MP4 replaces the old one atomically (put); then its captions, cues and plan become the ones
      // exports read. A clip without captions has no caption words to export or correct.
      const kept = await this.keepRender(art, shortId, key, rendered);
      if (cues) await art.write(JobArtifacts.cuesName(shortId), cues);
      else await art.remove(JobArtifacts.cuesName(shortId));
      await art.write(JobArtifacts.renderPlanName(shortId), kept);
      const coverKey = await this.coverFor(kept, workDir, key, options.hookTitle ? title : null, signal, media);
      const sentences = req.sentences;
      await store.finishRerender(shortId, {
        title,
        reason: withLayoutReason(planned.copy.reason, rendered.reframe.layout, transcript.language),
        sentenceIndexes: sameRange ? short.sentenceIndexes : sentencesIn(sentences, clip),
        startTimestamp: round3(clip.start), endTimestamp: round3(clip.end),
        duration: round3((memeHook?.seconds ?? 0) + clip.end - clip.start + (outro?.seconds ?? 0)),
        layout: rendered.reframe.layout,
        fileKey: key,
        coverKey,
        edit,
      }, events.lease);
    } catch (e) {
      if (signal.aborted && signal.reason instanceof ShutdownSignal) return await store.getShort(requestId, shortId);
      if (lostLease(e, signal)) {
        lost = true; // another process renders it now, in the same scratch folder: left to it
        return await store.getShort(requestId, shortId);
      }
      const why = signal.aborted || e instanceof AbortedError ? 'the re-render was interrupted' : failureReason(e, reasons);
      try {
        await store.abandonRerender(shortId, why, events.lease);
      } catch (refused) {
        if (!(refused instanceof LeaseLost)) throw refused;
      }
    } finally {
      if (!lost) scratch.removeRerender(shortId);
    }
    return await store.getShort(requestId, shortId);
  }

  /**
   * A re-rendered clip's caption cues. Corrections are about the captions as the user saw them (H4's
   * caption-edits.ts): they apply to the clip's current cues first; those words, corrections made before
   * included, then replace the transcript's inside the current range, and the cues of the (new) range are
   * built from them, so a fixed word stays fixed when the clip is moved or lengthened.
   */
  private async rerenderCues(a: {
    id: string; clip: TimeRange; current: TimeRange; sameRange: boolean; transcript: Transcript; template: CaptionTemplate; options: CreateRequest;
    source: FetchedSource; seenCues: CaptionCue[] | null; captionEdits: CaptionEdits | undefined; subtitleOffset: number; signal: AbortSignal; media: MediaRunner;
  }): Promise<CaptionCue[]> {
    const { transcript, template, options, signal } = a;
    const translated = Boolean(options.captionLanguage) && options.captionLanguage !== transcript.language;
    const wordsPerCue = template.wordsPerLine * template.maxLines;
    const build = async (words: Transcript['words']) => (await captionCuesFor([{ id: a.id, clip: a.clip }], { ...transcript, words }, template, {
      from: transcript.language, to: options.captionLanguage, translator: translatorFromEnv(), signal,
      speechToEnglish: (clip) => this.deps.transcriber.translateToEnglish({ mediaPath: a.source.path, range: clip, language: transcript.language, media: a.media, signal }),
    })).cues.get(a.id) ?? [];
    if (translated) {
      // Translated phrases are not the transcript's words: the ones seen are kept while the range and the
      // template's phrase size hold (no second call to the translator), and corrected as asked.
      const seen = a.sameRange && a.seenCues ? a.seenCues : await build(transcript.words);
      return a.captionEdits ? applyCaptionEdits(seen, a.captionEdits, { subtitleOffset: a.subtitleOffset }) : seen;
    }
    let seen = a.seenCues ?? buildCues(transcript.words, a.current, { wordsPerCue });
    if (a.captionEdits) seen = applyCaptionEdits(seen, a.captionEdits, { subtitleOffset: a.subtitleOffset });
    return build(wordsWithEdits(transcript.words, seen, a.current));
  }

  private async fetchStage(req: RequestRecord, art: JobArtifacts, scratch: JobScratch, signal: AbortSignal, onProgress: (f: number) => void, media: MediaRunner): Promise<SourceCheckpoint> {
    const saved = await art.read<SourceCheckpoint>('source');
    // A checkpoint of an earlier version names a scratch file only: a job resumed where it is gone fetches again.
    if (saved && (existsSync(saved.source.path) || (saved.sourceKey && await this.deps.blobs.stat(saved.sourceKey)))) return saved;
    const upload = req.options.source.kind === 'upload' ? await finishedUpload(this.deps.blobs, req.accountId, req.options.source.uploadId) : null;
    if (req.options.source.kind === 'upload' && !upload) throw new PipelineError('fetching_video', 'the uploaded file is gone');
    // An upload is already a blob (its key the source's); anything else is fetched. The stage table retries a
    // transient download as a whole stage (stages.ts), so the downloader does not retry too.
    const source = upload ? await this.deps.blobs.withLocalFile(upload.key, (file) => uploadedSource(file, upload.filename, req.url))
      : await fetchSource(req.options.source, { workDir: scratch.workDir, signal, media, onProgress, checkUrl: this.deps.checkUrl, downloadRetries: 0 });
    // Refuses a source above MAX_SOURCE_SECONDS (probe.ts) with video_too_long before anything else is judged.
    const { info } = await probeMedia(source.path, signal, { media });
    if (!info.hasVideo) throw new PipelineError('fetching_video', 'the file has no video stream (audio only)');
    if (!info.hasAudio) throw new PipelineError('fetching_video', 'the video has no audio track, so there is no speech to find clips in');
    // A whole recording (no end given, local mode) ends where the source does, with nothing to report.
    const { range, adjustment } = clampRange({ start: req.options.start, end: req.options.end, toSourceEnd: req.options.toSourceEnd }, info.durationSec);
    await this.deps.store.saveSourceFacts(req.id, { title: source.title, heatmap: source.heatmap, start: range.start, end: range.end, timeAdjustment: adjustment });
    const checkpoint: SourceCheckpoint = { source, info, range };
    if (upload) {
      checkpoint.sourceKey = upload.key;
      source.path = await this.deps.blobs.withLocalFile(upload.key, async (file) => file);
    } else if (source.downloaded) {
      // A download is an object of the request while it runs (module comment): later stages may run elsewhere.
      checkpoint.sourceKey = art.sourceKey(path.extname(source.path));
      await this.deps.blobs.putFile(checkpoint.sourceKey, source.path, { move: true });
      source.path = await this.deps.blobs.withLocalFile(checkpoint.sourceKey, async (file) => file);
    }
    await art.write('source', checkpoint);
    return checkpoint;
  }

  private async highlightStage(req: RequestRecord, art: JobArtifacts, source: FetchedSource, range: TimeRange,
    transcript: Transcript, signal: AbortSignal, media: MediaRunner, audio: RangeAudio): Promise<PlanCheckpoint> {
    const saved = await art.read<PlanCheckpoint>('plan');
    if (saved) return saved;
    let ranked = await pickMoments({
      mediaPath: source.path, transcript, range, heatmap: source.heatmap, preferredLength: req.options.preferredLength,
      maxShorts: req.options.maxShorts, noClipping: req.options.noClipping, audio, media, signal,
    });
    if (ranked.length === 0) throw new PipelineError('finding_highlights', 'no segment of the range could stand alone as a clip');
    const llm = llmConfigFromEnv();
    if (llm) {
      const text = (h: Highlight) => joinWords(h.sentenceIndexes.map((i) => transcript.sentences[i]?.sentence ?? ''));
      ranked = await refineWithLlm(llm, ranked.map((r) => ({ ...r, text: text(r.highlight) })), signal, transcript.language);
    }
    const plan: PlanCheckpoint = { clips: ranked.map((r) => ({ id: randomUUID(), ...r })) };
    await art.write('plan', plan);
    return plan;
  }

  private async renderStage(req: RequestRecord, art: JobArtifacts, scratch: JobScratch, source: FetchedSource, info: MediaInfo, transcript: Transcript,
    plan: PlanCheckpoint, signal: AbortSignal, onProgress: (f: number) => void, events: JobEvents, reasons: ReasonContext, media: MediaRunner): Promise<ShortRecord[]> {
    const ctx = await this.renderContext(req, art, scratch.workDir, source, info, transcript, plan, signal, media);
    const total = plan.clips.length;
    const fractions = new Array<number>(total).fill(0);
    const report = () => onProgress(fractions.reduce((a, b) => a + b, 0) / total);
    let done = 0;
    return mapPool(plan.clips, this.deps.render.concurrency, async (planned, rank): Promise<ShortRecord> => {
      const record = await this.renderClip(ctx, planned, rank, (f) => { fractions[rank] = f; report(); }, reasons);
      fractions[rank] = 1;
      report();
      events.onClipRendered?.(++done, total);
      return record;
    });
  }

  /**
   * What the clips of `plan` share: their caption cues (translated when captionLanguage asks) made before any
   * render — a failed translation fails them all, never leaving clips captioned in the wrong language — and
   * the end card, fetched (through the URL guard for API requests) and written once in `workDir`.
   */
  private async renderContext(req: RequestRecord, art: JobArtifacts, workDir: string, source: FetchedSource, info: MediaInfo, transcript: Transcript,
    plan: PlanCheckpoint, signal: AbortSignal, media: MediaRunner): Promise<RenderContext> {
    const { width, height } = this.deps.render;
    const template = findTemplate(req.options.templateId) ?? DEFAULT_TEMPLATE;
    const captionSet = req.options.captionsEnabled
      ? await captionCuesFor(plan.clips.map((c) => ({ id: c.id, clip: { start: c.highlight.start, end: c.highlight.end } })), transcript, template,
        {
          from: transcript.language, to: req.options.captionLanguage, translator: translatorFromEnv(), signal,
          speechToEnglish: (clip) => this.deps.transcriber.translateToEnglish({ mediaPath: source.path, range: clip, language: transcript.language, media, signal }),
        })
      : null;
    const outro = req.options.outroEnabled ? await outroFor(req.options, workDir, template, info, { width, height }, this.deps.checkUrl, signal) : null;
    return {
      req, art, workDir, source, info, transcript, template, captionSet, outro, signal, media,
      memeFor: req.options.memeHook ? memeHookChooser(req.options) : null, memeAudio: new Map(),
    };
  }

  /** One planned clip rendered, stored and covered (or resumed from its stored MP4); a failure is recorded on the clip. */
  private async renderClip(ctx: RenderContext, { id, highlight, copy }: PlanCheckpoint['clips'][number], rank: number,
    onFraction: (f: number) => void, reasons: ReasonContext): Promise<ShortRecord> {
    const { req, art, workDir, source, info, transcript, template, captionSet, outro, signal, media } = ctx;
    const { width, height } = this.deps.render;
    const key = art.clipKey(rank, id);
    const clip: TimeRange = { start: highlight.start, end: highlight.end };
    const meme = ctx.memeFor?.(id) ?? null;
    const record: ShortRecord = {
      id, requestId: req.id, rank, title: copy.title, sentenceIndexes: highlight.sentenceIndexes, reason: copy.reason,
      description: copy.description, viralScore: highlight.viralScore, startTimestamp: round3(clip.start), endTimestamp: round3(clip.end),
      // The short lasts its meme intro, its content and the end card (spec 2.7: "the short's total
      // duration grows by the hook's length"); start/endTimestamp stay the source range.
      duration: round3((meme?.duration ?? 0) + clip.end - clip.start + (outro?.seconds ?? 0)),
      width, height, recompiling: false, error: false, errorMessage: null, fileKey: key, coverKey: null,
    };
    try {
      // The clip's own checkpoint is its blob: a retry (stages.ts, a render killed for memory) starts from it.
      await withRetry(STAGES.render.retry, async () => {
        if (await this.deps.blobs.stat(key)) {
          // A job stopped between the render and its cover makes the cover on resuming; the kept plan also
          // says what layout the clip got (auto resolved).
          const rendered = await art.read<RenderPlan>(JobArtifacts.renderPlanName(id));
          record.layout = rendered?.reframe.layout ?? null;
          const coverKey = coverKeyOf(key);
          if (await this.deps.blobs.stat(coverKey)) record.coverKey = coverKey;
          // The cover is drawn from the source, which is where this run has it (fetched again on another machine).
          else if (rendered) record.coverKey = await this.coverFor({ ...rendered, input: { ...rendered.input, path: source.path } }, workDir, key,
            req.options.hookTitle ? copy.title : null, signal, media);
        } else {
          const cues = captionSet ? (captionSet.cues.get(id) ?? []) : null;
          // The words as captioned (clip time, translated when asked): what SRT/VTT exports and caption edits work on.
          if (cues) await art.write(JobArtifacts.cuesName(id), cues);
          const rendered = await this.renderOne(req, source, info, transcript.language, {
            id, clip, title: copy.title, options: req.options, cues, template: captionSet?.template ?? template,
            assPath: path.join(workDir, `${id}.ass`), output: path.join(workDir, path.posix.basename(key)), outro,
            speech: { words: transcript.words, sentences: transcript.sentences },
            memeHook: meme ? await memeHookPlan(meme, outputFps(info) ?? info.fps, ctx.memeAudio, signal, media) : null,
            onProgress: onFraction,
          }, signal, media);
          // What the clip got (auto resolved), for the request detail and `shorts get`.
          record.layout = rendered.reframe.layout;
          // The clip (its own checkpoint) and its captions stored; then what exports, re-renders and a resumed
          // job start from: the exact plan, measured gains included.
          const kept = await this.keepRender(art, id, key, rendered);
          await art.write(JobArtifacts.renderPlanName(id), kept);
          record.coverKey = await this.coverFor(kept, workDir, key, req.options.hookTitle ? copy.title : null, signal, media);
        }
      }, { signal, stop: passesThrough(signal) });
    } catch (e) {
      if (signal.aborted || e instanceof AbortedError || lostLease(e, signal)) throw e;
      record.error = true;
      record.errorMessage = failureReason(e, reasons);
      record.fileKey = null;
      record.coverKey = null;
    }
    // The reason says what a two-person or screen layout shows ("Two people: split screen, one per half.").
    if (record.layout && !record.error) record.reason = withLayoutReason(record.reason, record.layout, transcript.language);
    return record;
  }

  /**
   * Puts a clip rendered in scratch under its key (replacing an earlier one atomically) and its captions
   * under theirs (or removes earlier captions when it has none). Returns the plan to keep: it names the stored
   * files' local copies — with the data dir the clip and the captions themselves, which exports of a local
   * request name — instead of the scratch files that are gone.
   */
  private async keepRender(art: JobArtifacts, shortId: string, clipKey: string, rendered: RenderPlan): Promise<RenderPlan> {
    const { blobs } = this.deps;
    const localCopy = (key: string) => blobs.withLocalFile(key, async (file) => file);
    // The captions first: the clip is the render's checkpoint (a resumed job skips a clip that is stored).
    const captionsKey = art.captionsKey(shortId);
    let captions = rendered.captions;
    if (captions) {
      await blobs.putFile(captionsKey, captions.assPath, { move: true });
      captions = { ...captions, assPath: await localCopy(captionsKey) };
    } else await blobs.delete(captionsKey);
    await blobs.putFile(clipKey, rendered.output.path, { move: true });
    return { ...rendered, output: { ...rendered.output, path: await localCopy(clipKey) }, captions };
  }

  /** The clip's cover, drawn in `workDir` and put beside its MP4 (clip-cover.ts); returns its key, null when none could be made. */
  private coverFor(plan: RenderPlan, workDir: string, clipKey: string, hookTitle: string | null, signal: AbortSignal,
    media: MediaRunner): Promise<string | null> {
    const key = coverKeyOf(clipKey);
    return putClipCover(plan, { key, out: path.join(workDir, path.posix.basename(key)) }, this.deps.blobs, { hookTitle, signal, media, faces: this.deps.faces });
  }

  /** One clip planned and rendered (render-plan-builder.ts) with this engine's output settings, faces and the account's blur preference. */
  private renderOne(req: RequestRecord, source: FetchedSource, info: MediaInfo, language: string, c: ClipRender, signal: AbortSignal, media: MediaRunner): Promise<RenderPlan> {
    const { blurPreference } = this.deps;
    return renderOne({ output: this.deps.render, faces: this.deps.faces, blurPreference: blurPreference && (() => blurPreference(req.accountId)) },
      source, info, language, c, signal, media);
  }
}

/** A planned clip that has no video: its render failed for `why` (finalize counts it as failed). */
function erroredClip(requestId: string, { id, highlight, copy }: PlanCheckpoint['clips'][number], rank: number, why: string, size: { width: number; height: number }): ShortRecord {
  return {
    id, requestId, rank, title: copy.title, sentenceIndexes: highlight.sentenceIndexes, reason: copy.reason, description: copy.description,
    viralScore: highlight.viralScore, startTimestamp: round3(highlight.start), endTimestamp: round3(highlight.end), duration: round3(highlight.end - highlight.start),
    width: size.width, height: size.height, recompiling: false, error: true, errorMessage: why, fileKey: null, coverKey: null,
  };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
