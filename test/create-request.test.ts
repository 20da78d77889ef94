import { describe, expect, it } from 'vitest';
import { validateCreateRequest, type ValidationContext } from '../src/service/create-request.js';
import { ShortsError } from '../src/errors.js';
import { CREATE_OPTIONS } from '../src/api/create-options.js';
import { DEFAULT_TEMPLATE, TEMPLATES } from '../src/catalog/templates.js';

const ctx: ValidationContext = {
  allowLocalFile: false,
  templateExists: (id) => TEMPLATES.some((t) => t.templateId === id),
  defaultTemplateId: DEFAULT_TEMPLATE.templateId,
  supportedFeatures: new Set(),
};
const base = { fileUrl: 'https://cdn.example.com/talk.mp4', start: 0, end: 600 };

function codeOf(body: unknown, c: ValidationContext = ctx): string {
  try {
    validateCreateRequest(body, c);
  } catch (e) {
    if (e instanceof ShortsError) return `${e.code}: ${e.message}`;
    throw e;
  }
  return 'ok';
}

describe('create request validation (spec 4.2, 7.2)', () => {
  it('applies the spec defaults', () => {
    const r = validateCreateRequest(base, ctx);
    expect(r).toMatchObject({
      source: { kind: 'fileUrl', url: base.fileUrl }, preferredLength: 'under60sec', maxShorts: null, language: 'en',
      captionLanguage: '', templateId: DEFAULT_TEMPLATE.templateId, noClipping: false, captionsEnabled: true,
      musicVolume: 10, layout: 'auto', blurBackground: null, outroSeconds: 2, outroSting: true, webhookUrl: null,
    });
  });

  it('requires exactly one of url and fileUrl', () => {
    expect(codeOf({ start: 0, end: 100 })).toMatch(/^invalid_request: url or fileUrl is required/);
    expect(codeOf({ ...base, url: 'https://video.example.com/watch?v=1' })).toMatch(/^invalid_request: give exactly one source/);
  });

  it('rejects non-http schemes for file URLs with invalid_file_url', () => {
    expect(codeOf({ ...base, fileUrl: 'ftp://example.com/a.mp4' })).toMatch(/^invalid_file_url: fileUrl must use http or https/);
    expect(codeOf({ ...base, fileUrl: 'file:///etc/passwd' })).toMatch(/^invalid_file_url/);
    expect(codeOf({ ...base, fileUrl: 'not a url' })).toMatch(/^invalid_file_url/);
  });

  it('rejects short-form /shorts/ pages with invalid_video_site_url', () => {
    expect(codeOf({ url: 'https://video.example.com/shorts/abc', start: 0, end: 100 })).toMatch(/^invalid_video_site_url/);
  });

  it.each([
    [{ start: 10, end: 10 }, /start \(10\) must be less than end/],
    [{ start: 0, end: 59 }, /from 60 to 1200 seconds, got 59/],
    [{ start: 0, end: 1200.5 }, /from 60 to 1200 seconds/],
    [{ start: -1, end: 100 }, /start must be >= 0/],
    [{ start: '0', end: 100 }, /start must be a number/],
  ])('rejects the time range %j with invalid_request', (range, message) => {
    expect(codeOf({ ...base, ...range })).toMatch(message);
  });

  it('accepts windows of exactly 60 and 1200 seconds', () => {
    expect(codeOf({ ...base, start: 0, end: 60 })).toBe('ok');
    expect(codeOf({ ...base, start: 100, end: 1300 })).toBe('ok');
  });

  it.each([0, 13, 2.5, -1])('rejects maxShorts %s: a whole number 1-12', (n) => {
    expect(codeOf({ ...base, maxShorts: n })).toMatch(/^invalid_request: maxShorts must be/);
  });

  it('rejects unknown enumerations and languages', () => {
    expect(codeOf({ ...base, preferredLength: 'under2min' })).toMatch(/preferredLength must be one of/);
    expect(codeOf({ ...base, layout: 'stretch' })).toMatch(/^invalid_request: layout must be one of auto, fill, fit, square, split, screen\b/);
    expect(codeOf({ ...base, language: 'xx' })).toMatch(/language must be one of/);
    expect(codeOf({ ...base, captionLanguage: 'klingon' })).toMatch(/captionLanguage must be one of/);
  });

  it('accepts the spec\'s four layouts and the split and screen extensions (issue 13)', () => {
    for (const layout of ['auto', 'fill', 'fit', 'square', 'split', 'screen']) {
      expect(validateCreateRequest({ ...base, layout }, ctx).layout).toBe(layout);
    }
    // With gameVideo too: the layout then applies to the top half.
    expect(codeOf({ ...base, layout: 'split', gameVideo: true }, { ...ctx, supportedFeatures: new Set(['gameVideo']) })).toBe('ok');
    for (const layout of ['stretch', 'SPLIT', 'split-screen', '']) expect(codeOf({ ...base, layout })).toMatch(/^invalid_request: layout must be one of/);
  });

  it('checks templateId format and existence', () => {
    expect(codeOf({ ...base, templateId: 'karaoke' })).toMatch(/24-character hex id/);
    expect(codeOf({ ...base, templateId: 'ffffffffffffffffffffffff' })).toMatch(/not in the template library/);
    for (const t of TEMPLATES) expect(codeOf({ ...base, templateId: t.templateId })).toBe('ok');
  });

  it('limits ctaText to 200 characters and requires it with ctaEnabled', () => {
    expect(codeOf({ ...base, ctaText: 'x'.repeat(201) })).toMatch(/ctaText must be at most 200 characters/);
    expect(codeOf({ ...base, ctaEnabled: true })).toMatch(/ctaText is required when ctaEnabled is true/);
  });

  it('trims outroText to 80 and outroHandle to 40 characters', () => {
    const r = validateCreateRequest({ ...base, outroText: `  ${'a'.repeat(100)}`, outroHandle: '@'.padEnd(50, 'h') }, ctx);
    expect(r.outroText).toHaveLength(80);
    expect(r.outroHandle).toHaveLength(40);
  });

  it('refuses an outroImageUrl that is not http(s) at creation, locally too (invalid_request, field outroImageUrl)', () => {
    for (const c of [ctx, { ...ctx, allowLocalFile: true }]) {
      expect(codeOf({ ...base, outroEnabled: true, outroImageUrl: 'file:///etc/passwd' }, c)).toBe('invalid_request: outroImageUrl must be a public http or https image URL, not file');
      expect(codeOf({ ...base, outroImageUrl: 'ftp://ftp.example.com/card.png' }, c)).toMatch(/^invalid_request: outroImageUrl must be a public http or https image URL, not ftp/);
      expect(codeOf({ ...base, outroImageUrl: 'card.png' }, c)).toMatch(/^invalid_request: outroImageUrl is not a valid URL/);
      expect(codeOf({ ...base, outroImageUrl: `https://cdn.example.com/${'a'.repeat(2048)}.png` }, c)).toMatch(/^invalid_request: outroImageUrl must be at most 2048 characters/);
    }
    const refusal = (() => {
      try { validateCreateRequest({ ...base, outroImageUrl: 'javascript:alert(1)' }, ctx); } catch (e) { return e; }
      return null;
    })();
    expect(refusal).toMatchObject({ code: 'invalid_request', details: { field: 'outroImageUrl' } });
    expect(validateCreateRequest({ ...base, outroImageUrl: 'https://cdn.example.com/card.png' }, ctx).outroImageUrl).toBe('https://cdn.example.com/card.png');
  });

  it('bounds outroSeconds 1-3 (integer) and musicVolume 0-100', () => {
    expect(codeOf({ ...base, outroSeconds: 4 })).toMatch(/outroSeconds must be a whole number from 1 to 3/);
    expect(codeOf({ ...base, outroSeconds: 1.5 })).toMatch(/outroSeconds must be a whole number/);
    expect(codeOf({ ...base, musicVolume: 101 })).toMatch(/musicVolume must be from 0 to 100/);
  });

  it('limits webhookUrl to 2048 characters', () => {
    expect(codeOf({ ...base, webhookUrl: `https://hooks.example.com/${'a'.repeat(2048)}` })).toMatch(/webhookUrl must be at most 2048/);
  });

  it('rejects unknown fields and non-object bodies', () => {
    expect(codeOf({ ...base, maxshorts: 3 })).toMatch(/unknown field "maxshorts"/);
    expect(codeOf('hello')).toMatch(/must be a JSON object/);
  });

  it('accepts a local file only in local mode', () => {
    expect(codeOf({ file: '/tmp/a.mp4', start: 0, end: 100 })).toMatch(/only accepted in local mode/);
    expect(codeOf({ file: '/tmp/a.mp4', start: 0, end: 100 }, { ...ctx, allowLocalFile: true })).toBe('ok');
  });

  it('accepts language auto (detection) only in local mode; the API keeps the spec default en', () => {
    expect(codeOf({ ...base, language: 'auto' })).toMatch(/^invalid_request: language "auto".*only accepted in local mode/);
    const local = { ...ctx, allowLocalFile: true };
    expect(validateCreateRequest({ file: '/tmp/a.mp4', start: 0, end: 100, language: 'auto' }, local)).toMatchObject({ language: 'auto', captionLanguage: '' });
    expect(validateCreateRequest(base, ctx).language).toBe('en');
    // A local file outside local mode is refused for being a file, whatever its language.
    expect(codeOf({ file: '/tmp/a.mp4', start: 0, end: 100, language: 'auto' })).toMatch(/file is only accepted in local mode/);
  });

  it('refuses render features this build cannot produce instead of ignoring them', () => {
    expect(codeOf({ ...base, music: true })).toMatch(/music \(background music\) is not available/);
    expect(codeOf({ ...base, hookTitle: true })).toMatch(/hookTitle/);
    expect(codeOf({ ...base, captionLanguage: 'es' })).toMatch(/captions in "es" for speech in "en" need a translation service/);
    expect(codeOf({ ...base, captionLanguage: 'en' })).toBe('ok');
  });

  it('defines every spec 4.2 body field once, with a kebab-case flag', () => {
    const fields = CREATE_OPTIONS.map((o) => o.field);
    expect(new Set(fields).size).toBe(fields.length);
    for (const o of CREATE_OPTIONS) expect(o.flag).toMatch(/^[a-z]+(-[a-z]+)*$/);
    expect(fields).toEqual(expect.arrayContaining(['url', 'fileUrl', 'start', 'end', 'preferredLength', 'maxShorts', 'language',
      'captionLanguage', 'templateId', 'noClipping', 'captionsEnabled', 'hookTitle', 'memeHook', 'memeHookName', 'gameVideo',
      'gameVideoName', 'ctaEnabled', 'ctaText', 'music', 'musicName', 'musicVolume', 'layout', 'blurBackground', 'outroEnabled',
      'outroText', 'outroImageUrl', 'outroSeconds', 'outroSting', 'outroHandle', 'webhookUrl']));
  });
});
