// Renders the planned clips of a request (the render stage of a local run, or one clip's render job): what the
// clips share made once (renderContext), then each clip rendered, its MP4, captions and render plan stored and its
// cover drawn (renderClip); a failed clip is recorded on the clip, the request completes with the others. A
// re-render (rerender.ts) stores its new render the same way (keepRender, coverFor, renderOne).
import path from 'node:path';
import { JobArtifacts } from './artifacts.js';
import { coverKeyOf } from '../ports/blob-store.js';
import { failureReason, type ReasonContext } from './failure-reason.js';
import { AbortedError } from '../media/process.js';
import type { MediaRunner } from '../ports/media-runner.js';
import { outputFps, type RenderPlan } from '../media/render-plan.js';
import { withLayoutReason } from '../pipeline/analyze/reason.js';
import { captionCuesFor } from '../pipeline/captions/caption-cues.js';
import { translatorFromEnv } from '../pipeline/captions/translate.js';
import { DEFAULT_TEMPLATE, findTemplate } from '../catalog/templates.js';
import type { FetchedSource, MediaInfo } from '../domain/source.js';
import type { TimeRange } from '../domain/time.js';
import type { Transcript } from '../domain/transcript.js';
import { memeHookChooser, memeHookPlan, outroFor } from '../pipeline/render/clip-extras.js';
import { putClipCover } from '../pipeline/render/clip-cover.js';
import { renderOne as renderPlanned, type ClipRender } from '../pipeline/render/render-plan-builder.js';
import type { CaptionTemplate } from '../catalog/templates.js';
import { STAGES, withRetry } from './stages.js';
import type { RequestRecord, ShortRecord } from '../ports/request-store.js';
import type { OrchestratorDeps } from './orchestrator-deps.js';
import type { PlanCheckpoint } from './checkpoints.js';
import { lostLease, passesThrough } from './interruptions.js';

/** What the clips rendered together share (renderContext). */
export interface RenderContext {
  req: RequestRecord; art: JobArtifacts; workDir: string; source: FetchedSource; info: MediaInfo; transcript: Transcript; template: CaptionTemplate;
  captionSet: Awaited<ReturnType<typeof captionCuesFor>> | null; outro: RenderPlan['outro'] | null; signal: AbortSignal; media: MediaRunner;
  memeFor: ((id: string) => ReturnType<ReturnType<typeof memeHookChooser>>) | null; memeAudio: Map<string, Promise<boolean>>;
}

/**
 * What the clips of `plan` share: their caption cues (translated when captionLanguage asks) made before any
 * render — a failed translation fails them all, never leaving clips captioned in the wrong language — and
 * the end card, fetched (through the URL guard for API requests) and written once in `workDir`.
 */
export async function renderContext(deps: OrchestratorDeps, req: RequestRecord, art: JobArtifacts, workDir: string, source: FetchedSource, info: MediaInfo,
  transcript: Transcript, plan: PlanCheckpoint, signal: AbortSignal, media: MediaRunner): Promise<RenderContext> {
  const { width, height } = deps.render;
  const template = findTemplate(req.options.templateId) ?? DEFAULT_TEMPLATE;
  const captionSet = req.options.captionsEnabled
    ? await captionCuesFor(plan.clips.map((c) => ({ id: c.id, clip: { start: c.highlight.start, end: c.highlight.end } })), transcript, template,
      {
        from: transcript.language, to: req.options.captionLanguage, translator: translatorFromEnv(), signal,
        speechToEnglish: (clip) => deps.transcriber.translateToEnglish({ mediaPath: source.path, range: clip, language: transcript.language, media, signal }),
      })
    : null;
  const outro = req.options.outroEnabled ? await outroFor(req.options, workDir, template, info, { width, height }, deps.checkUrl, signal) : null;
  return {
    req, art, workDir, source, info, transcript, template, captionSet, outro, signal, media,
    memeFor: req.options.memeHook ? memeHookChooser(req.options) : null, memeAudio: new Map(),
  };
}

/** One planned clip rendered, stored and covered (or resumed from its stored MP4); a failure is recorded on the clip. */
export async function renderClip(deps: OrchestratorDeps, ctx: RenderContext, { id, highlight, copy }: PlanCheckpoint['clips'][number], rank: number,
  onFraction: (f: number) => void, reasons: ReasonContext): Promise<ShortRecord> {
  const { req, art, workDir, source, info, transcript, template, captionSet, outro, signal, media } = ctx;
  const { width, height } = deps.render;
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
      if (await deps.blobs.stat(key)) {
        // A job stopped between the render and its cover makes the cover on resuming; the kept plan also
        // says what layout the clip got (auto resolved).
        const rendered = await art.read<RenderPlan>(JobArtifacts.renderPlanName(id));
        record.layout = rendered?.reframe.layout ?? null;
        const coverKey = coverKeyOf(key);
        if (await deps.blobs.stat(coverKey)) record.coverKey = coverKey;
        // The cover is drawn from the source, which is where this run has it (fetched again on another machine).
        else if (rendered) record.coverKey = await coverFor(deps, { ...rendered, input: { ...rendered.input, path: source.path } }, workDir, key,
          req.options.hookTitle ? copy.title : null, signal, media);
      } else {
        const cues = captionSet ? (captionSet.cues.get(id) ?? []) : null;
        // The words as captioned (clip time, translated when asked): what SRT/VTT exports and caption edits work on.
        if (cues) await art.write(JobArtifacts.cuesName(id), cues);
        const rendered = await renderOne(deps, req, source, info, transcript.language, {
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
        const kept = await keepRender(deps, art, id, key, rendered);
        await art.write(JobArtifacts.renderPlanName(id), kept);
        record.coverKey = await coverFor(deps, kept, workDir, key, req.options.hookTitle ? copy.title : null, signal, media);
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
export async function keepRender(deps: OrchestratorDeps, art: JobArtifacts, shortId: string, clipKey: string, rendered: RenderPlan): Promise<RenderPlan> {
  const { blobs } = deps;
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
export function coverFor(deps: OrchestratorDeps, plan: RenderPlan, workDir: string, clipKey: string, hookTitle: string | null, signal: AbortSignal,
  media: MediaRunner): Promise<string | null> {
  const key = coverKeyOf(clipKey);
  return putClipCover(plan, { key, out: path.join(workDir, path.posix.basename(key)) }, deps.blobs, { hookTitle, signal, media, faces: deps.faces });
}

/** One clip planned and rendered (render-plan-builder.ts) with this engine's output settings, faces and the account's blur preference. */
export function renderOne(deps: OrchestratorDeps, req: RequestRecord, source: FetchedSource, info: MediaInfo, language: string, c: ClipRender,
  signal: AbortSignal, media: MediaRunner): Promise<RenderPlan> {
  const { blurPreference } = deps;
  return renderPlanned({ output: deps.render, faces: deps.faces, blurPreference: blurPreference && (() => blurPreference(req.accountId)) },
    source, info, language, c, signal, media);
}

/** A planned clip that has no video: its render failed for `why` (finalize counts it as failed). */
export function erroredClip(requestId: string, { id, highlight, copy }: PlanCheckpoint['clips'][number], rank: number, why: string, size: { width: number; height: number }): ShortRecord {
  return {
    id, requestId, rank, title: copy.title, sentenceIndexes: highlight.sentenceIndexes, reason: copy.reason, description: copy.description,
    viralScore: highlight.viralScore, startTimestamp: round3(highlight.start), endTimestamp: round3(highlight.end), duration: round3(highlight.end - highlight.start),
    width: size.width, height: size.height, recompiling: false, error: true, errorMessage: why, fileKey: null, coverKey: null,
  };
}

export function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
