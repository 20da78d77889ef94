/** Spec 4.2's supported language codes (ISO 639-1): a neutral module every layer may import. */
export const LANGUAGES = [
  'en', 'af', 'sq', 'ar', 'hy', 'az', 'bs', 'bg', 'ca', 'zh', 'hr', 'cs', 'da', 'nl', 'et', 'fo', 'tl', 'fi', 'fr', 'gl',
  'ka', 'de', 'el', 'he', 'hi', 'hu', 'is', 'id', 'it', 'ja', 'ko', 'lv', 'lt', 'mk', 'ms', 'mt', 'mr', 'ne', 'no', 'fa',
  'pl', 'pt', 'ro', 'ru', 'sr', 'sk', 'sl', 'es', 'sw', 'sv', 'tr', 'uk', 'ur', 'vi',
] as const;
export type Language = (typeof LANGUAGES)[number];
