// Runs one request through the pipeline: fetch -> probe -> transcribe -> highlights -> write ->
// reframe -> captions -> render. It reports spec 3.2 steps, honours an AbortSignal at every stage
// (child processes are killed, not waited for), and checkpoints each stage so a retry resumes.
import { randomUUID } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { JobArtifacts } from './artifacts.js';
import { JobStore, type RequestRecord, type ShortRecord, type Step } from './job-store.js';
import { mapPool } from './pool.js';
import type { RenderSettings } from './render-settings.js';
import { probeMedia } from '../media/probe.js';
import { failureReason, type ReasonContext } from './failure-reason.js';
import { AbortedError } from '../media/process.js';
import { renderClip } from '../media/render.js';
import { PLATFORM_LOUDNESS, RENDER_PLAN_VERSION, outputFps, type RenderPlan } from '../media/render-plan.js';
import { fetchSource } from '../pipeline/fetch.js';
import type { UrlCheck } from '../net/download.js';
import { clampRange } from '../pipeline/range.js';
import type { Transcriber } from '../pipeline/transcribe.js';
import { languageForAuto, mismatchWarning, unsureDetectionWarning } from '../pipeline/model-choice.js';
import { languageLabel, type Language } from '../languages.js';
import { pickMoments } from '../pipeline/moments.js';
import { llmConfigFromEnv, refineWithLlm } from '../pipeline/llm.js';
import { planReframe } from '../pipeline/reframe.js';
import { withLayoutReason } from '../pipeline/reason.js';
import { buildAss, buildCues, captionBlocks, captionEmoji } from '../pipeline/captions.js';
import { captionTops } from '../pipeline/caption-placement.js';
import { clearOfBands, overlayBands, withOverlays } from '../pipeline/overlays.js';
import { DEFAULT_OUTRO_SECONDS, buildOutroAss, fetchOutroImage, outroHandle, outroLine, outroStingPath } from '../pipeline/outro.js';
import { phraseCues, snapPhrases, type TranslatedPhrase } from '../pipeline/whisper-translate.js';
import { joinWords, scriptMismatch, type ScriptMismatch } from '../pipeline/script-text.js';
import { cueText, pairLabel, supportsPair, translateTexts, translatedCues, translatorFromEnv, type TranslatorConfig } from '../pipeline/translate.js';
import { DEFAULT_TEMPLATE, findTemplate, fontsDir } from '../catalog/templates.js';
import { findMusic, musicFilePath, randomMusic } from '../catalog/music.js';
import { findGameVideo, gameVideoFilePath, randomGameOffset, randomGameVideo } from '../catalog/game-videos.js';
import { findMemeHook, memeHookCatalog, memeHookFilePath, memeHookForClip, type MemeHook } from '../catalog/meme-hooks.js';
import { measureIntegratedLoudness } from '../media/speech-loudness.js';
import { PipelineError } from '../errors.js';
import type { CaptionCue, ClipCopy, FetchedSource, Highlight, MediaInfo, ResolvedLayout, TimeRange, Transcript } from '../pipeline/types.js';
import type { CaptionTemplate } from '../catalog/templates.js';

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

/** Progress at the start of each step (spec 3.2); finer progress moves within [this, next step). */
const STEP_PROGRESS: Record<'fetching_video' | 'transcribing_audio' | 'finding_highlights' | 'finalizing', number> = {
  fetching_video: 20, transcribing_audio: 40, finding_highlights: 60, finalizing: 80,
};

export interface JobEvents {
  onStep?: (step: Step, progress: number) => void;
  onProgress?: (progress: number) => void;
  onClipRendered?: (done: number, total: number) => void;
}

export interface OrchestratorDeps {
  store: JobStore;
  transcriber: Transcriber;
  dataDir: string;
  render: RenderSettings;
  /** The account's saved background preference, used when blurBackground is omitted. */
  blurPreference?: (accountId: string) => boolean;
  /** The URL guard for downloads of API requests (every address and redirect checked). */
  checkUrl?: UrlCheck;
}

interface SourceCheckpoint { source: FetchedSource; info: MediaInfo; range: TimeRange }
interface PlanCheckpoint { clips: { id: string; highlight: Highlight; copy: ClipCopy }[] }

export class Orchestrator {
  constructor(private readonly deps: OrchestratorDeps) {}

  /** Runs a queued or interrupted request to a terminal state and returns it. Never throws for job failures. */
  async run(id: string, signal: AbortSignal, events: JobEvents = {}): Promise<RequestRecord> {
    const { store } = this.deps;
    const art = new JobArtifacts(this.deps.dataDir, id);
    // What failure reasons may say about paths (failure-reason.ts): filled in as the job learns them.
    const reasons: ReasonContext = { dataDir: this.deps.dataDir };
    try {
      const req = store.getRequest(id);
      if (!req) throw new Error(`request ${id} not found`);
      reasons.hideAllPaths = req.origin === 'api';
      const step = (s: keyof typeof STEP_PROGRESS) => {
        if (!store.advance(id, s, STEP_PROGRESS[s])) throw new AbortedError();
        events.onStep?.(s, STEP_PROGRESS[s]);
      };
      const within = (s: keyof typeof STEP_PROGRESS, span: number) => (fraction: number) => {
        const p = Math.floor(STEP_PROGRESS[s] + Math.max(0, Math.min(1, fraction)) * (span - 1));
        store.setProgress(id, p);
        events.onProgress?.(p);
      };

      step('fetching_video');
      const { source, info, range } = await this.fetchStage(req, art, signal, within('fetching_video', 20));
      reasons.sourcePath = source.path;

      step('transcribing_audio');
      const transcript = await this.deps.transcriber.transcribe({
        mediaPath: source.path, range, language: req.options.language, cacheKey: source.contentKey,
        // Advisory (issue 11): speech confidently detected in another language than the one named is a warning.
        checkLanguage: true,
        onLanguageDetected: (d) => {
          if (req.options.language === 'auto') {
            store.saveDetectedLanguage(id, languageForAuto(d));
            const unsure = unsureDetectionWarning(d);
            if (unsure) store.addWarning(id, unsure);
          }
          const warning = mismatchWarning(req.options.language, d);
          if (warning) store.addWarning(id, warning);
        },
        signal, onProgress: within('transcribing_audio', 20),
      });
      // "auto" resolved: every later stage works in the language the words are in (not persisted: the
      // stored options keep what was asked, the detected language has its own column).
      if (req.options.language === 'auto') req.options.language = transcript.language as Language;
      store.saveSentences(id, transcript.sentences.map(({ index, sentence, start, end }) => ({ index, sentence, start, end })));
      const script = scriptMismatch(transcript.language, transcript.sentences.map((s) => s.sentence).join(' '));
      if (script) store.addWarning(id, scriptWarning(transcript, script));
      if (transcript.sentences.length === 0)
        throw new PipelineError('transcribing_audio', 'no speech was found in the selected range, so there is nothing to clip');

      step('finding_highlights');
      const plan = await this.highlightStage(req, art, source, range, transcript, signal);

      step('finalizing');
      const shorts = await this.renderStage(req, art, source, info, transcript, plan, signal, within('finalizing', 20), events, reasons);
      if (signal.aborted) throw new AbortedError();
      store.replaceShorts(id, shorts);
      if (shorts.length > 0 && shorts.every((s) => s.error)) {
        throw new PipelineError('finalizing', `rendering failed for every clip: ${shorts[0]!.errorMessage ?? 'unknown error'}`);
      }
      store.finish(id, 'completed');
      events.onStep?.('completed', 100);
      if (source.downloaded) rmSync(source.path, { force: true });
      art.removeWork();
    } catch (e) {
      if (signal.aborted && signal.reason instanceof ShutdownSignal) return store.getRequest(id)!;
      if (signal.aborted || e instanceof AbortedError) {
        store.finish(id, 'cancelled');
        art.removeAll();
      } else {
        store.finish(id, 'failed', failureReason(e, reasons));
        art.removeAll();
      }
    }
    return store.getRequest(id)!;
  }

  private async fetchStage(req: RequestRecord, art: JobArtifacts, signal: AbortSignal, onProgress: (f: number) => void): Promise<SourceCheckpoint> {
    const saved = art.read<SourceCheckpoint>('source');
    if (saved && existsSync(saved.source.path)) return saved;
    const source = await fetchSource(req.options.source, { workDir: art.workDir, signal, onProgress, checkUrl: this.deps.checkUrl });
    // Refuses a source above MAX_SOURCE_SECONDS (probe.ts) with video_too_long before anything else is judged.
    const { info } = await probeMedia(source.path, signal);
    if (!info.hasVideo) throw new PipelineError('fetching_video', 'the file has no video stream (audio only)');
    if (!info.hasAudio) throw new PipelineError('fetching_video', 'the video has no audio track, so there is no speech to find clips in');
    const { range, adjustment } = clampRange({ start: req.options.start, end: req.options.end }, info.durationSec);
    this.deps.store.saveSourceFacts(req.id, { title: source.title, heatmap: source.heatmap, start: range.start, end: range.end, timeAdjustment: adjustment });
    const checkpoint: SourceCheckpoint = { source, info, range };
    art.write('source', checkpoint);
    return checkpoint;
  }

  private async highlightStage(req: RequestRecord, art: JobArtifacts, source: FetchedSource, range: TimeRange,
    transcript: Transcript, signal: AbortSignal): Promise<PlanCheckpoint> {
    const saved = art.read<PlanCheckpoint>('plan');
    if (saved) return saved;
    let ranked = await pickMoments({
      mediaPath: source.path, transcript, range, heatmap: source.heatmap, preferredLength: req.options.preferredLength,
      maxShorts: req.options.maxShorts, noClipping: req.options.noClipping, signal,
    });
    if (ranked.length === 0) throw new PipelineError('finding_highlights', 'no segment of the range could stand alone as a clip');
    const llm = llmConfigFromEnv();
    if (llm) {
      const text = (h: Highlight) => joinWords(h.sentenceIndexes.map((i) => transcript.sentences[i]?.sentence ?? ''));
      ranked = await refineWithLlm(llm, ranked.map((r) => ({ ...r, text: text(r.highlight) })), signal, transcript.language);
    }
    const plan: PlanCheckpoint = { clips: ranked.map((r) => ({ id: randomUUID(), ...r })) };
    art.write('plan', plan);
    return plan;
  }

  private async renderStage(req: RequestRecord, art: JobArtifacts, source: FetchedSource, info: MediaInfo, transcript: Transcript,
    plan: PlanCheckpoint, signal: AbortSignal, onProgress: (f: number) => void, events: JobEvents, reasons: ReasonContext): Promise<ShortRecord[]> {
    const { width, height, preset, crf, x264Params, concurrency } = this.deps.render;
    const template = findTemplate(req.options.templateId) ?? DEFAULT_TEMPLATE;
    const blur = req.options.blurBackground ?? this.deps.blurPreference?.(req.accountId) ?? true;
    // Every clip's caption cues (translated when captionLanguage asks) before any render: a failed
    // translation fails the request, it never leaves clips captioned in the wrong language.
    const captionSet = req.options.captionsEnabled
      ? await captionCuesFor(plan.clips.map((c) => ({ id: c.id, clip: { start: c.highlight.start, end: c.highlight.end } })), transcript, template,
        {
          from: transcript.language, to: req.options.captionLanguage, translator: translatorFromEnv(), signal,
          speechToEnglish: (clip) => this.deps.transcriber.translateToEnglish({ mediaPath: source.path, range: clip, language: transcript.language, signal }),
        })
      : null;
    // The end card is the same for every clip of the request: its image is fetched once (through the URL
    // guard for API requests) and its text written once.
    const outro = req.options.outroEnabled ? await outroFor(req, art, template, info, { width, height }, this.deps.checkUrl, signal) : null;
    const memeFor = req.options.memeHook ? memeHookChooser(req) : null;
    const memeAudio = new Map<string, Promise<boolean>>();
    const total = plan.clips.length;
    const fractions = new Array<number>(total).fill(0);
    const report = () => onProgress(fractions.reduce((a, b) => a + b, 0) / total);
    let done = 0;
    return mapPool(plan.clips, concurrency, async ({ id, highlight, copy }, rank): Promise<ShortRecord> => {
      const output = art.clipPath(rank, id);
      const clip: TimeRange = { start: highlight.start, end: highlight.end };
      const meme = memeFor?.(id) ?? null;
      const record: ShortRecord = {
        id, requestId: req.id, rank, title: copy.title, sentenceIndexes: highlight.sentenceIndexes, reason: copy.reason,
        description: copy.description, viralScore: highlight.viralScore, startTimestamp: round3(clip.start), endTimestamp: round3(clip.end),
        // The short lasts its meme intro, its content and the end card (spec 2.7: "the short's total
        // duration grows by the hook's length"); start/endTimestamp stay the source range.
        duration: round3((meme?.duration ?? 0) + clip.end - clip.start + (outro?.seconds ?? 0)),
        width, height, recompiling: false, error: false, errorMessage: null, filePath: output,
      };
      try {
        if (existsSync(output)) record.layout = art.read<ResolvedLayout>(`layout-${id}`);
        else {
          // Split screen: the content, its layout and its captions live in the top half only.
          const gameVideo = gameVideoFor(req);
          const picture = gameVideo ? { width, height: height / 2 } : { width, height };
          const reframe = await planReframe({ mediaPath: source.path, info, range: clip, layout: req.options.layout, output: picture, signal });
          // What the clip got (auto resolved), for the request detail and `shorts get`; checkpointed, so a
          // resumed job that finds this clip rendered still knows it.
          record.layout = reframe.layout;
          art.write(`layout-${id}`, reframe.layout);
          let captions: RenderPlan['captions'] = null;
          // Hook title and CTA ride in the same libass pass as the captions.
          const overlays = { hookTitle: req.options.hookTitle ? copy.title : null, cta: req.options.ctaEnabled ? req.options.ctaText : null, clipDuration: clip.end - clip.start };
          const bands = overlayBands(overlays, picture);
          const cues = captionSet?.cues.get(id) ?? [];
          // The words as captioned (clip time, translated when asked): what SRT/VTT exports and caption edits work on.
          if (captionSet) art.write(JobArtifacts.cuesName(id), cues);
          // Captions clear of faces (and of the banners): the reframe's sampled faces mapped through its crops
          // to this picture; a page moves only where the template's place would cover eyes or a mouth.
          const placement = req.options.captionsEnabled && captionSet
            ? { tops: captionTops(captionBlocks(cues, captionSet.template, picture), reframe, info, picture, bands) } : {};
          const captionAss = req.options.captionsEnabled && captionSet ? buildAss(cues, captionSet.template, picture, placement) : null;
          const ass = overlays.hookTitle || overlays.cta ? withOverlays(captionAss, overlays, picture) : captionAss;
          if (ass) {
            const assPath = art.captionsPath(id);
            writeFileSync(assPath, ass);
            // Emoji accents (templates with `emoji`) are images overlaid after libass, in the same picture space.
            // They give way to the hook title and CTA banner where both would take the same rows.
            const emoji = req.options.captionsEnabled && captionSet
              ? clearOfBands(captionEmoji(cues, captionSet.template, picture, { language: transcript.language, ...placement }), bands) : [];
            captions = { assPath, fontsDir: fontsDir(), ...(emoji.length ? { emoji } : {}) };
          }
          const renderPlan: RenderPlan = {
            version: RENDER_PLAN_VERSION,
            input: { path: source.path, start: clip.start, end: clip.end, width: info.width, height: info.height, hasAudio: info.hasAudio },
            output: { path: output, width, height, preset, crf, x264Params: x264Params || undefined, fps: outputFps(info) },
            reframe,
            background: { blur, color: template.colors.background },
            captions,
            music: await musicFor(req, source.path, clip, info.hasAudio, signal),
            gameVideo,
            outro,
            memeHook: meme ? await memeHookPlan(meme, outputFps(info) ?? info.fps, memeAudio, signal) : null,
            // Every short at the platforms' loudness (-14 LUFS, <= -1 dBTP); renderClip measures the gains.
            loudness: { ...PLATFORM_LOUDNESS },
          };
          const rendered = await renderClip(renderPlan, { signal, onProgress: (f) => { fractions[rank] = f; report(); } });
          // What exports and re-renders start from: the exact plan, measured gains included.
          art.write(JobArtifacts.renderPlanName(id), rendered);
        }
      } catch (e) {
        if (signal.aborted || e instanceof AbortedError) throw e;
        record.error = true;
        record.errorMessage = failureReason(e, reasons);
        record.filePath = null;
      }
      // The reason says what a two-person or screen layout shows ("Two people: split screen, one per half.").
      if (record.layout && !record.error) record.reason = withLayoutReason(record.reason, record.layout, transcript.language);
      fractions[rank] = 1;
      report();
      events.onClipRendered?.(++done, total);
      return record;
    });
  }
}

/** What a user should know when the model wrote the speech in another script than its language's. */
export function scriptWarning(transcript: Pick<Transcript, 'language' | 'model'>, m: ScriptMismatch): string {
  return `the Whisper model ${transcript.model} wrote this ${languageLabel(transcript.language)} speech mostly in ${m.found} letters ` +
    `(${Math.round(m.share * 100)} % of them), not ${m.expected}: the captions, titles and hashtags show what it wrote. ` +
    'A larger multilingual model (SHORTS_WHISPER_MULTILINGUAL_MODEL, e.g. small or medium) may write it in its own script';
}

export interface CaptionTranslation {
  from: string;
  to: string;
  translator: TranslatorConfig | null;
  /**
   * English phrases heard in a clip (whisper.cpp's translate task): English captions need no service.
   * Without it, or for other target languages, the translator is required.
   */
  speechToEnglish?: (clip: TimeRange) => Promise<TranslatedPhrase[]>;
  signal?: AbortSignal;
}

/**
 * Caption cues per clip id, and the template to draw them with. With a caption language (`to`
 * non-empty) each cue's phrase is translated and shown for the cue's own time span; words of two
 * languages do not line up, so translated captions drop the per-word highlight (animation 'none')
 * rather than light words at times nobody said them. Any failure is a PipelineError naming the pair.
 */
export async function captionCuesFor(clips: { id: string; clip: TimeRange }[], transcript: Transcript, template: CaptionTemplate,
  translation: CaptionTranslation): Promise<{ cues: Map<string, CaptionCue[]>; template: CaptionTemplate }> {
  const wordsPerCue = template.wordsPerLine * template.maxLines;
  const original = clips.map(({ id, clip }) => ({ id, cues: buildCues(transcript.words, clip, { wordsPerCue }) }));
  const { from, to, translator, speechToEnglish, signal } = translation;
  if (!to || to === from) return { cues: new Map(original.map((c) => [c.id, c.cues])), template };
  // A configured service that translates the pair is preferred (its translations read better); else English
  // captions come offline (issue 11): the multilingual model listens to each clip again and writes English
  // phrases, timed on the original words.
  const serviceDoesPair = async (t: TranslatorConfig) => supportsPair(t, from, to, signal).catch(() => false);
  if (to === 'en' && speechToEnglish && (!translator || !(await serviceDoesPair(translator)))) {
    const cues = new Map<string, CaptionCue[]>();
    for (const { id, clip } of clips) {
      let phrases: TranslatedPhrase[];
      try {
        phrases = snapPhrases(await speechToEnglish(clip), transcript.words, clip);
      } catch (e) {
        if (signal?.aborted || e instanceof AbortedError) throw e;
        throw new PipelineError('finalizing', `English captions for ${from} speech could not be made: ${(e as Error).message}`, { cause: e });
      }
      cues.set(id, phraseCues(phrases, transcript.words, wordsPerCue));
    }
    return { cues, template: { ...template, animation: 'none' } };
  }
  if (!translator) throw new PipelineError('finalizing', `captions ${pairLabel(from, to)} need a translation service, and none is configured (SHORTS_TRANSLATE_URL)`);
  // One batch for all clips: fewer round trips, and the service sees every phrase of the request.
  const texts = original.flatMap((c) => c.cues.map(cueText));
  let translated: string[];
  try {
    translated = await translateTexts(translator, texts, from, to, signal);
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new PipelineError('finalizing', (e as Error).message, { cause: e });
  }
  const cues = new Map<string, CaptionCue[]>();
  let at = 0;
  for (const c of original) {
    cues.set(c.id, translatedCues(c.cues, translated.slice(at, at + c.cues.length), wordsPerCue));
    at += c.cues.length;
  }
  return { cues, template: { ...template, animation: 'none' } };
}

/**
 * The music of one clip: the named track (validated at creation) or a random one, with the clip's
 * voice measured so the mix can follow musicVolume relative to it. musicVolume 0 is no music.
 */
async function musicFor(req: RequestRecord, sourcePath: string, clip: TimeRange, hasAudio: boolean, signal: AbortSignal): Promise<RenderPlan['music']> {
  const { music, musicName, musicVolume } = req.options;
  if (!music || musicVolume <= 0) return null;
  const track = musicName ? findMusic(musicName) : randomMusic();
  if (!track) throw new PipelineError('rendering', musicName ? `the music track "${musicName}" is no longer in the catalog` : 'the music catalog is empty');
  const speechLufs = hasAudio ? await measureIntegratedLoudness(sourcePath, clip, signal) : null;
  return { path: musicFilePath(track), volume: musicVolume, trackLufs: track.loudnessLufs, speechLufs };
}

/**
 * The end card of a request (spec "End-screen outro"): the stock card (text over the template's
 * background colour) or the downloaded outroImageUrl, whose own design is the card, so only an explicit
 * outroText and the handle are drawn over it. The default line is localized to the caption language.
 */
async function outroFor(req: RequestRecord, art: JobArtifacts, template: CaptionTemplate, info: MediaInfo, size: { width: number; height: number },
  checkUrl: UrlCheck | undefined, signal: AbortSignal): Promise<NonNullable<RenderPlan['outro']>> {
  const o = req.options;
  let imagePath: string | null = null;
  if (o.outroImageUrl) {
    try {
      imagePath = await fetchOutroImage(o.outroImageUrl, { destDir: art.workDir, checkUrl, signal });
    } catch (e) {
      if (signal.aborted || e instanceof AbortedError) throw e;
      throw new PipelineError('finalizing', `the outro image could not be fetched: ${(e as Error).message}`, { cause: e });
    }
  }
  const text = imagePath && !o.outroText?.trim() ? null : outroLine(o.outroText, o.language, o.captionLanguage);
  const handle = outroHandle(o.outroHandle);
  const seconds = Math.min(3, Math.max(1, o.outroSeconds || DEFAULT_OUTRO_SECONDS));
  // The card is full-frame also for split-screen shorts: it follows the content, not its halves.
  const ass = buildOutroAss({ text, handle, seconds, textColor: template.colors.text, accentColor: template.colors.active, outlineColor: template.colors.outline }, size);
  let assPath: string | null = null;
  if (ass) {
    assPath = path.join(art.workDir, 'outro.ass');
    writeFileSync(assPath, ass);
  }
  return { seconds, fps: outputFps(info) ?? info.fps, text, handle, imagePath, stingPath: o.outroSting ? outroStingPath() : null, assPath, fontsDir: fontsDir() };
}

/**
 * Which meme intro each clip gets: the named hook (validated at creation) for all of them, or, when
 * none is named, one drawn per clip, so the shorts of one request do not all open the same way. The
 * draw is seeded by the clip's id: a resumed job (which skips clips already rendered) reports the same
 * hook, and so the same duration, as the run that rendered them. A name that left the catalog since
 * creation, or an emptied catalog, fails the request before any render.
 */
function memeHookChooser(req: RequestRecord): (clipId: string) => MemeHook {
  const name = req.options.memeHookName;
  if (name) {
    const item = findMemeHook(name);
    if (!item) throw new PipelineError('rendering', `the meme hook "${name}" is no longer in the catalog`);
    return () => item;
  }
  if (memeHookCatalog().items.length === 0) throw new PipelineError('rendering', 'the meme-hook catalog is empty');
  return (clipId) => memeHookForClip(clipId)!;
}

/** The render plan's meme intro; whether the file has sound is probed once per file and request. */
async function memeHookPlan(item: MemeHook, fps: number, hasAudio: Map<string, Promise<boolean>>, signal: AbortSignal): Promise<NonNullable<RenderPlan['memeHook']>> {
  const file = memeHookFilePath(item);
  let audio = hasAudio.get(file);
  if (!audio) {
    audio = probeMedia(file, signal).then((r) => r.info.hasAudio);
    hasAudio.set(file, audio);
  }
  return { path: file, seconds: item.duration, fps, hasAudio: await audio };
}

/**
 * The gameplay of one clip: the named video (validated at creation) or a random one, started at a
 * random point of its loop, so the shorts of one request do not all show the same footage.
 */
function gameVideoFor(req: RequestRecord): RenderPlan['gameVideo'] {
  const { gameVideo, gameVideoName } = req.options;
  if (!gameVideo) return null;
  const item = gameVideoName ? findGameVideo(gameVideoName) : randomGameVideo();
  if (!item) throw new PipelineError('rendering', gameVideoName ? `the game video "${gameVideoName}" is no longer in the catalog` : 'the game-video catalog is empty');
  return { path: gameVideoFilePath(item), offset: randomGameOffset(item), duration: item.duration };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
