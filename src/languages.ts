/** Spec 4.2's supported language codes (ISO 639-1): a neutral module every layer may import. */
export const LANGUAGES = [
  'en', 'af', 'sq', 'ar', 'hy', 'az', 'bs', 'bg', 'ca', 'zh', 'hr', 'cs', 'da', 'nl', 'et', 'fo', 'tl', 'fi', 'fr', 'gl',
  'ka', 'de', 'el', 'he', 'hi', 'hu', 'is', 'id', 'it', 'ja', 'ko', 'lv', 'lt', 'mk', 'ms', 'mt', 'mr', 'ne', 'no', 'fa',
  'pl', 'pt', 'ro', 'ru', 'sr', 'sk', 'sl', 'es', 'sw', 'sv', 'tr', 'uk', 'ur', 'vi',
] as const;
export type Language = (typeof LANGUAGES)[number];

const displayNames = new Intl.DisplayNames(['en'], { type: 'language' });

/** English name of a language code ("es" -> "Spanish"), for messages and prompts; the code itself when ICU has no name. */
export function languageName(code: string): string {
  try {
    const name = displayNames.of(code);
    return name && name !== code ? name : code;
  } catch {
    return code;
  }
}

/** "Spanish (es)"; a code ICU has no name for stays quoted ("xx"). */
export function languageLabel(code: string): string {
  const name = languageName(code);
  return name === code ? `"${code}"` : `${name} (${code})`;
}
