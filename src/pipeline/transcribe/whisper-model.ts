// Finds the ggml Whisper model to use: a file the user points at, or a published model name that is
// downloaded once into the data dir. Model files are never shipped (tens to thousands of MB).
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import got from 'got';
import { PipelineError } from '../../errors.js';
import { setting } from '../../settings.js';

export const DEFAULT_MODEL = 'tiny.en';
/**
 * The model for speech the main model cannot transcribe, for language detection and for the translate
 * task (issue 11): multilingual, downloaded on first use like DEFAULT_MODEL. SHORTS_WHISPER_MULTILINGUAL_MODEL
 * overrides it (a name, a path, or `off`).
 */
export const DEFAULT_MULTILINGUAL_MODEL = 'base-q5_1';
/** Vocabulary size of the English-only Whisper models (multilingual ones have 51865, large-v3 51866). */
const ENGLISH_ONLY_VOCAB = 51864;
/** Where whisper.cpp publishes its ggml conversions; SHORTS_WHISPER_MODEL_BASE_URL overrides (mirrors, tests). */
export const DEFAULT_MODEL_BASE_URL = 'https://huggingface.co/ggerganov/whisper.cpp/resolve/main';

const BASE_NAMES = [
  'tiny', 'tiny.en', 'base', 'base.en', 'small', 'small.en', 'medium', 'medium.en',
  'large-v1', 'large-v2', 'large-v3', 'large-v3-turbo',
];
const QUANTIZATIONS = ['q5_0', 'q5_1', 'q8_0'];
const NAME_PATTERN = new RegExp(`^(${BASE_NAMES.map((n) => n.replace('.', '\\.')).join('|')})(-(${QUANTIZATIONS.join('|')}))?$`);
// Every ggml Whisper file starts with this magic ("lmgg" on disk); an HTML error page does not.
const GGML_MAGIC = Buffer.from('lmgg', 'latin1');

export type ModelSpec = { kind: 'file'; path: string } | { kind: 'name'; name: string };

export interface WhisperModel {
  /** Short name for reports and cache keys: "tiny.en-q8_0" (file names lose their "ggml-" and ".bin"). */
  name: string;
  path: string;
  sizeBytes: number;
}

export interface ResolveModelOptions {
  dataDir: string;
  onDownload?: (received: number, total: number) => void;
  signal?: AbortSignal;
  /** The setting that chose this model, named in messages about it (default SHORTS_WHISPER_MODEL). */
  settingName?: 'SHORTS_WHISPER_MODEL' | 'SHORTS_WHISPER_MULTILINGUAL_MODEL';
}

/** A value with a slash or a .bin suffix is a file; anything else must be a published model name. */
export function parseModelSpec(spec: string): ModelSpec {
  const value = spec.trim();
  if (value.includes('/') || value.includes(path.sep) || value.endsWith('.bin')) return { kind: 'file', path: path.resolve(value) };
  if (!NAME_PATTERN.test(value)) {
    throw new PipelineError('transcribing_audio',
      `unknown Whisper model "${value}": use a name such as tiny.en, base, small.en or base-q5_1 ` +
      `(${BASE_NAMES.join(', ')}, optionally with -${QUANTIZATIONS.join('/-')}), or a path to a ggml .bin file`);
  }
  return { kind: 'name', name: value };
}

/** The short display name of a spec, known before the model is resolved. */
export function modelDisplayName(spec: ModelSpec): string {
  if (spec.kind === 'name') return spec.name;
  return path.basename(spec.path).replace(/^ggml-/, '').replace(/\.bin$/, '');
}

export function modelCachePath(dataDir: string, name: string): string {
  return path.join(dataDir, 'models', `ggml-${name}.bin`);
}

/**
 * The vocabulary size in a ggml Whisper file's header (the magic, then n_vocab as int32 LE), or null when
 * the file is missing or not a ggml model (an HTML error page, a truncated download).
 */
async function ggmlVocabulary(file: string): Promise<number | null> {
  let fh;
  try {
    fh = await open(file, 'r');
  } catch {
    return null;
  }
  try {
    const head = Buffer.alloc(8);
    const { bytesRead } = await fh.read(head, 0, 8, 0);
    return bytesRead === 8 && head.subarray(0, 4).equals(GGML_MAGIC) ? head.readInt32LE(4) : null;
  } finally {
    await fh.close();
  }
}

async function sizeOf(file: string): Promise<number | null> {
  try {
    const s = await stat(file);
    return s.isFile() ? s.size : null;
  } catch {
    return null;
  }
}

async function download(name: string, dest: string, opts: ResolveModelOptions): Promise<void> {
  const base = (setting('SHORTS_WHISPER_MODEL_BASE_URL') ?? DEFAULT_MODEL_BASE_URL).replace(/\/+$/, '');
  const url = `${base}/ggml-${name}.bin`;
  await mkdir(path.dirname(dest), { recursive: true });
  // A unique temp name beside the target: a crash leaves no half file under the real name, and two
  // processes downloading at once each rename a complete file.
  const tmp = `${dest}.${process.pid}.${Date.now()}.part`;
  try {
    const stream = got.stream(url, { signal: opts.signal, retry: { limit: 2 }, timeout: { connect: 15_000, response: 30_000 } });
    stream.on('downloadProgress', (p: { transferred: number; total?: number }) => opts.onDownload?.(p.transferred, p.total ?? 0));
    await pipeline(stream, createWriteStream(tmp));
    if ((await ggmlVocabulary(tmp)) === null) throw new Error('the server did not send a ggml model file');
    await rename(tmp, dest);
  } catch (e) {
    await rm(tmp, { force: true });
    if (opts.signal?.aborted) throw e;
    const reason = e instanceof Error ? e.message : String(e);
    throw new PipelineError('transcribing_audio',
      `could not download the Whisper model "${name}" (${reason}). ` +
      `Download it yourself and set ${opts.settingName ?? 'SHORTS_WHISPER_MODEL'}=/path/to/ggml-${name}.bin`, { cause: e });
  }
}

// One download per target file at a time within this process.
const inFlight = new Map<string, Promise<void>>();

/** Resolves a model spec to a readable ggml file, downloading a named model on first use. */
export async function resolveWhisperModel(spec: ModelSpec, opts: ResolveModelOptions): Promise<WhisperModel> {
  const name = modelDisplayName(spec);
  if (spec.kind === 'file') {
    const size = await sizeOf(spec.path);
    if (size === null) {
      throw new PipelineError('transcribing_audio',
        `the Whisper model file ${spec.path} does not exist (check ${opts.settingName ?? 'SHORTS_WHISPER_MODEL'}, or give a model name such as tiny.en to download it)`);
    }
    return { name, path: spec.path, sizeBytes: size };
  }
  const dest = modelCachePath(opts.dataDir, spec.name);
  let size = await sizeOf(dest);
  if (size === null) {
    let job = inFlight.get(dest);
    if (!job) {
      job = download(spec.name, dest, opts).finally(() => inFlight.delete(dest));
      inFlight.set(dest, job);
    }
    await job;
    size = await sizeOf(dest);
    if (size === null) throw new PipelineError('transcribing_audio', `the Whisper model "${spec.name}" could not be stored at ${dest}`);
  }
  return { name, path: dest, sizeBytes: size };
}

/** The main model's spec: SHORTS_WHISPER_MODEL, else DEFAULT_MODEL. */
export function mainModelSpec(env: NodeJS.ProcessEnv = process.env): ModelSpec {
  return parseModelSpec(setting('SHORTS_WHISPER_MODEL', env) ?? DEFAULT_MODEL);
}

/** The multilingual model's spec (SHORTS_WHISPER_MULTILINGUAL_MODEL, else DEFAULT_MULTILINGUAL_MODEL); null when `off`. */
export function multilingualModelSpec(env: NodeJS.ProcessEnv = process.env): ModelSpec | null {
  const value = setting('SHORTS_WHISPER_MULTILINGUAL_MODEL', env) ?? DEFAULT_MULTILINGUAL_MODEL;
  if (/^(off|none|false|0)$/i.test(value.trim())) return null;
  return parseModelSpec(value);
}

/**
 * Whether a ggml file is a multilingual model, from its header: English-only models have a vocabulary
 * of 51864. null when the file is missing or not a ggml model.
 */
export async function fileIsMultilingual(file: string): Promise<boolean | null> {
  const vocabulary = await ggmlVocabulary(file);
  return vocabulary === null ? null : vocabulary !== ENGLISH_ONLY_VOCAB;
}

/** What can be known about a model before a request runs, without downloading anything. */
export interface ModelFacts {
  name: string;
  /** English-only models transcribe English whatever language they are told. */
  multilingual: boolean;
  /** False when the model cannot be had: a path that does not exist or is not a ggml file. */
  available: boolean;
  /** Why it cannot be had (for refusals). */
  problem?: string;
}

/**
 * Facts of a spec: a name is multilingual unless it ends in ".en" and is always available (downloaded
 * on first use; a failed download fails the request that needed it); a file is read for its header.
 */
export async function modelFacts(spec: ModelSpec): Promise<ModelFacts> {
  const name = modelDisplayName(spec);
  if (spec.kind === 'name') return { name, multilingual: !/\.en(-|$)/.test(spec.name), available: true };
  const multilingual = await fileIsMultilingual(spec.path);
  if (multilingual === null) {
    const exists = (await sizeOf(spec.path)) !== null;
    return { name, multilingual: false, available: false, problem: exists ? `${spec.path} is not a ggml Whisper model file` : `${spec.path} does not exist` };
  }
  return { name, multilingual, available: true };
}
