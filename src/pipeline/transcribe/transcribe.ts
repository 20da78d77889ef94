// Stage 2: speech to timed words and sentences. Only the requested range is decoded (ffmpeg input
// seeking), recognised by whisper.cpp, and the result cached per content, range, language and model.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AbortedError } from '../../media/process.js';
import { PipelineError } from '../../errors.js';
import { buildSentences } from './sentences.js';
import { readCachedTranscript, writeCachedTranscript, type TranscriptCacheKey } from './transcript-cache.js';
import type { TimeRange } from '../../domain/time.js';
import type { Transcript } from '../../domain/transcript.js';
import { findForcedAligner, forceAlign, type SegmentSpan } from './forced-align.js';
import { voicedSeconds } from '../analyze/audio-features.js';
import { energyEnvelope, giveEveryWordTime, refineOnsets, spreadOverSpeech } from './onset-align.js';
import { translateSpeechToEnglish, type TranslatedPhrase } from './whisper-translate.js';
import { RangeAudio, SAMPLE_RATE, extractAudioArgs, wavSamples } from './speech-audio.js';
import { defaultMediaRunner } from '../../media/local-runner.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import { DEFAULT_DECODING, runWhisperCli, whisperCliPath, wordsFromWhisperJson, type WhisperJson } from './whisper-cli.js';
import {
  mainModelSpec, modelDisplayName, modelFacts, multilingualModelSpec, parseModelSpec, resolveWhisperModel, type ModelSpec, type WhisperModel,
} from './whisper-model.js';
import {
  autoFallsBackToEnglish, detectionModel, languageForAuto, languageRefusal, modelForLanguage, noMultilingualReason, type LanguageDetection, type ModelRole, type ModelSet,
} from './model-choice.js';
import { readCachedDetection, runLanguageDetection, speechiestWindow, writeCachedDetection } from './whisper-detect.js';

const STAGE = 'transcribing_audio';
/**
 * What besides the model decides the words and their times: part of the cache key, so transcripts made
 * by an older decoder (greedy, energy squeeze) are made again rather than reused. Change it whenever
 * decoding or word timing changes (words2: Chinese and Japanese words by Intl.Segmenter, issue 11).
 */
export const DECODER_VERSION = `bs${DEFAULT_DECODING.beamSize}-bo${DEFAULT_DECODING.bestOf}${DEFAULT_DECODING.temperatureFallback ? '-tf' : ''}` +
  `${DEFAULT_DECODING.dtwPreset ? '-dtw' : ''}+spread2+onsets2+minword1+words2`;
/** Part of the cache key: transcripts timed without the forced aligner are made again once it is installed. */
const ALIGNER_VERSION = 'ps2';
/** Share of the progress bar given to cutting the audio out; recognition takes the rest. */
const EXTRACT_SHARE = 0.05;

export interface TranscribeRequest {
  mediaPath: string;
  range: TimeRange;
  /** ISO 639-1 code, or "auto": detect it (multilingual model) and transcribe in the detected language. */
  language: string;
  /**
   * Also detect the spoken language when one is named, for a warning when the audio is in another
   * (issue 11). Advisory: without a multilingual model, or when detection fails, it is skipped silently.
   */
  checkLanguage?: boolean;
  /** The detection result, when there was one (for "auto", and with checkLanguage). */
  onLanguageDetected?: (detection: LanguageDetection) => void;
  /** What the user should know about how the request was transcribed (e.g. "auto" without detection). */
  onWarning?: (warning: string) => void;
  /** FetchedSource.contentKey; without it nothing is cached. */
  cacheKey?: string;
  /**
   * The range's speech audio, shared with the later stages (clip edges) so the range is decoded once;
   * used when it covers `range`, else the transcriber decodes its own.
   */
  audio?: RangeAudio;
  /** Runs ffmpeg, whisper-cli and pocketsphinx for this request; default the transcriber's runner. */
  media?: MediaRunner;
  signal?: AbortSignal;
  onProgress?: (fraction: number) => void;
}

export interface Transcriber {
  /** The main model's name (SHORTS_WHISPER_MODEL); a transcript names the model that really made it. */
  readonly modelName: string;
  transcribe(req: TranscribeRequest): Promise<Transcript>;
  /**
   * English phrases for the speech of `range` (whisper.cpp's translate task, issue 11 part 5), with the
   * model that detects languages (a multilingual one); throws a PipelineError when none can be had.
   */
  translateToEnglish(req: SpeechTranslationRequest): Promise<TranslatedPhrase[]>;
}

export interface SpeechTranslationRequest { mediaPath: string; range: TimeRange; language: string; media?: MediaRunner; signal?: AbortSignal }

export interface TranscriberOptions {
  dataDir: string;
  /** Model name (downloaded into dataDir/models) or path to a ggml file; default SHORTS_WHISPER_MODEL ?? 'tiny.en'. */
  model?: string;
  /**
   * The multilingual model for languages the main one cannot transcribe and for detection: a name, a path,
   * or "off"; default SHORTS_WHISPER_MULTILINGUAL_MODEL ?? 'base-q5_1'.
   */
  multilingualModel?: string;
  /** Default: all cores (whisper.cpp scales well up to the physical core count). */
  threads?: number;
  onModelDownload?: (received: number, total: number) => void;
  /** Runs the child processes of requests that bring no runner of their own; default defaultMediaRunner(). */
  media?: MediaRunner;
}

/** The main and multilingual model specs a transcriber (or the service, to refuse at creation) works with. */
export interface ModelSpecs { main: ModelSpec; multilingual: ModelSpec | null }

export function modelSpecs(opts: { model?: string; multilingualModel?: string } = {}, env: NodeJS.ProcessEnv = process.env): ModelSpecs {
  const main = opts.model !== undefined ? parseModelSpec(opts.model) : mainModelSpec(env);
  const multilingual = opts.multilingualModel !== undefined
    ? multilingualModelSpec({ SHORTS_WHISPER_MULTILINGUAL_MODEL: opts.multilingualModel }) : multilingualModelSpec(env);
  return { main, multilingual };
}

/** What is known about both models now (file headers read, nothing downloaded). */
export async function modelSet(specs: ModelSpecs): Promise<ModelSet> {
  return { main: await modelFacts(specs.main), multilingual: specs.multilingual ? await modelFacts(specs.multilingual) : null };
}

// Re-exported: tests and tools built on the transcriber use them from here.
export { extractAudioArgs, wavSamples };

/** Less voiced sound than one short word in the whole range: no speech (see voicedSeconds). */
const MIN_VOICED_SEC = 0.3;


/** Runs one recognition at a time per transcriber: whisper.cpp already uses every core. */
class SerialQueue {
  private tail: Promise<void> = Promise.resolve();

  run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise((resolve) => { release = resolve; });
    return (async () => {
      try {
        // A job cancelled while it waits leaves at once instead of after the one in front of it.
        await new Promise<void>((resolve, reject) => {
          if (signal?.aborted) return reject(new AbortedError());
          const onAbort = () => reject(new AbortedError());
          signal?.addEventListener('abort', onAbort, { once: true });
          void previous.then(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          });
        });
        return await job();
      } finally {
        // Never let the next job start before the one in front of this one has finished.
        void previous.then(release);
      }
    })();
  }
}

function monotonic(report?: (f: number) => void): (f: number) => void {
  let last = -1;
  return (f) => {
    const v = Math.min(1, Math.max(0, f));
    if (v > last) {
      last = v;
      report?.(v);
    }
  };
}

/**
 * Whether detection can ride on the transcription (one whisper-cli -l auto run), and so be skipped as its
 * own -dl run: when the model that detects (`detector`) is the one that transcribes whatever it is likely
 * to hear. "auto": when the English model is the detector (a multilingual main model transcribes every
 * language); with an English-only main model, English speech must be transcribed by that model, chosen
 * only once the language is known, so detection stays a run of its own. A named language: when its model
 * is the detector. A detection that then disagrees with the language wanted costs a second run.
 */
function oneRunLanguage(req: Pick<TranscribeRequest, 'language'>, detector: ModelRole, models: ModelSet): boolean {
  const choice = modelForLanguage(req.language === 'auto' ? 'en' : req.language, models);
  return !('refusal' in choice) && choice.role === detector;
}

/** After the detection model could not be had, advisory detection is skipped this long. */
const ADVISORY_RETRY_MS = 10 * 60_000;
/** Share of the progress bar given to language detection when it runs. */
const DETECT_SHARE = 0.1;

/** The whisper.cpp-backed transcriber with the on-disk cache in front. */
export function createTranscriber(opts: TranscriberOptions): Transcriber {
  const specs = modelSpecs(opts);
  const modelName = modelDisplayName(specs.main);
  const threads = opts.threads ?? os.availableParallelism();
  const queue = new SerialQueue();
  // Looked up once: without pocketsphinx, word times are the energy-based ones (onset-align.ts).
  const aligner = findForcedAligner();
  const decoder = aligner ? `${DECODER_VERSION}+${ALIGNER_VERSION}` : DECODER_VERSION;
  let advisoryOffUntil = 0;
  /** Why the detection model could not be had the last time (named in the warning of an English fallback). */
  let detectorProblem: string | null = null;
  const specOf = (role: ModelRole): ModelSpec => (role === 'main' ? specs.main : specs.multilingual!);
  const resolve = (role: ModelRole, signal?: AbortSignal): Promise<WhisperModel> => resolveWhisperModel(specOf(role), {
    dataDir: opts.dataDir, onDownload: opts.onModelDownload, signal,
    settingName: role === 'main' ? 'SHORTS_WHISPER_MODEL' : 'SHORTS_WHISPER_MULTILINGUAL_MODEL',
  });

  async function transcribe(req: TranscribeRequest): Promise<Transcript> {
    const { range, signal } = req;
    const media = req.media ?? opts.media ?? defaultMediaRunner();
    if (!(range.end > range.start)) throw new PipelineError(STAGE, `nothing to transcribe: the range ${range.start}-${range.end} s is empty`);
    const progress = monotonic(req.onProgress);
    progress(0);
    const auto = req.language === 'auto';
    const models = await modelSet(specs);
    // Refused at creation already; checked again because a model file can go away while a request waits.
    const refusal = languageRefusal(req.language, models);
    if (refusal) throw new PipelineError(STAGE, refusal);

    // Detection: required for "auto", advisory otherwise (a model that cannot be had skips it).
    let detector: WhisperModel | null = null;
    let detection: LanguageDetection | null = null;
    // "auto" on an offline machine (issue 23): with an English main model at hand, a detector that cannot be
    // had degrades to English with a warning instead of failing the request.
    const englishFallback = auto && autoFallsBackToEnglish(models);
    const offline = Date.now() < advisoryOffUntil;
    const detectWith = (auto && !(englishFallback && offline)) || (req.checkLanguage && !offline) ? detectionModel(models) : null;
    if (detectWith) {
      try {
        detector = await resolve(detectWith.role, signal);
      } catch (e) {
        if ((auto && !englishFallback) || e instanceof AbortedError || signal?.aborted) throw e;
        // A download that failed (offline machine) is not tried again for every request.
        advisoryOffUntil = Date.now() + ADVISORY_RETRY_MS;
        detectorProblem = e instanceof Error ? e.message : String(e);
      }
    }
    const fellBack = englishFallback && !detector;
    if (fellBack) {
      req.onWarning?.(`The spoken language was not detected: the multilingual Whisper model that detects it could not be had (${detectorProblem ?? noMultilingualReason(models)}), `
        + `so the speech was transcribed as English with "${models.main.name}". If it is not English, run it again with --language, or make the multilingual model available (SHORTS_WHISPER_MULTILINGUAL_MODEL).`);
    }
    const detectionKey = detector && req.cacheKey
      ? { contentKey: req.cacheKey, range, modelName: detector.name, modelSizeBytes: detector.sizeBytes } : null;
    if (detectionKey) detection = await readCachedDetection(opts.dataDir, detectionKey);
    const reportDetection = () => { if (detection) req.onLanguageDetected?.(detection); };

    // The transcript cache, keyed by the model that really transcribes: known now unless "auto" still has to listen.
    const keyFor = (language: string, model: WhisperModel): TranscriptCacheKey | null => (req.cacheKey
      ? { contentKey: req.cacheKey, range, language, modelName: model.name, modelSizeBytes: model.sizeBytes, decoder } : null);
    const modelFor = async (language: string): Promise<WhisperModel> => {
      const choice = modelForLanguage(language, models);
      if ('refusal' in choice) throw new PipelineError(STAGE, choice.refusal);
      return resolve(choice.role, signal);
    };
    let language = auto ? (fellBack ? 'en' : detection ? languageForAuto(detection) : undefined) : req.language;
    if (language && (!detector || detection)) {
      const cacheKey = keyFor(language, await modelFor(language));
      const cached = cacheKey ? await readCachedTranscript(opts.dataDir, cacheKey) : null;
      if (cached) {
        reportDetection();
        progress(1);
        return cached;
      }
    }

    const bin = whisperCliPath();
    const { transcript, cacheKey } = await queue.run(async () => {
      const work = await mkdtemp(path.join(os.tmpdir(), 'shorts-transcribe-'));
      try {
        const audio = req.audio?.covers(range) ? req.audio : new RangeAudio(req.mediaPath, range, path.join(work, 'audio.wav'), media);
        const wav = await audio.file(STAGE, signal);
        const samples = wavSamples(await readFile(wav));
        // A range past the end of the media gives less audio than asked for, or none.
        const seconds = samples.length / SAMPLE_RATE;
        progress(EXTRACT_SHARE);
        const env = energyEnvelope(samples, SAMPLE_RATE);
        // Noise, silence, a hiss: no voice, so no words — but the multilingual model writes phrases into noise
        // and detection still names a language (brown noise: Nynorsk, p 0.44-0.48, a hair under the "auto"
        // threshold). Answered here, without Whisper: the request then fails with "no speech".
        if (voicedSeconds(samples, SAMPLE_RATE, MIN_VOICED_SEC) < MIN_VOICED_SEC) {
          return { transcript: { language: language ?? 'en', model: modelName, range, words: [], sentences: [] }, cacheKey: null };
        }
        let share = EXTRACT_SHARE;
        const listen = detector && !detection && seconds >= 0.1;
        // Whisper hears 30 s: the 30 s with the most speech, not a silent or musical intro.
        const window = listen ? speechiestWindow(env, seconds) : null;
        const detected = (found: { language: string; probability: number }): LanguageDetection => ({
          ...found, window: { start: range.start + window!.start, end: range.start + window!.end }, model: detector!.name,
        });
        const keep = async (found: LanguageDetection) => {
          detection = found;
          // Only saves time: a full disk must not fail the request.
          if (detectionKey) await writeCachedDetection(opts.dataDir, detectionKey, found).catch(() => undefined);
        };
        const transcribeIn = (lang: string, model: WhisperModel, log = false, onDetectedLanguage?: (found: { language: string; probability: number }) => void) =>
          runWhisperCli(bin, { modelPath: model.path, wavPath: wav, language: lang, threads, outputBase: path.join(work, 'whisper'), decoding: DEFAULT_DECODING, log },
            { signal, media, onDetectedLanguage, onProgress: (f) => progress(share + (1 - share) * f * 0.99) });
        // One run detects and transcribes when the model that detects is the one that will transcribe and the
        // window to hear is the WAV's first 30 s: whisper-cli -l auto detects on exactly those (whatever -ot
        // says), then decodes as -l <that language> would. A window further in is detected on its own.
        const oneRun = listen && window!.start === 0 ? oneRunLanguage(req, detectWith!.role, models) : null;
        let json: WhisperJson | null = null;
        if (oneRun) {
          let heard: { language: string; probability: number } | null = null;
          const ran = await transcribeIn('auto', detector!, true, (found) => { heard ??= found; });
          if (heard) await keep(detected(heard));
          else if (auto) throw new PipelineError(STAGE, 'language detection gave no answer (whisper-cli printed no detected language)');
          language ??= languageForAuto(detection!);
          // Transcribed in the language heard: kept when that is the language wanted (almost always).
          if (detection?.language === language) json = ran;
        } else if (listen) {
          try {
            await keep(detected(await runLanguageDetection(bin, { modelPath: detector!.path, samples, windowWav: path.join(work, 'window.wav'), threads, window: window! }, signal, media)));
          } catch (e) {
            if (auto || e instanceof AbortedError || signal?.aborted) throw e;
          }
          share += DETECT_SHARE;
          progress(share);
        }
        if (auto && !detection && !fellBack) throw new PipelineError(STAGE, 'the spoken language could not be detected: there is no speech in the selected range');
        language ??= languageForAuto(detection!);
        const model = await modelFor(language);
        const cacheKey = keyFor(language, model);
        if (detector && cacheKey && !json) {
          // Detection ran first (auto): a transcript made earlier in the detected language is still good.
          const cached = await readCachedTranscript(opts.dataDir, cacheKey);
          if (cached) return { transcript: cached, cacheKey: null };
        }
        // Under 0.1 s (a range past the end of the media) there is nothing Whisper could hear.
        json ??= seconds < 0.1 ? { transcription: [] } : await transcribeIn(language, model);
        const actual: TimeRange = { start: range.start, end: range.start + Math.min(seconds, range.end - range.start) };
        // Word times: each segment's words spread over the speech inside it, then each start moved to the
        // energy rise where the word begins (onset-align.ts); for English, then each segment force-aligned
        // to its words where pocketsphinx is installed (forced-align.ts; measured in docs/benchmarks.md, issue 10).
        const spans: SegmentSpan[] = [];
        let count = 0;
        let words = refineOnsets(wordsFromWhisperJson(json, actual, {
          segmentAligner: (ws, segment) => {
            spans.push({ first: count, count: ws.length, segment });
            count += ws.length;
            return spreadOverSpeech(ws, segment, env, 0);
          },
        }), env, actual.start);
        // -l auto writes "auto" as the JSON's language: the language is the one it detected then.
        const spoken = (json.result?.language !== 'auto' && json.result?.language) || language;
        if (aligner && /^en\b/i.test(spoken) && words.length) {
          const before = words;
          // Alignment only refines times: anything but a cancellation leaves the energy-based ones.
          words = await forceAlign(words, spans, samples, SAMPLE_RATE, { aligner, workDir: work, offset: actual.start, signal, processes: threads, media })
            .then((r) => r.words, (e: unknown) => {
              if (e instanceof AbortedError || signal?.aborted) throw e;
              return before;
            });
        }
        words = giveEveryWordTime(words, actual.end);
        const result: Transcript = {
          // The detected language for "auto" (English-only models always report "en").
          language: spoken,
          model: model.name,
          range,
          words,
          sentences: buildSentences(words, spoken),
        };
        return { transcript: result, cacheKey };
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    }, signal);
    reportDetection();
    // The cache only saves time: a full or read-only disk must not fail a finished transcription.
    if (cacheKey) await writeCachedTranscript(opts.dataDir, cacheKey, transcript).catch(() => undefined);
    progress(1);
    return transcript;
  }

  async function translateToEnglish(req: SpeechTranslationRequest): Promise<TranslatedPhrase[]> {
    const translator = detectionModel(await modelSet(specs));
    if (!translator) throw new PipelineError('finalizing', `English captions for ${req.language} speech need a multilingual Whisper model, and none is configured (SHORTS_WHISPER_MULTILINGUAL_MODEL is off)`);
    const model = await resolve(translator.role, req.signal);
    return queue.run(() => translateSpeechToEnglish(req.mediaPath, req.range, { modelPath: model.path, language: req.language, threads, signal: req.signal, media: req.media ?? opts.media ?? defaultMediaRunner() }), req.signal);
  }

  return { modelName, transcribe, translateToEnglish };
}
