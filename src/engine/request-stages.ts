// What each request stage does (the table of stages.ts: fetch -> transcribe -> analyze -> render) with the run's
// state, leaving its result on it for the next and its checkpoint for a retry, a restart or another machine.
// request-run.ts walks them (in one process, or one per stage job); what a stage does with media lives in its
// folder of src/pipeline.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { JobArtifacts } from './artifacts.js';
import type { JobScratch } from './scratch.js';
import { mapPool } from './pool.js';
import { probeMedia } from '../media/probe.js';
import type { ReasonContext } from './failure-reason.js';
import type { MediaRunner } from '../ports/media-runner.js';
import type { RangeAudio } from '../pipeline/transcribe/speech-audio.js';
import { fetchSource, uploadedSource } from '../pipeline/fetch/fetch.js';
import { finishedUpload } from './uploads.js';
import { clampRange } from '../pipeline/fetch/range.js';
import { languageForAuto, mismatchWarning, unsureDetectionWarning } from '../pipeline/transcribe/model-choice.js';
import { scriptWarning } from '../pipeline/transcribe/script-warning.js';
import type { Language } from '../languages.js';
import { pickMoments } from '../pipeline/analyze/moments.js';
import { llmConfigFromEnv, refineWithLlm } from '../pipeline/analyze/llm.js';
import { joinWords, scriptMismatch } from '../pipeline/shared/script-text.js';
import { PipelineError } from '../errors.js';
import type { Highlight } from '../domain/highlight.js';
import type { FetchedSource, MediaInfo } from '../domain/source.js';
import type { TimeRange } from '../domain/time.js';
import type { Transcript } from '../domain/transcript.js';
import type { RequestStageName } from './stages.js';
import type { RequestRecord, ShortRecord } from '../ports/request-store.js';
import type { WriteQueue } from './write-queue.js';
import type { JobEvents, OrchestratorDeps } from './orchestrator-deps.js';
import type { PlanCheckpoint, SourceCheckpoint } from './checkpoints.js';
import { renderClip, renderContext } from './clip-render.js';

/** One request's run as it goes through the stages: what it started with and what each stage made. */
export interface RunState {
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

/** What each request stage does with the run's state; each leaves its result on it for the next. */
export const STAGE_HANDLERS: Record<RequestStageName, (deps: OrchestratorDeps, run: RunState, onProgress: (fraction: number) => void) => Promise<void>> = {
  fetch: async (deps, run, onProgress) => {
    const { req, art, scratch, signal, media } = run;
    run.source = await fetchStage(deps, req, art, scratch, signal, onProgress, media);
    run.reasons.sourcePath = run.source.source.path;
  },
  transcribe: async (deps, run, onProgress) => {
    const { store } = deps;
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
    const transcript = await deps.transcriber.transcribe({
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
  analyze: async (_deps, run) => {
    const { source, range } = run.source!;
    run.plan = await highlightStage(run.req, run.art, source, range, run.transcript!, run.signal, run.media, run.audio!);
    await run.audio!.remove();
  },
  render: async (deps, run, onProgress) => {
    const { source, info } = run.source!;
    run.shorts = await renderStage(deps, run.req, run.art, run.scratch, source, info, run.transcript!, run.plan!, run.signal, onProgress, run.events, run.reasons, run.media);
  },
};

async function fetchStage(deps: OrchestratorDeps, req: RequestRecord, art: JobArtifacts, scratch: JobScratch, signal: AbortSignal, onProgress: (f: number) => void,
  media: MediaRunner): Promise<SourceCheckpoint> {
  const saved = await art.read<SourceCheckpoint>('source');
  // A checkpoint of an earlier version names a scratch file only: a job resumed where it is gone fetches again.
  if (saved && (existsSync(saved.source.path) || (saved.sourceKey && await deps.blobs.stat(saved.sourceKey)))) return saved;
  const upload = req.options.source.kind === 'upload' ? await finishedUpload(deps.blobs, req.accountId, req.options.source.uploadId) : null;
  if (req.options.source.kind === 'upload' && !upload) throw new PipelineError('fetching_video', 'the uploaded file is gone');
  // An upload is already a blob (its key the source's); anything else is fetched. The stage table retries a
  // transient download as a whole stage (stages.ts), so the downloader does not retry too.
  const source = upload ? await deps.blobs.withLocalFile(upload.key, (file) => uploadedSource(file, upload.filename, req.url))
    : await fetchSource(req.options.source, { workDir: scratch.workDir, signal, media, onProgress, checkUrl: deps.checkUrl, downloadRetries: 0 });
  // Refuses a source above MAX_SOURCE_SECONDS (probe.ts) with video_too_long before anything else is judged.
  const { info } = await probeMedia(source.path, signal, { media });
  if (!info.hasVideo) throw new PipelineError('fetching_video', 'the file has no video stream (audio only)');
  if (!info.hasAudio) throw new PipelineError('fetching_video', 'the video has no audio track, so there is no speech to find clips in');
  // A whole recording (no end given, local mode) ends where the source does, with nothing to report.
  const { range, adjustment } = clampRange({ start: req.options.start, end: req.options.end, toSourceEnd: req.options.toSourceEnd }, info.durationSec);
  await deps.store.saveSourceFacts(req.id, { title: source.title, heatmap: source.heatmap, start: range.start, end: range.end, timeAdjustment: adjustment });
  const checkpoint: SourceCheckpoint = { source, info, range };
  if (upload) {
    checkpoint.sourceKey = upload.key;
    source.path = await deps.blobs.withLocalFile(upload.key, async (file) => file);
  } else if (source.downloaded) {
    // A download is an object of the request while it runs (checkpoints.ts's module comment): later stages may run elsewhere.
    checkpoint.sourceKey = art.sourceKey(path.extname(source.path));
    await deps.blobs.putFile(checkpoint.sourceKey, source.path, { move: true });
    source.path = await deps.blobs.withLocalFile(checkpoint.sourceKey, async (file) => file);
  }
  await art.write('source', checkpoint);
  return checkpoint;
}

async function highlightStage(req: RequestRecord, art: JobArtifacts, source: FetchedSource, range: TimeRange,
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

async function renderStage(deps: OrchestratorDeps, req: RequestRecord, art: JobArtifacts, scratch: JobScratch, source: FetchedSource, info: MediaInfo, transcript: Transcript,
  plan: PlanCheckpoint, signal: AbortSignal, onProgress: (f: number) => void, events: JobEvents, reasons: ReasonContext, media: MediaRunner): Promise<ShortRecord[]> {
  const ctx = await renderContext(deps, req, art, scratch.workDir, source, info, transcript, plan, signal, media);
  const total = plan.clips.length;
  const fractions = new Array<number>(total).fill(0);
  const report = () => onProgress(fractions.reduce((a, b) => a + b, 0) / total);
  let done = 0;
  return mapPool(plan.clips, deps.render.concurrency, async (planned, rank): Promise<ShortRecord> => {
    const record = await renderClip(deps, ctx, planned, rank, (f) => { fractions[rank] = f; report(); }, reasons);
    fractions[rank] = 1;
    report();
    events.onClipRendered?.(++done, total);
    return record;
  });
}
