// Word classes for the copywriter: which words of a transcript sentence are function words (a title must
// not end or start on them, a hashtag must never be one) and which are nouns and names (what hashtags are
// made of). English uses compromise, an offline rule-and-lexicon POS tagger (no model download), because
// the same spelling is a verb in one sentence and a noun in the next ("press two" / "the press", "to
// decrease your volume" / "a decrease"), which no word list can tell apart. Closed-class words come from
// our own lists first, since the tagger's guesses there ("to" as a conjunction, "what" as a preposition)
// are exactly the cases the title rules depend on. Other languages have no tagger here: their words are
// 'stop' when the language's stop-word list (stop-words.ts) or the transcript's own commonest words name
// them, 'number' when written in digits, and 'unknown' otherwise, so the callers never apply English
// grammar to them.
import { createRequire } from 'node:module';
import { coreOf, isEnglish, isStopWord, lookupForm, splitWords, withoutElision } from './stop-words.js';

export { isEnglish };

export type WordClass =
  | 'noun' | 'name' | 'number' | 'adjective' | 'verb' | 'adverb'
  | 'pronoun' | 'object-pronoun' | 'determiner' | 'possessive' | 'preposition' | 'particle' | 'conjunction'
  | 'subordinator' | 'wh' | 'auxiliary' | 'negation' | 'infinitive-to' | 'interjection' | 'unknown'
  /** A function word of a language without a tagger (its stop-word list says so). */
  | 'stop';

export interface ClassedWord {
  /** The word as spoken, punctuation included ("party's", "volume."). */
  text: string;
  /** Lower case, outer punctuation removed, curly apostrophes straightened. */
  norm: string;
  cls: WordClass;
  /** Punctuation right after the word (",", "?", "" ...): a clause boundary when it is , ; : or a dash. */
  trail: string;
}

// ---------------------------------------------------------------- closed classes (English)

const words = (s: string): Set<string> => new Set(s.split(/\s+/).filter(Boolean));

const DETERMINERS = words('a an the this that these those each every some any no another either neither all both such several many few various');
const POSSESSIVES = words('my your his her its our their whose');
const PREPOSITIONS = words(`about above across after against along amid among amongst around at before behind below beneath beside
  besides between beyond by despite down during except for from in inside into like near of off on onto out outside over past per
  since than through throughout till to toward towards under underneath unlike until up upon via with within without`);
/** Prepositions that also end phrasal verbs ("hang up", "logged in"): allowed to close a sentence after a verb. */
const PARTICLES = words('up down in out off on over back away around along through');
const CONJUNCTIONS = words('and or but nor yet so plus');
/** Open a dependent clause: a title that starts on one needs the main clause after it. */
export const SUBORDINATORS = words(`if unless because although though whereas while whilst when whenever where wherever once until till
  since after before as lest whether`);
const WH = words('who whom which what how why');
const AUXILIARIES = words(`am is are was were be been being have has had having do does did will would shall should can could may
  might must ought`);
const PRONOUNS = words('i he she we they');
const MAIN_AFTER_AUX = words('do does did have has had');
/** Pronouns that can close a phrase ("thank you", "try it", "ask them"). */
const OBJECT_PRONOUNS = words(`me him us them you it myself yourself himself herself itself ourselves yourselves themselves
  someone somebody something anyone anybody anything everyone everybody everything nobody nothing none`);
const NEGATIONS = words('not never');
const INTERJECTIONS = words('um uh umm uhh er erm oh ah hmm mm yeah yes okay ok hey wow please');
/**
 * Adverbs and degree words that the tagger sometimes calls adjectives or nouns; they are never a topic
 * (#Rather) and never end a phrase that is complete ("The Number Was Successfully").
 */
const ADVERBS = words(`very too quite rather really just only also even still already almost always often sometimes usually
  then there here now instead however anyway perhaps maybe probably actually basically literally simply exactly ever again
  soon later today tonight tomorrow yesterday together otherwise therefore thus hence meanwhile moreover somewhat much more
  most less least well far enough ago halfway`);

// ---------------------------------------------------------------- the tagger

interface Term { text: string; tags: string[]; offset: { start: number; length: number } }
interface Nlp { (text: string): { json(opts: { offset: boolean }): { terms: Term[] }[] } }

let nlp: Nlp | null = null;
/** Loaded on first use (about half a second): commands that never write copy don't pay for it. */
function tagger(): Nlp {
  nlp ??= createRequire(import.meta.url)('compromise/two') as Nlp;
  return nlp;
}

export function normWord(text: string): string {
  return text.toLowerCase().replace(/[\u2018\u2019]/g, '\'').replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

/** The punctuation a word carries after it ("volume," -> ","). */
export function wordTrail(text: string): string {
  return /[^\p{L}\p{N}'\u2019]*$/u.exec(text)?.[0] ?? '';
}

/**
 * The words of a sentence in a language without a tagger: split by stop-words.ts (at spaces, or by ICU
 * for scripts without them), classed by the language's stop-word list and `commonWords`, the words the
 * transcript says in most of its sentences (lookup forms), which stand in where no list exists.
 */
export function classifyOtherWords(sentence: string, language: string, commonWords: ReadonlySet<string> = new Set()): ClassedWord[] {
  return splitWords(sentence, language).map((w): ClassedWord => {
    // "l'agent", "dell'utente": the word is looked up (and tagged) without its elided article.
    const norm = lookupForm(withoutElision(w.core, language), language);
    const trail = w.text.slice(w.text.lastIndexOf(w.core) + w.core.length);
    if (!w.wordLike || norm.length === 0) return { text: w.text, norm, cls: 'interjection', trail };
    if (/^\p{N}+$/u.test(coreOf(norm))) return { text: w.text, norm, cls: 'number', trail };
    // "что-то", "c'est-à-dire": a compound of function words is one too.
    const parts = norm.split(/[-\u2010]/).filter(Boolean);
    const stop = isStopWord(norm, language) || commonWords.has(norm) || (parts.length > 1 && parts.every((p) => isStopWord(p, language) || commonWords.has(p)));
    return { text: w.text, norm, cls: stop ? 'stop' : 'unknown', trail };
  });
}

/** Every whitespace-separated word of the sentence with its class, in order. */
export function classifyWords(sentence: string, language: string, commonWords?: ReadonlySet<string>): ClassedWord[] {
  if (!isEnglish(language)) return classifyOtherWords(sentence, language, commonWords);
  const spans: { text: string; start: number; end: number }[] = [];
  for (const m of sentence.matchAll(/\S+/g)) spans.push({ text: m[0], start: m.index, end: m.index + m[0].length });
  const terms = spans.length > 0 ? tagger()(sentence).json({ offset: true }).flatMap((s) => s.terms) : [];
  const termsOf = spans.map((span) => terms.filter((t) => t.offset.start < span.end && t.offset.start + Math.max(1, t.offset.length) > span.start));
  const out = spans.map((span, k): ClassedWord => {
    const norm = normWord(span.text);
    const trail = wordTrail(span.text);
    if (norm.length === 0) return { text: span.text, norm, cls: 'interjection', trail };
    return { text: span.text, norm, cls: englishClass(norm, termsOf[k]!, termsOf[k + 1] ?? []), trail };
  });
  for (let k = 1; k < out.length; k++) {
    const w = out[k]!;
    const prev = out[k - 1]!;
    const next = out[k + 1];
    // "what your country can do", "to have": after a modal or "to", do and have are the main verb.
    if (MAIN_AFTER_AUX.has(w.norm) && (prev.cls === 'auxiliary' || prev.cls === 'infinitive-to')) w.cls = 'verb';
    // The tagger's commonest slip on speech: a verb read as a noun right after its subject or "to"
    // ("you refine it", "to reset the volume"). A word between a subject, a modal or "to" and an object is a verb.
    // "fail in their first year": before its object a particle word is a preposition ("logged in" stays a particle).
    if (w.cls === 'particle' && next && ['determiner', 'possessive', 'number', 'name', 'object-pronoun', 'noun'].includes(next.cls)) w.cls = 'preposition';
    // "you're enabling people": an -ing word after an auxiliary is the verb of a progressive.
    if (w.cls === 'noun' && prev.cls === 'auxiliary' && /ing$/.test(w.norm)) w.cls = 'verb';
    if (w.cls === 'noun' || w.cls === 'adjective') {
      const objectNext = next !== undefined && ['determiner', 'possessive', 'object-pronoun'].includes(next.cls);
      if (PRONOUNS.has(prev.norm) || (objectNext && (prev.norm === 'to' || prev.norm === 'you' || prev.cls === 'auxiliary'))) {
        w.cls = 'verb';
        if (prev.norm === 'to') prev.cls = 'infinitive-to';
      }
    }
  }
  return out;
}

function englishClass(norm: string, terms: Term[], nextTerms: Term[]): WordClass {
  if (/^\d/.test(norm)) return 'number';
  // Contractions: "you're", "don't", "it'll" end nothing well; "party's" / "John's" is a possessive
  // (or "is"), which cannot end a title either.
  if (/n't$|'(re|ve|ll|d|m)$/.test(norm)) return 'auxiliary';
  if (/'s$|s'$/.test(norm)) return 'possessive';
  // "to" before a verb (as the tagger reads that verb in this sentence) is the infinitive marker.
  if (norm === 'to') return nextTerms[0]?.tags.includes('Verb') ? 'infinitive-to' : 'preposition';
  if (DETERMINERS.has(norm)) return norm === 'that' && terms.some((t) => !t.tags.includes('Determiner')) ? 'subordinator' : 'determiner';
  if (POSSESSIVES.has(norm)) return 'possessive';
  if (AUXILIARIES.has(norm)) return 'auxiliary';
  if (CONJUNCTIONS.has(norm)) return 'conjunction';
  if (WH.has(norm)) return 'wh';
  if (SUBORDINATORS.has(norm) && !PREPOSITIONS.has(norm)) return 'subordinator';
  if (PREPOSITIONS.has(norm)) return PARTICLES.has(norm) ? 'particle' : 'preposition';
  if (PRONOUNS.has(norm)) return 'pronoun';
  if (OBJECT_PRONOUNS.has(norm)) return 'object-pronoun';
  if (NEGATIONS.has(norm)) return 'negation';
  if (INTERJECTIONS.has(norm)) return 'interjection';
  if (ADVERBS.has(norm)) return 'adverb';
  // Open classes: the tagger's reading of this word in this sentence. A hyphenated word ("cold-hearted",
  // "walk-in") is several terms; its last one is the head.
  const head = terms[terms.length - 1];
  const tags = new Set(head?.tags ?? []);
  if (tags.has('Value')) return 'number';
  if (tags.has('ProperNoun') || tags.has('Person') || tags.has('Place') || tags.has('Organization')) return 'name';
  if (tags.has('Auxiliary') || tags.has('Modal') || tags.has('Copula')) return 'auxiliary';
  if (tags.has('Pronoun')) return 'object-pronoun';
  if (tags.has('Verb') || tags.has('Gerund')) return 'verb';
  if (tags.has('Adverb')) return 'adverb';
  if (tags.has('Adjective')) return 'adjective';
  if (tags.has('Noun')) return 'noun';
  if (tags.has('Expression')) return 'interjection';
  // Untagged: -ly words are adverbs; anything else is most likely a noun the lexicon lacks.
  return /ly$/.test(norm) && norm.length > 4 ? 'adverb' : 'noun';
}

// ---------------------------------------------------------------- what the copywriter asks

/** Classes a title (or any phrase cut from a sentence) must never end on. */
const NEVER_LAST: ReadonlySet<WordClass> = new Set<WordClass>([
  'determiner', 'possessive', 'preposition', 'conjunction', 'subordinator', 'wh', 'auxiliary', 'pronoun', 'negation',
  'infinitive-to', 'interjection', 'stop',
]);

/**
 * Whether `words[k]` can be the last word of a title. `closing` says whether the sentence or a clause
 * ends right there (the end of the sentence, or a comma after the word): only then may a particle close
 * it after its verb ("Agent Logged In", but not "… Change Out | of your pyjamas"), and "have" or "do"
 * stand as the main verb ("What's the Strangest Call Out You've Ever Had?").
 */
export function canEndTitle(words: readonly ClassedWord[], k: number, closing: boolean): boolean {
  const w = words[k];
  if (!w) return false;
  const prev = words[k - 1];
  if (w.cls === 'particle') return closing && prev?.cls === 'verb';
  if (w.cls === 'auxiliary' && closing && MAIN_AFTER_AUX.has(w.norm) && prev !== undefined && prev.cls !== 'infinitive-to') return true;
  if (!NEVER_LAST.has(w.cls)) {
    // "The Number Was Successfully": an adverb right after an auxiliary is a verb phrase with its verb missing.
    return !(w.cls === 'adverb' && k > 0 && words[k - 1]!.cls === 'auxiliary' && /ly$/.test(w.norm));
  }
  return false;
}

/** Words that tie a sentence to the one before it; a title starting on one reads as mid-argument. */
export const LEADING_CONNECTIVES = words(`and but or so nor yet plus also then however anyway besides instead still otherwise
  therefore thus hence moreover furthermore meanwhile too nevertheless nonetheless consequently accordingly`);

/** Classes whose words are never hashtags: function words, adverbs and verbs. */
export function isTopicWord(w: ClassedWord): boolean {
  return w.cls === 'noun' || w.cls === 'name' || w.cls === 'unknown';
}
