// Emoji accents for captions: a keyword table (data; other speech languages in emoji-words.ts) and the
// matcher that picks at most one emoji for a phrase. libass draws no colour emoji, so each emoji is a
// PNG in assets/emoji (extracted from Noto Color Emoji by scripts/build-emoji.mjs, `npm run emoji`)
// that the renderer overlays above the phrase.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EMOJI_WORDS, SHARED_EMOJI_WORDS, type EmojiLanguage } from './emoji-words.js';

export interface EmojiKeywords {
  /** One code point: the shipped PNG is named after it (e.g. 1f4b0.png). */
  emoji: string;
  /** Lower-case base forms; inflections match too (English: wordStems; other languages: wordForms). */
  words: readonly string[];
}

/**
 * Words that come up in talks, podcasts and interviews, grouped by the emoji they earn. Very common
 * words that carry no picture ("like", "good", "see", "right") are left out on purpose: an emoji on
 * every phrase is noise. Earlier entries win when a word could fit two.
 */
export const EMOJI_KEYWORDS: readonly EmojiKeywords[] = [
  { emoji: '💰', words: ['money', 'cash', 'dollar', 'rich', 'wealth', 'wealthy', 'profit', 'salary', 'income', 'paid', 'price', 'budget', 'invest', 'investment', 'revenue', 'million', 'billion', 'millionaire', 'fortune', 'afford', 'earn'] },
  { emoji: '💸', words: ['spend', 'expensive', 'debt', 'broke', 'bill', 'waste', 'cost', 'tax'] },
  { emoji: '🔥', words: ['fire', 'hot', 'burn', 'flame', 'lit', 'viral', 'heat', 'spicy', 'trending'] },
  { emoji: '💔', words: ['breakup', 'heartbreak', 'heartbroken', 'divorce', 'betray'] },
  { emoji: '❤', words: ['love', 'lover', 'lovely', 'heart', 'adore', 'romance', 'romantic', 'crush', 'passion', 'kiss'] },
  { emoji: '😂', words: ['laugh', 'funny', 'joke', 'hilarious', 'lol', 'haha', 'lmao', 'humor', 'humour', 'comedy', 'kidding', 'prank'] },
  { emoji: '💡', words: ['idea', 'insight', 'tip', 'trick', 'hack', 'solution', 'clever', 'genius', 'inspire', 'inspiration', 'invent', 'innovation', 'creative'] },
  { emoji: '🤔', words: ['think', 'thought', 'wonder', 'consider', 'hmm', 'maybe', 'perhaps', 'guess', 'curious', 'ponder', 'imagine'] },
  { emoji: '❓', words: ['question', 'why', 'ask', 'confuse', 'confusing', 'mystery', 'unknown', 'puzzle'] },
  { emoji: '⏰', words: ['time', 'clock', 'hour', 'minute', 'deadline', 'late', 'early', 'schedule', 'wait', 'alarm', 'timer', 'hurry'] },
  { emoji: '🏆', words: ['win', 'won', 'winner', 'victory', 'champion', 'award', 'prize', 'trophy', 'succeed', 'success', 'successful', 'achieve', 'achievement'] },
  { emoji: '💼', words: ['work', 'job', 'career', 'office', 'business', 'boss', 'employee', 'employer', 'company', 'hire', 'meeting', 'manager', 'ceo', 'entrepreneur'] },
  { emoji: '🍕', words: ['food', 'eat', 'ate', 'pizza', 'hungry', 'dinner', 'lunch', 'breakfast', 'meal', 'cook', 'delicious', 'snack', 'restaurant', 'burger', 'recipe'] },
  { emoji: '🧠', words: ['brain', 'mind', 'learn', 'study', 'knowledge', 'memory', 'intelligence', 'intelligent', 'psychology', 'smart', 'wisdom', 'neuroscience'] },
  { emoji: '🚀', words: ['rocket', 'grow', 'growth', 'launch', 'boost', 'skyrocket', 'scale', 'fast', 'rapid', 'startup', 'space', 'accelerate'] },
  { emoji: '⚠', words: ['warning', 'warn', 'danger', 'dangerous', 'careful', 'risk', 'risky', 'mistake', 'beware', 'caution', 'threat', 'alert', 'avoid'] },
  { emoji: '🌍', words: ['world', 'global', 'earth', 'planet', 'country', 'international', 'everywhere', 'nation', 'worldwide'] },
  { emoji: '✈', words: ['travel', 'flight', 'fly', 'plane', 'airport', 'trip', 'vacation', 'holiday', 'abroad'] },
  { emoji: '📈', words: ['stock', 'market', 'increase', 'rise', 'chart', 'trend', 'data', 'statistic', 'percent', 'improve', 'progress'] },
  { emoji: '📉', words: ['decline', 'crash', 'loss', 'decrease', 'recession', 'plummet'] },
  { emoji: '💪', words: ['strong', 'strength', 'power', 'powerful', 'gym', 'workout', 'muscle', 'exercise', 'fitness', 'train', 'tough', 'hustle', 'discipline'] },
  { emoji: '😴', words: ['sleep', 'tired', 'bed', 'nap', 'exhausted', 'dream', 'bored', 'boring'] },
  { emoji: '🎉', words: ['party', 'celebrate', 'celebration', 'congratulations', 'congrats', 'birthday', 'anniversary', 'fun'] },
  { emoji: '😊', words: ['happy', 'smile', 'joy', 'glad', 'grateful', 'thankful'] },
  { emoji: '😢', words: ['sad', 'cry', 'tear', 'lonely', 'depressed', 'depression', 'sorry', 'miss', 'upset', 'grief'] },
  { emoji: '😡', words: ['angry', 'mad', 'hate', 'furious', 'rage', 'annoy', 'annoying', 'frustrate', 'frustrating'] },
  { emoji: '😱', words: ['scary', 'scared', 'shock', 'shocking', 'fear', 'afraid', 'terrified', 'horror', 'omg', 'panic'] },
  { emoji: '🤯', words: ['wow', 'incredible', 'amazing', 'unbelievable', 'mindblowing', 'impossible', 'insane', 'crazy', 'wild'] },
  { emoji: '🎯', words: ['goal', 'target', 'focus', 'aim', 'purpose', 'mission', 'plan', 'strategy', 'objective'] },
  { emoji: '📱', words: ['phone', 'app', 'mobile', 'smartphone', 'iphone', 'android', 'tiktok', 'instagram', 'social'] },
  { emoji: '💻', words: ['computer', 'laptop', 'code', 'coding', 'software', 'program', 'programming', 'developer', 'tech', 'technology', 'internet', 'online', 'website'] },
  { emoji: '🤖', words: ['ai', 'robot', 'artificial', 'automation', 'automate', 'machine', 'chatgpt', 'algorithm'] },
  { emoji: '📚', words: ['book', 'read', 'library', 'novel', 'author', 'reader', 'reading'] },
  { emoji: '🎓', words: ['school', 'college', 'university', 'student', 'graduate', 'degree', 'teacher', 'class', 'education', 'exam'] },
  { emoji: '🏠', words: ['home', 'house', 'apartment', 'rent', 'mortgage', 'neighbor', 'neighbour', 'family', 'parent', 'mom', 'dad', 'mother', 'father'] },
  { emoji: '👶', words: ['baby', 'kid', 'child', 'children', 'toddler'] },
  { emoji: '🤝', words: ['deal', 'partner', 'partnership', 'agree', 'agreement', 'team', 'together', 'collaborate', 'trust', 'friend', 'friendship', 'contract'] },
  { emoji: '👀', words: ['look', 'watch', 'eye', 'notice', 'attention', 'spy', 'stare'] },
  { emoji: '🤫', words: ['secret', 'quiet', 'silent', 'silence', 'shh', 'whisper'] },
  { emoji: '🎵', words: ['music', 'song', 'sing', 'singer', 'melody', 'listen', 'album', 'concert'] },
  { emoji: '💃', words: ['dance', 'dancing', 'dancer'] },
  { emoji: '⚽', words: ['soccer', 'football', 'sport', 'sports', 'coach'] },
  { emoji: '🎮', words: ['game', 'gaming', 'gamer', 'play', 'player', 'level', 'console'] },
  { emoji: '🚗', words: ['car', 'drive', 'driver', 'road', 'traffic', 'vehicle'] },
  { emoji: '🏃', words: ['run', 'running', 'runner', 'race', 'marathon', 'sprint', 'jog'] },
  { emoji: '🐶', words: ['dog', 'puppy', 'pet'] },
  { emoji: '🐱', words: ['cat', 'kitten'] },
  { emoji: '☕', words: ['coffee', 'tea', 'cafe', 'caffeine', 'espresso'] },
  { emoji: '🍷', words: ['wine', 'beer', 'drink', 'alcohol', 'bar', 'cheers'] },
  { emoji: '💊', words: ['health', 'healthy', 'medicine', 'doctor', 'sick', 'pill', 'hospital', 'disease', 'cure', 'illness'] },
  { emoji: '🌱', words: ['nature', 'plant', 'green', 'environment', 'garden', 'climate', 'tree', 'sustainable', 'seed'] },
  { emoji: '☀', words: ['sun', 'summer', 'sunny', 'weather', 'bright', 'sunshine'] },
  { emoji: '❄', words: ['cold', 'winter', 'snow', 'ice', 'freeze', 'frozen'] },
  { emoji: '💯', words: ['hundred', 'perfect', 'totally', 'absolutely', 'exactly', 'definitely', 'literally'] },
  { emoji: '✅', words: ['done', 'correct', 'complete', 'finish', 'approve', 'check', 'solved'] },
  { emoji: '❌', words: ['wrong', 'fail', 'failure', 'false', 'incorrect', 'reject', 'myth'] },
  { emoji: '🛑', words: ['stop', 'quit', 'halt', 'enough'] },
  { emoji: '🔑', words: ['key', 'unlock', 'password', 'access'] },
  { emoji: '🔒', words: ['security', 'secure', 'lock', 'privacy', 'private', 'safe', 'protect', 'safety'] },
  { emoji: '📷', words: ['photo', 'camera', 'picture', 'selfie', 'photography'] },
  { emoji: '🎬', words: ['movie', 'film', 'video', 'youtube', 'cinema', 'director', 'scene', 'netflix'] },
  { emoji: '⭐', words: ['star', 'famous', 'celebrity', 'rating', 'review', 'favorite', 'favourite'] },
  { emoji: '👑', words: ['king', 'queen', 'royal', 'crown', 'prince', 'princess', 'legend'] },
  { emoji: '💎', words: ['diamond', 'valuable', 'precious', 'gem', 'quality', 'luxury', 'premium'] },
  { emoji: '🎁', words: ['gift', 'free', 'bonus', 'giveaway', 'surprise'] },
  { emoji: '📣', words: ['announce', 'announcement', 'news', 'breaking', 'update', 'share'] },
  { emoji: '🎙', words: ['talk', 'speak', 'speech', 'voice', 'podcast', 'microphone', 'mic', 'speaker', 'stage', 'host', 'episode', 'interview'] },
  { emoji: '💬', words: ['conversation', 'discuss', 'discussion', 'chat', 'comment', 'reply', 'message', 'said'] },
  { emoji: '😎', words: ['cool', 'awesome', 'confident', 'confidence', 'chill', 'swag'] },
  { emoji: '🙏', words: ['thank', 'thanks', 'please', 'pray', 'prayer', 'hope', 'bless', 'blessed'] },
  { emoji: '🔔', words: ['subscribe', 'notification', 'bell', 'remind', 'reminder'] },
  { emoji: '🧘', words: ['calm', 'relax', 'meditate', 'meditation', 'peace', 'mindful', 'mindfulness', 'breathe'] },
  { emoji: '😫', words: ['stress', 'stressed', 'anxiety', 'anxious', 'overwhelm', 'overwhelmed', 'pressure', 'burnout'] },
  { emoji: '⚡', words: ['energy', 'electric', 'lightning', 'instant', 'quick', 'quickly', 'battery'] },
  { emoji: '📝', words: ['write', 'wrote', 'writer', 'note', 'list', 'journal', 'essay', 'homework'] },
  { emoji: '🔍', words: ['search', 'find', 'found', 'research', 'discover', 'investigate', 'google', 'explore'] },
  { emoji: '🧪', words: ['science', 'scientist', 'experiment', 'test', 'lab', 'chemistry'] },
  { emoji: '💀', words: ['dead', 'die', 'death', 'kill', 'dying', 'skull'] },
  { emoji: '🍎', words: ['apple', 'fruit', 'diet', 'vegetable', 'nutrition'] },
];

/** File name of an emoji's PNG: its code point in lower-case hex (the Noto Emoji convention). */
export function emojiFileName(emoji: string): string {
  const cp = emoji.codePointAt(0);
  if (cp === undefined) throw new Error('empty emoji');
  return `${cp.toString(16)}.png`;
}

/** Absolute path of assets/emoji (same depth from src/pipeline and dist/pipeline). */
export function emojiDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'assets', 'emoji');
}

export function emojiPath(emoji: string): string {
  return path.join(emojiDir(), emojiFileName(emoji));
}

/** The keyword table a speech language uses: 'pt-BR' -> pt; English, unknown and unsupported -> en. */
export function emojiLanguage(language?: string | null): EmojiLanguage | 'en' {
  const code = (language ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return Object.hasOwn(EMOJI_WORDS, code) ? code as EmojiLanguage : 'en';
}

const lookups = new Map<EmojiLanguage | 'en', Map<string, string>>();
function table(language: EmojiLanguage | 'en'): Map<string, string> {
  let lookup = lookups.get(language);
  if (!lookup) {
    lookup = new Map();
    const entries = language === 'en' ? EMOJI_KEYWORDS : [...EMOJI_WORDS[language], ...SHARED_EMOJI_WORDS];
    for (const entry of entries) for (const w of entry.words) {
      const key = language === 'en' ? w : foldWord(w);
      if (key && !lookup.has(key)) lookup.set(key, entry.emoji);
    }
    lookups.set(language, lookup);
  }
  return lookup;
}

/**
 * Base forms a spoken word may be an inflection of: "Laughing" -> laugh, "winners" -> winner/win,
 * "parties" -> party, "loved" -> love. Deliberately simple suffix stripping (English): the table lists
 * the irregular forms it needs (won, ate, thought).
 */
export function wordStems(word: string): string[] {
  const w = word.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/'s$|’s$/, '').replace(/[^a-z0-9]/g, '');
  if (!w) return [];
  const out = new Set([w]);
  const strip = (suffix: string, min = 3) => {
    if (!w.endsWith(suffix) || w.length - suffix.length < min) return;
    const base = w.slice(0, -suffix.length);
    out.add(base);
    out.add(`${base}e`); // loved -> love, making -> make
    // Doubled final consonant: winning -> win, stopped -> stop.
    if (base.length >= 3 && base.at(-1) === base.at(-2)) out.add(base.slice(0, -1));
  };
  if (w.endsWith('ies') && w.length > 4) out.add(`${w.slice(0, -3)}y`);
  if (w.endsWith('ied') && w.length > 4) out.add(`${w.slice(0, -3)}y`);
  for (const s of ['s', 'es', 'ed', 'd', 'ing', 'er', 'ers', 'est', 'ly']) strip(s, s.length === 1 ? 2 : 3);
  return [...out];
}

/**
 * Plural endings per language, as [ending, replacement]: es "canciones" -> canción, fr "jeux" -> jeu,
 * "journaux" -> journal (and feminine -e: "fatiguée" -> fatigué), pt "corações" -> coração, "viagens"
 * -> viagem, it "amici" -> amico, "giochi" -> gioco, de "Kinder" -> Kind (German adjective endings are
 * the same ones: "starken" -> stark). Only endings, never verb stemming: stemming would turn common
 * verb forms into keywords (de "heiße" "am called" -> heiß), so the tables list the verb forms speech
 * uses instead. German compounds are not split ("Geldbörse" is not "Geld"). What is left must keep 3
 * letters, so short function words ("une", "mi", "den") stay themselves.
 */
const PLURALS: Readonly<Record<EmojiLanguage, readonly (readonly [string, string])[]>> = {
  es: [['ces', 'z'], ['es', ''], ['s', '']],
  fr: [['aux', 'al'], ['es', ''], ['s', ''], ['x', ''], ['e', '']],
  pt: [['oes', 'ao'], ['aes', 'ao'], ['ais', 'al'], ['eis', 'el'], ['ois', 'ol'], ['ns', 'm'], ['es', ''], ['s', '']],
  it: [['chi', 'co'], ['ghi', 'go'], ['che', 'ca'], ['ghe', 'ga'], ['i', 'o'], ['i', 'e'], ['i', 'a'], ['i', 'io'], ['e', 'a']],
  de: [['ern', ''], ['en', ''], ['er', ''], ['es', ''], ['em', ''], ['e', ''], ['n', ''], ['s', '']],
};

/**
 * A word as the non-English tables compare it: lower case, without accents (captions come with and
 * without them, and Whisper is not consistent), ß/œ/æ spelled out, only letters and digits, and only
 * what follows an apostrophe (the elided article or preposition of fr "l'argent", it "dell'amore").
 */
function foldWord(word: string): string {
  const w = word.toLowerCase().replace(/ß/g, 'ss').replace(/œ/g, 'oe').replace(/æ/g, 'ae').replace(/^['’ʼ]+|['’ʼ]+$/g, '');
  return (w.split(/['’ʼ]/).pop() ?? '').normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]/g, '');
}

/**
 * The forms a spoken word is looked up as in a language's table: itself (folded), then with a plural
 * ending replaced. English (and any language without a table) uses wordStems.
 */
export function wordForms(word: string, language?: string | null): string[] {
  const lang = emojiLanguage(language);
  if (lang === 'en') return wordStems(word);
  const w = foldWord(word);
  if (!w) return [];
  const out = new Set([w]);
  for (const [ending, replacement] of PLURALS[lang]) {
    if (!w.endsWith(ending)) continue;
    const base = w.slice(0, -ending.length) + replacement;
    if (base.length >= 3) out.add(base);
  }
  return [...out];
}

/** The emoji a single spoken word earns in the speech language (English when absent), or null. */
export function emojiForWord(word: string, language?: string | null): string | null {
  const t = table(emojiLanguage(language));
  for (const form of wordForms(word, language)) {
    const e = t.get(form);
    if (e) return e;
  }
  return null;
}

/** The first word of a phrase that earns an emoji (at most one per phrase), or null. */
export function emojiForPhrase(words: readonly string[], language?: string | null): { emoji: string; wordIndex: number } | null {
  for (let i = 0; i < words.length; i++) {
    const emoji = emojiForWord(words[i]!, language);
    if (emoji) return { emoji, wordIndex: i };
  }
  return null;
}
