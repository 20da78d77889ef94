// What a clip gets besides its own picture and captions: music, the end card, the meme intro and the
// gameplay half. Each is decided from the request's options (validated at creation, so a name that left
// the catalog since then is a PipelineError) and the source's facts; the render plan carries the result.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { PipelineError } from '../../errors.js';
import { AbortedError } from '../../media/process.js';
import { probeMedia } from '../../media/probe.js';
import { outputFps, type RenderPlan } from '../../media/render-plan.js';
import { measureIntegratedLoudness } from '../../media/speech-loudness.js';
import type { UrlCheck } from '../../net/download.js';
import { fontsDir, type CaptionTemplate } from '../../catalog/templates.js';
import { findMusic, musicFilePath, randomMusic } from '../../catalog/music.js';
import { findGameVideo, gameVideoFilePath, randomGameOffset, randomGameVideo } from '../../catalog/game-videos.js';
import { findMemeHook, memeHookCatalog, memeHookFilePath, memeHookForClip, type MemeHook } from '../../catalog/meme-hooks.js';
import type { CreateRequest } from '../../domain/request.js';
import type { MediaInfo } from '../../domain/source.js';
import type { TimeRange } from '../../domain/time.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import { DEFAULT_OUTRO_SECONDS, buildOutroAss, fetchOutroImage, outroHandle, outroLine, outroStingPath } from './outro.js';

/**
 * The music of one clip: the named track (validated at creation) or a random one, with the clip's
 * voice measured so the mix can follow musicVolume relative to it. musicVolume 0 is no music.
 */
export async function musicFor(options: CreateRequest, sourcePath: string, clip: TimeRange, hasAudio: boolean, signal: AbortSignal, media: MediaRunner): Promise<RenderPlan['music']> {
  const { music, musicName, musicVolume } = options;
  if (!music || musicVolume <= 0) return null;
  const track = musicName ? findMusic(musicName) : randomMusic();
  if (!track) throw new PipelineError('rendering', musicName ? `the music track "${musicName}" is no longer in the catalog` : 'the music catalog is empty');
  const speechLufs = hasAudio ? await measureIntegratedLoudness(sourcePath, clip, signal, media) : null;
  return { path: musicFilePath(track), volume: musicVolume, trackLufs: track.loudnessLufs, speechLufs };
}

/**
 * The end card of a request (spec "End-screen outro"): the stock card (text over the template's
 * background colour) or the downloaded outroImageUrl, whose own design is the card, so only an explicit
 * outroText and the handle are drawn over it. The default line is localized to the caption language.
 */
export async function outroFor(options: CreateRequest, workDir: string, template: CaptionTemplate, info: MediaInfo, size: { width: number; height: number },
  checkUrl: UrlCheck | undefined, signal: AbortSignal): Promise<NonNullable<RenderPlan['outro']>> {
  const o = options;
  let imagePath: string | null = null;
  if (o.outroImageUrl) {
    try {
      imagePath = await fetchOutroImage(o.outroImageUrl, { destDir: workDir, checkUrl, signal });
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
    assPath = path.join(workDir, 'outro.ass');
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
export function memeHookChooser(options: CreateRequest): (clipId: string) => MemeHook {
  const name = options.memeHookName;
  if (name) {
    const item = findMemeHook(name);
    if (!item) throw new PipelineError('rendering', `the meme hook "${name}" is no longer in the catalog`);
    return () => item;
  }
  if (memeHookCatalog().items.length === 0) throw new PipelineError('rendering', 'the meme-hook catalog is empty');
  return (clipId) => memeHookForClip(clipId)!;
}

/** The render plan's meme intro; whether the file has sound is probed once per file and request. */
export async function memeHookPlan(item: MemeHook, fps: number, hasAudio: Map<string, Promise<boolean>>, signal: AbortSignal, media: MediaRunner): Promise<NonNullable<RenderPlan['memeHook']>> {
  const file = memeHookFilePath(item);
  let audio = hasAudio.get(file);
  if (!audio) {
    audio = probeMedia(file, signal, { media }).then((r) => r.info.hasAudio);
    hasAudio.set(file, audio);
  }
  return { path: file, seconds: item.duration, fps, hasAudio: await audio };
}

/**
 * The gameplay of one clip: the named video (validated at creation) or a random one, started at a
 * random point of its loop, so the shorts of one request do not all show the same footage.
 */
export function gameVideoFor(options: CreateRequest): RenderPlan['gameVideo'] {
  const { gameVideo, gameVideoName } = options;
  if (!gameVideo) return null;
  const item = gameVideoName ? findGameVideo(gameVideoName) : randomGameVideo();
  if (!item) throw new PipelineError('rendering', gameVideoName ? `the game video "${gameVideoName}" is no longer in the catalog` : 'the game-video catalog is empty');
  return { path: gameVideoFilePath(item), offset: randomGameOffset(item), duration: item.duration };
}
