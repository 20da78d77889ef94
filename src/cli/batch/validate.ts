// Every item's body is checked before anything runs, by the very validator `create` and the API use, so a
// typo in row 40 of a manifest is a usage error naming that row, not a failed item an hour later. Checks
// that need the engine or the network (the file is a readable video, the URL answers, the language has a
// model, a feature is enabled here) stay with the create itself and fail only that item.
import { ShortsError } from '../../errors.js';
import { validateCreateRequest, type ValidationContext } from '../../service/create-request.js';
import { DEFAULT_TEMPLATE, findTemplate } from '../../catalog/templates.js';
import { findMusic } from '../../catalog/music.js';
import { findGameVideo } from '../../catalog/game-videos.js';
import { findMemeHook } from '../../catalog/meme-hooks.js';

const EVERY_FEATURE: ValidationContext['supportedFeatures'] = new Set(['hookTitle', 'memeHook', 'gameVideo', 'ctaEnabled', 'music', 'outroEnabled', 'captionTranslation', 'speechToEnglish']);

/** The validation context of a batch: this build's catalogs locally; a remote server's catalogs are its own. */
export function batchValidationContext(mode: 'local' | 'remote'): ValidationContext {
  const local = mode === 'local';
  return {
    allowLocalFile: local,
    templateExists: (id) => !local || findTemplate(id) !== undefined,
    defaultTemplateId: DEFAULT_TEMPLATE.templateId,
    musicExists: (name) => !local || findMusic(name) !== undefined,
    gameVideoExists: (name) => !local || findGameVideo(name) !== undefined,
    memeHookExists: (name) => !local || findMemeHook(name) !== undefined,
    supportedFeatures: EVERY_FEATURE,
  };
}

/** Validates one body; a refusal keeps create's code and words, prefixed with where the item came from. */
export function checkItemBody(body: Record<string, unknown>, ctx: ValidationContext, origin: string): void {
  try {
    validateCreateRequest(body, ctx);
  } catch (e) {
    if (e instanceof ShortsError) throw new ShortsError(e.code, `${origin}: ${e.message}`, e.details);
    throw e;
  }
}
