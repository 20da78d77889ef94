// The end-screen outro (spec 4.2 "End-screen outro"): a card of outroSeconds appended after the clip
// content in the same ffmpeg run (the graph is in src/media/ffmpeg-args.ts). This module holds what is
// not graph: the localized default line, the card's text layout as an ASS document (drawn by libass,
// like the captions), the sting file, and the guarded download of a custom card image.
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import got, { HTTPError, RequestError, type Response } from 'got';
import { guardedGotOptions, mediaType, parseFileUrl, type UrlCheck } from '../../net/download.js';
import { AbortedError } from '../../media/process.js';
import { ShortsError } from '../../errors.js';
import type { Language } from '../../languages.js';
import type { FontRef } from '../../catalog/templates.js';
import { assFontText } from '../captions/caption-text.js';
import { assColor, assTime, escapeAssText } from '../captions/captions.js';

/** "Subscribe for more" in every spec language (src/languages.ts); the default outro line. */
export const SUBSCRIBE_LINES: Record<Language, string> = {
  en: 'Subscribe for more',
  af: 'Teken in vir meer',
  sq: 'Abonohu për më shumë',
  ar: 'اشترك للمزيد',
  hy: 'Բաժանորդագրվեք ավելին տեսնելու համար',
  az: 'Daha çoxu üçün abunə olun',
  bs: 'Pretplati se za još',
  bg: 'Абонирай се за още',
  ca: 'Subscriu-te per a més',
  zh: '订阅获取更多内容',
  hr: 'Pretplati se za još',
  cs: 'Odebírej pro víc',
  da: 'Abonnér for mere',
  nl: 'Abonneer voor meer',
  et: 'Telli, et näha rohkem',
  fo: 'Tekna hald fyri meira',
  tl: 'Mag-subscribe para sa higit pa',
  fi: 'Tilaa lisää',
  fr: 'Abonne-toi pour plus',
  gl: 'Subscríbete para máis',
  ka: 'გამოიწერე მეტისთვის',
  de: 'Abonniere für mehr',
  el: 'Κάνε εγγραφή για περισσότερα',
  he: 'הירשמו לעוד',
  hi: 'और देखने के लिए सब्सक्राइब करें',
  hu: 'Iratkozz fel többért',
  is: 'Gerstu áskrifandi fyrir meira',
  id: 'Subscribe untuk lebih banyak',
  it: 'Iscriviti per altri video',
  ja: 'チャンネル登録してね',
  ko: '더 보려면 구독하세요',
  lv: 'Abonē, lai redzētu vairāk',
  lt: 'Prenumeruok, kad matytum daugiau',
  mk: 'Претплати се за повеќе',
  ms: 'Langgan untuk lagi',
  mt: 'Abbona għal aktar',
  mr: 'अधिकसाठी सबस्क्राइब करा',
  ne: 'थपका लागि सब्स्क्राइब गर्नुहोस्',
  no: 'Abonner for mer',
  fa: 'برای ویدیوهای بیشتر مشترک شوید',
  pl: 'Subskrybuj, by zobaczyć więcej',
  pt: 'Inscreva-se para mais',
  ro: 'Abonează-te pentru mai mult',
  ru: 'Подпишись, чтобы увидеть больше',
  sr: 'Претплати се за још',
  sk: 'Odoberaj pre viac',
  sl: 'Naroči se za več',
  es: 'Suscríbete para más',
  sw: 'Jisajili kwa zaidi',
  sv: 'Prenumerera för mer',
  tr: 'Daha fazlası için abone ol',
  uk: 'Підпишись, щоб побачити більше',
  ur: 'مزید کے لیے سبسکرائب کریں',
  vi: 'Đăng ký để xem thêm',
};

/** Spec limits: outroText trimmed to 80 characters, outroHandle to 40, outroSeconds 1-3 (default 2). */
export const OUTRO_TEXT_MAX = 80;
export const OUTRO_HANDLE_MAX = 40;
export const DEFAULT_OUTRO_SECONDS = 2;

/** The card's line: outroText when given (trimmed to 80), else the subscribe line of the caption language. */
export function outroLine(text: string | null | undefined, language: string, captionLanguage?: string | null): string {
  const own = (text ?? '').trim().slice(0, OUTRO_TEXT_MAX).trim();
  if (own) return own;
  const lang = (captionLanguage || language) as Language;
  return SUBSCRIBE_LINES[lang] ?? SUBSCRIBE_LINES.en;
}

/** outroHandle trimmed to 40, or null when empty. */
export function outroHandle(handle: string | null | undefined): string | null {
  const h = (handle ?? '').trim().slice(0, OUTRO_HANDLE_MAX).trim();
  return h || null;
}

/** The bell shipped in assets/sounds (CC-BY-3.0, see assets/sounds/README.md); same depth from src/ and dist/. */
export function outroStingPath(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'assets', 'sounds', 'outro-sting.oga');
}

export interface OutroCardText {
  /** The main line, or null (a custom image card without outroText draws no line). */
  text: string | null;
  handle: string | null;
  seconds: number;
  /** Text colours of the card (the caption template's). */
  textColor: string;
  accentColor: string;
  outlineColor: string;
}

/** The card's faces; characters they lack (Chinese, Hindi, Arabic...) switch to a shipped fallback font that has them. */
const LINE_FONT: FontRef = { family: 'Montserrat Black', file: 'Montserrat-Black.ttf' };
const HANDLE_FONT: FontRef = { family: 'Montserrat SemiBold', file: 'Montserrat-SemiBold.ttf' };

const STYLE_FORMAT = 'Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding';

/**
 * The card's text as an ASS document in the card's own time (0 = first outro frame). The line sits just
 * above the centre and grows upwards when it wraps; the handle hangs just below the centre, so the two
 * never overlap. The "stock animation": both fade in and zoom gently from 85% to 100% over the card.
 * Returns null when there is nothing to draw. Sizes are scaled from 1080x1920.
 */
export function buildOutroAss(card: OutroCardText, video: { width: number; height: number }): string | null {
  if (!card.text && !card.handle) return null;
  const k = video.width / 1080;
  const size = (px: number) => Math.max(8, Math.round(px * k));
  // Outline and shadow scale without the font-size floor, or a small render gets blobs instead of edges.
  const line = (px: number) => Math.max(1, Math.round(px * k));
  const margin = Math.round(video.width * 0.08);
  const cx = Math.round(video.width / 2), cy = Math.round(video.height * 0.5);
  const gap = size(28);
  const styles = [
    `Style: SwOutroText,${LINE_FONT.family},${size(108)},${assColor(card.textColor, 0)},${assColor(card.textColor, 0)},${assColor(card.outlineColor, 0)},${assColor(card.outlineColor, 0x80)},-1,0,0,0,100,100,0,0,1,${line(6)},${line(3)},2,${margin},${margin},0,1`,
    `Style: SwOutroHandle,${HANDLE_FONT.family},${size(64)},${assColor(card.accentColor, 0)},${assColor(card.accentColor, 0)},${assColor(card.outlineColor, 0)},${assColor(card.outlineColor, 0x80)},0,0,0,0,100,100,0,0,1,${line(4)},${line(2)},8,${margin},${margin},0,1`,
  ];
  const end = assTime(card.seconds);
  const ms = Math.round(card.seconds * 1000);
  const anim = (fadeIn: number) => `\\fad(${fadeIn},0)\\fscx85\\fscy85\\t(0,${ms},0.6,\\fscx100\\fscy100)`;
  const events: string[] = [];
  if (card.text) events.push(`Dialogue: 1,${assTime(0)},${end},SwOutroText,,0,0,0,,{\\an2\\pos(${cx},${cy - gap})${anim(250)}}${assFontText(card.text, LINE_FONT, escapeAssText)}`);
  if (card.handle) events.push(`Dialogue: 1,${assTime(0)},${end},SwOutroHandle,,0,0,0,,{\\an8\\pos(${cx},${cy + gap})${anim(400)}}${assFontText(card.handle, HANDLE_FONT, escapeAssText)}`);
  return ['[Script Info]', '; Generated by shortwright (outro card)', 'ScriptType: v4.00+', `PlayResX: ${video.width}`, `PlayResY: ${video.height}`,
    'WrapStyle: 0', 'ScaledBorderAndShadow: yes', 'YCbCr Matrix: None', '', '[V4+ Styles]', STYLE_FORMAT, ...styles, '', '[Events]',
    'Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text', ...events, ''].join('\n');
}

/** Image types ffmpeg's image2 demuxer reads by extension (the card input loops one picture). */
const IMAGE_EXTENSIONS: Record<string, string> = {
  'image/png': '.png', 'image/jpeg': '.jpg', 'image/jpg': '.jpg', 'image/pjpeg': '.jpg', 'image/webp': '.webp', 'image/bmp': '.bmp',
};
/** A card image is a picture, not a video: 20 MB is far more than any 1080x1920 PNG needs. */
export const OUTRO_IMAGE_MAX_BYTES = 20 * 1000 ** 2;

export interface OutroImageOptions {
  destDir: string;
  baseName?: string;
  /** The URL guard (API requests): the URL and every redirect are checked, connections pinned. */
  checkUrl?: UrlCheck;
  signal?: AbortSignal;
  maxBytes?: number;
}

/**
 * Downloads outroImageUrl into destDir through the same guarded got options as video downloads
 * (download.ts's downloadFile insists on a video Content-Type, so it cannot be reused as is). The
 * response must be 2xx with a PNG/JPEG/WebP/BMP Content-Type within the size limit. Throws
 * ShortsError('invalid_request') or AbortedError; a partial file never survives.
 */
export async function fetchOutroImage(rawUrl: string, opts: OutroImageOptions): Promise<string> {
  const url = parseFileUrl(rawUrl);
  const maxBytes = opts.maxBytes ?? OUTRO_IMAGE_MAX_BYTES;
  const part = path.join(opts.destDir, `${opts.baseName ?? 'outro-image'}.part`);
  try {
    const guarded = await guardedGotOptions(url, opts.checkUrl);
    const stream = got.stream(url, {
      ...guarded, signal: opts.signal, retry: { limit: 0 }, maxRedirects: 5,
      timeout: { lookup: 10_000, connect: 15_000, secureConnect: 15_000, response: 30_000, socket: 30_000 },
    });
    const response = await new Promise<Response>((resolve, reject) => {
      stream.once('response', resolve);
      stream.on('error', reject);
    });
    const type = mediaType(response.headers['content-type']);
    const ext = IMAGE_EXTENSIONS[type];
    const length = Number(response.headers['content-length']);
    if (!ext || (Number.isFinite(length) && length > maxBytes)) {
      stream.destroy();
      throw new ShortsError('invalid_request', ext
        ? `the outro image is ${length} bytes, above the ${maxBytes} byte limit`
        : `the outro image URL served ${type || 'no Content-Type'}; a PNG, JPEG, WebP or BMP image is required`);
    }
    await pipeline(stream, byteLimit(maxBytes), createWriteStream(part), { signal: opts.signal });
    const final = path.join(opts.destDir, `${opts.baseName ?? 'outro-image'}${ext}`);
    await rename(part, final);
    return final;
  } catch (e) {
    await rm(part, { force: true });
    if (opts.signal?.aborted) throw new AbortedError();
    if (e instanceof ShortsError) throw e;
    if (e instanceof HTTPError) throw new ShortsError('invalid_request', `the outro image URL answered HTTP ${e.response.statusCode}`);
    // A guard refusal thrown inside got's redirect hook arrives wrapped.
    if (e instanceof RequestError && e.cause instanceof ShortsError) throw e.cause;
    if (e instanceof RequestError) throw new ShortsError('invalid_request', `could not download the outro image from ${url.host}: ${e.code || e.message}`);
    throw e;
  }
}

function byteLimit(maxBytes: number): Transform {
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
      bytes += chunk.length;
      if (bytes > maxBytes) done(new ShortsError('invalid_request', `the outro image is larger than the ${maxBytes} byte limit`));
      else done(null, chunk);
    },
  });
}
