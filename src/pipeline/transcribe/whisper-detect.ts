// Spoken-language detection with whisper.cpp (`whisper-cli -dl`): which 30 s of the audio to listen to
// (the window with the most speech, not a silent or musical intro), running it, and reading its answer.
// whisper.cpp detects on the first 30 s of the file it is given whatever `-ot` says, so the window is cut
// into a WAV of its own and detection hears exactly that.
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defaultMediaRunner } from '../../media/local-runner.js';
import { ProcessError, lastLines } from '../../media/process.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import { PipelineError } from '../../errors.js';
import type { LanguageDetection } from './model-choice.js';
import type { EnergyEnvelope } from './onset-align.js';
import type { TimeRange } from '../../domain/time.js';
import { writeJsonAtomically } from './transcript-cache.js';
import { parseDetectedLanguage, whisperEnv } from './whisper-cli.js';
import { SAMPLE_RATE, wavFile } from './speech-audio.js';

/** Whisper listens to 30 s at a time: detection hears exactly one such window. */
export const DETECTION_WINDOW_SEC = 30;

/**
 * The DETECTION_WINDOW_SEC stretch of the audio (seconds from its start) with the most speech: the most
 * frames clearly above the quiet ones. Ties go to the earliest window. Shorter audio is taken whole.
 */
export function speechiestWindow(env: EnergyEnvelope, totalSec: number, windowSec = DETECTION_WINDOW_SEC): { start: number; end: number } {
  if (totalSec <= windowSec || env.db.length === 0) return { start: 0, end: Math.max(0, totalSec) };
  // A frame is speech-like when it stands well clear of the floor (room tone, hiss) and is not far under
  // the loud frames: music beds and breaths count less than words.
  const threshold = Math.max(env.floor + 10, env.loud - 30);
  const frames = env.db.length;
  const span = Math.max(1, Math.round(windowSec / env.frameSec));
  const step = Math.max(1, Math.round(0.5 / env.frameSec));
  const prefix = new Int32Array(frames + 1);
  for (let i = 0; i < frames; i++) prefix[i + 1] = prefix[i]! + (env.db[i]! > threshold ? 1 : 0);
  let best = 0, bestCount = -1;
  for (let f = 0; f + span <= frames; f += step) {
    const count = prefix[f + span]! - prefix[f]!;
    if (count > bestCount) { best = f; bestCount = count; }
  }
  const start = Math.min(best * env.frameSec, totalSec - windowSec);
  return { start, end: start + windowSec };
}

/** whisper-cli arguments that only detect the language of a WAV (the window, cut to a file of its own). */
export function detectArgs(i: { modelPath: string; wavPath: string; threads: number }): string[] {
  return [
    '-m', i.modelPath, '-f', i.wavPath, '-l', 'auto', '-dl', '-t', String(Math.max(1, Math.floor(i.threads))),
    // Flash attention: the same setting transcription runs with (whisper-cli.ts).
    '-fa',
  ];
}

/**
 * Runs whisper-cli -dl on one window (seconds from the start) of the 16 kHz speech samples and returns its
 * language and probability. The window is written to `windowWav` (removed after) for whisper to hear alone.
 */
export async function runLanguageDetection(bin: string, input: { modelPath: string; samples: Int16Array; windowWav: string; threads: number; window: { start: number; end: number } },
  signal?: AbortSignal, media: MediaRunner = defaultMediaRunner()): Promise<{ language: string; probability: number }> {
  const from = Math.max(0, Math.floor(input.window.start * SAMPLE_RATE));
  const to = Math.min(input.samples.length, Math.ceil(input.window.end * SAMPLE_RATE));
  await writeFile(input.windowWav, wavFile(input.samples.subarray(from, Math.max(from, to))));
  let stderr: string;
  try {
    // No -np: whisper-cli prints the detected language only with its log on.
    ({ stderr } = await media.run('whisper-cli', detectArgs({ modelPath: input.modelPath, wavPath: input.windowWav, threads: input.threads }), { program: bin, signal, env: whisperEnv() }));
  } catch (e) {
    if (e instanceof ProcessError) throw new PipelineError('transcribing_audio', `language detection failed (${lastLines(e.stderr, 2) || `exit code ${e.code}`})`, { cause: e });
    throw e;
  } finally {
    await rm(input.windowWav, { force: true });
  }
  const found = parseDetectedLanguage(stderr);
  if (!found) throw new PipelineError('transcribing_audio', 'language detection gave no answer (whisper-cli printed no detected language)');
  return found;
}

/** What decides a detection: the content, the range (and so the window picked in it) and the model. */
export interface DetectionCacheKey { contentKey: string; range: TimeRange; modelName: string; modelSizeBytes: number }

/** Bump when the window choice or the detection call changes, so old answers are not reused (dl2: the window is heard, not the first 30 s). */
const DETECTION_VERSION = 'dl2';

export function detectionCacheFile(dataDir: string, key: DetectionCacheKey): string {
  const id = [DETECTION_VERSION, key.contentKey, key.range.start, key.range.end, `${key.modelName}+${key.modelSizeBytes}`].join('|');
  return path.join(dataDir, 'cache', 'languages', `${createHash('sha256').update(id).digest('hex')}.json`);
}

/** A detection made before for the same content, range and model (a retry, a second request); null when none. */
export async function readCachedDetection(dataDir: string, key: DetectionCacheKey): Promise<LanguageDetection | null> {
  try {
    const v = JSON.parse(await readFile(detectionCacheFile(dataDir, key), 'utf8')) as Partial<LanguageDetection>;
    if (typeof v.language === 'string' && typeof v.probability === 'number' && v.window && typeof v.model === 'string') return v as LanguageDetection;
  } catch {
    // Missing or unreadable: detect again.
  }
  return null;
}

export async function writeCachedDetection(dataDir: string, key: DetectionCacheKey, detection: LanguageDetection): Promise<void> {
  await writeJsonAtomically(detectionCacheFile(dataDir, key), detection);
}
