// A clip's re-render (issue 14: the edit of one clip of a completed request, a `render` job of its own or the
// local client's foreground run): from the request's checkpoints (checkpoints.ts), the clip's last render plan
// reused where the change does not touch it, and the new render stored as a clip's first one is (clip-render.ts).
import { LeaseLost, type Lease } from '../ports/leases.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { JobArtifacts } from './artifacts.js';
import { JobScratch } from './scratch.js';
import { failureReason, type ReasonContext } from './failure-reason.js';
import { AbortedError } from '../media/process.js';
import type { MediaRunner } from '../ports/media-runner.js';
import { outputFps, type RenderPlan } from '../media/render-plan.js';
import { fetchSource } from '../pipeline/fetch/fetch.js';
import { keepsSource } from './uploads.js';
import { withLayoutReason } from '../pipeline/analyze/reason.js';
import { buildCues } from '../pipeline/captions/captions.js';
import { captionCuesFor } from '../pipeline/captions/caption-cues.js';
import { translatorFromEnv } from '../pipeline/captions/translate.js';
import { DEFAULT_TEMPLATE, findTemplate } from '../catalog/templates.js';
import { measureIntegratedLoudness } from '../media/speech-loudness.js';
import { PipelineError } from '../errors.js';
import type { CaptionCue } from '../domain/captions.js';
import type { FetchedSource } from '../domain/source.js';
import type { TimeRange } from '../domain/time.js';
import type { Transcript } from '../domain/transcript.js';
import { applyCaptionEdits, wordsWithEdits, type CaptionEdits } from '../pipeline/captions/caption-edits.js';
import { coverRange } from '../pipeline/transcribe/transcript-extend.js';
import { clipOptions, sentencesIn } from '../pipeline/render/clip-edit.js';
import { memeHookChooser, memeHookPlan, outroFor } from '../pipeline/render/clip-extras.js';
import type { ClipRender } from '../pipeline/render/render-plan-builder.js';
import type { CaptionTemplate } from '../catalog/templates.js';
import type { ShortRecord } from '../ports/request-store.js';
import type { ClipEdit, CreateRequest } from '../domain/request.js';
import type { OrchestratorDeps } from './orchestrator-deps.js';
import type { PlanCheckpoint, SourceCheckpoint } from './checkpoints.js';
import { lostLease, ShutdownSignal } from './interruptions.js';
import { coverFor, keepRender, renderOne, round3 } from './clip-render.js';

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
export async function rerender(deps: OrchestratorDeps, requestId: string, shortId: string, signal: AbortSignal,
  events: { onProgress?: (fraction: number) => void; lease?: Lease } = {}): Promise<ShortRecord | undefined> {
  const { store } = deps;
  const req = await store.getRequest(requestId);
  const short = await store.getShort(requestId, shortId);
  if (!req || !short?.recompiling || !short.pendingEdit) return short;
  const art = new JobArtifacts(deps.blobs, requestId);
  const scratch = new JobScratch(deps.dataDir, requestId);
  const workDir = scratch.rerenderDir(shortId);
  const reasons: ReasonContext = { dataDir: deps.dataDir, hideAllPaths: req.origin === 'api' };
  let lost = false;
  const media = deps.media.scoped(signal);
  try {
    const saved = await art.read<SourceCheckpoint>('source');
    const planned = (await art.read<PlanCheckpoint>('plan'))?.clips.find((c) => c.id === shortId);
    if (!saved || !planned) throw new PipelineError('finalizing', 'the checkpoints this clip was made from are gone, so it cannot be re-rendered');
    let source = saved.source;
    if (!existsSync(source.path) && keepsSource(req) && saved.sourceKey && await deps.blobs.stat(saved.sourceKey)) {
      // A kept source (uploads.ts) is read where it is stored, never fetched again.
      source = { ...source, path: await deps.blobs.withLocalFile(saved.sourceKey, async (file) => file) };
    } else if (!existsSync(source.path)) {
      // A downloaded source is deleted once its request completes, and another machine never had it:
      // fetched again, through the same URL guard (checkpoints.ts's module comment says why it is not a blob).
      source = await fetchSource(req.options.source, { workDir, signal, media, checkUrl: deps.checkUrl });
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
      ?? await deps.transcriber.transcribe({ mediaPath: source.path, range: saved.range, language, cacheKey: source.contentKey, media, signal });
    if (clip.start < transcript.range.start || clip.end > transcript.range.end)
      transcript = await coverRange(deps.transcriber, transcript, clip, { mediaPath: source.path, cacheKey: source.contentKey, signal });

    const template = findTemplate(options.templateId) ?? DEFAULT_TEMPLATE;
    const prev = await art.read<RenderPlan>(JobArtifacts.renderPlanName(shortId));
    const seenCues = await art.read<CaptionCue[]>(JobArtifacts.cuesName(shortId));
    const cues = options.captionsEnabled ? await rerenderCues(deps, {
      id: shortId, clip, current, sameRange, transcript, template, options, source, seenCues, captionEdits: captionEdits as CaptionEdits | undefined, signal, media,
      // An SRT/VTT sent back is in the MP4's time (the export's): after the meme intro the user saw.
      subtitleOffset: prev?.memeHook?.seconds ?? 0,
    }) : null;
    const outro = options.outroEnabled
      ? await outroFor(options, workDir, template, info, { width: deps.render.width, height: deps.render.height }, deps.checkUrl, signal) : null;
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
    const rendered = await renderOne(deps, req, source, info, transcript.language, {
      id: shortId, clip, title, options, cues, template: cues && options.captionLanguage && options.captionLanguage !== transcript.language ? { ...template, animation: 'none' } : template,
      assPath: path.join(workDir, `${shortId}.ass`), output: path.join(workDir, path.posix.basename(key)), outro, memeHook, reuse,
      onProgress: (f) => events.onProgress?.(f), speech: { words: transcript.words, sentences: transcript.sentences },
    }, signal, media);
    // The new MP4 replaces the old one atomically (put); then its captions, cues and plan become the ones
    // exports read. A clip without captions has no caption words to export or correct.
    const kept = await keepRender(deps, art, shortId, key, rendered);
    if (cues) await art.write(JobArtifacts.cuesName(shortId), cues);
    else await art.remove(JobArtifacts.cuesName(shortId));
    await art.write(JobArtifacts.renderPlanName(shortId), kept);
    const coverKey = await coverFor(deps, kept, workDir, key, options.hookTitle ? title : null, signal, media);
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
async function rerenderCues(deps: OrchestratorDeps, a: {
  id: string; clip: TimeRange; current: TimeRange; sameRange: boolean; transcript: Transcript; template: CaptionTemplate; options: CreateRequest;
  source: FetchedSource; seenCues: CaptionCue[] | null; captionEdits: CaptionEdits | undefined; subtitleOffset: number; signal: AbortSignal; media: MediaRunner;
}): Promise<CaptionCue[]> {
  const { transcript, template, options, signal } = a;
  const translated = Boolean(options.captionLanguage) && options.captionLanguage !== transcript.language;
  const wordsPerCue = template.wordsPerLine * template.maxLines;
  const build = async (words: Transcript['words']) => (await captionCuesFor([{ id: a.id, clip: a.clip }], { ...transcript, words }, template, {
    from: transcript.language, to: options.captionLanguage, translator: translatorFromEnv(), signal,
    speechToEnglish: (clip) => deps.transcriber.translateToEnglish({ mediaPath: a.source.path, range: clip, language: transcript.language, media: a.media, signal }),
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
