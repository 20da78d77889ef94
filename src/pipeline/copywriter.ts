// Stage 4: title, reason and social description for one highlight, written from the clip's own words.
// Deterministic and local; llm.ts may polish the result when a model is configured.
import { hookScore, NUMBER_WORDS, startCleanliness, tokens } from './highlight-features.js';
import { writeReason } from './reason.js';
import type { ClipCopy, Highlight, Sentence, Transcript } from './types.js';

export const TITLE_MAX_CHARS = 60;
const TITLE_MAX_WORDS = 9;
const TITLE_MIN_WORDS = 4;
const SUMMARY_MAX_CHARS = 180;

export function writeCopy(h: Highlight, transcript: Transcript): ClipCopy {
  const wanted = new Set(h.sentenceIndexes);
  const clip = transcript.sentences.filter((s) => wanted.has(s.index));
  const title = writeTitle(clip);
  return {
    title,
    reason: writeReason(h, clip),
    description: writeDescription(clip, transcript, title),
  };
}

// ---------------------------------------------------------------- title

const LEADING_FILLER = [
  'so', 'um', 'uh', 'umm', 'er', 'erm', 'well', 'okay', 'ok', 'and', 'yeah', 'oh',
  'you know', 'i mean', 'basically', 'honestly', 'anyway', 'alright', 'all right',
];
/** Words that are filler only when set off by a comma ("Look, ..." but not "Look at this"). */
const LEADING_FILLER_WITH_COMMA = ['like', 'now', 'look', 'listen', 'right', 'see', 'man', 'guys'];
// Hesitations always go; "you know" / "I mean" only when set off by a comma ("do you know why" stays).
const INNER_FILLER = /(^|[\s,])(?:(?:um+|uh+|erm?)(?=[\s,.!?]|$),?|(?:you know|i mean),)/gi;
const SMALL_WORDS = new Set(['a', 'an', 'the', 'and', 'but', 'or', 'nor', 'for', 'so', 'yet', 'on', 'at', 'to', 'of', 'in', 'by', 'with', 'as', 'vs', 'from', 'into', 'per', 'via']);
/** Words a cut title must not end on. */
const DANGLING_END = new Set([
  ...SMALL_WORDS, 'is', 'are', 'was', 'were', 'be', 'been', 'my', 'your', 'our', 'their', 'his', 'her', 'its', 'that', 'this',
  'these', 'those', 'which', 'who', 'what', 'if', 'because', 'than', 'i', 'we', 'you', 'they', 'it', 'he', 'she', 'not', 'very',
  'how', 'when', 'where', 'will', 'would', 'can', 'could', 'should', 'has', 'have', 'had', 'do', 'does', 'did', 'much', 'more',
]);

/** The best opening sentence in the clip becomes the title, cleaned and cut at a clause boundary. */
export function writeTitle(clip: readonly Sentence[]): string {
  let best: { text: string; score: number } | null = null;
  clip.forEach((s, k) => {
    const text = stripFiller(s.sentence);
    const words = tokens(text).length;
    if (words === 0) return;
    const score = hookScore(text) + (k === 0 ? 0.15 : k === 1 ? 0.05 : 0) - (startCleanliness(text) === 0 ? 0.3 : 0)
      - (words < 3 ? 0.5 : 0) - (words > 30 ? 0.1 : 0);
    if (!best || score > best.score + 1e-9) best = { text, score };
  });
  const chosen = (best as { text: string } | null)?.text ?? '';
  let title = cutTitle(chosen);
  // A question cut short still reads as a question: "Why Do 90% of Restaurants Fail?"
  if (/\?$/.test(chosen.trim()) && title && !/[?!]$/.test(title) && chosen.startsWith(title)) title += '?';
  return titleCase(title) || 'Untitled Clip';
}

function stripFiller(sentence: string): string {
  let t = sentence.replace(/\s+/g, ' ').trim().replace(INNER_FILLER, '$1').replace(/\s+/g, ' ').replace(/\s+([,.!?;:])/g, '$1');
  for (let changed = true; changed;) {
    changed = false;
    for (const [f, sep] of [...LEADING_FILLER.map((w) => [w, '[,.!\\s]+']), ...LEADING_FILLER_WITH_COMMA.map((w) => [w, ',\\s*'])]) {
      const m = new RegExp(`^${f!.replace(/ /g, '\\s+')}(?:${sep!})`, 'i').exec(t);
      if (m && t.length > m[0].length) {
        t = t.slice(m[0].length);
        changed = true;
      }
    }
  }
  return t.replace(/^[,;:\-–—\s]+/, '').trim();
}

/**
 * Keeps a whole short sentence. A long one is cut into clauses (at , ; : and dashes); the title is the
 * run of clauses, or the word prefix of one, that fits and hooks best, so "When I tried it, I was
 * shocked at how much I wasted" gives "I Was Shocked at How Much I Wasted", not "When I Tried It".
 */
function cutTitle(text: string): string {
  const whole = text.replace(/\.+$/, '').trim();
  if (fitsTitle(whole, TITLE_MAX_WORDS + 1)) return whole;

  const clauses: string[][] = [[]];
  for (const w of text.split(' ').filter(Boolean)) {
    if (/^[—–-]+$/.test(w)) { clauses.push([]); continue; }
    clauses[clauses.length - 1]!.push(w);
    if (/[,;:]$/.test(w)) clauses.push([]);
  }
  const pieces = clauses.filter((c) => c.length > 0);
  let best: { text: string; score: number } | null = null;
  for (let a = 0; a < pieces.length; a++) {
    for (let b = a; b < pieces.length; b++) {
      const run = pieces.slice(a, b + 1).flat();
      const candidate = fitsTitle(run.join(' '), TITLE_MAX_WORDS) ? cleanEnd(run.join(' ')) : prefixCut(run);
      const n = candidate.split(' ').filter(Boolean).length;
      if (n < Math.min(TITLE_MIN_WORDS, tokens(text).length)) continue;
      const score = hookScore(candidate) + (a === 0 ? 0.1 : 0) + (candidate === cleanEnd(run.join(' ')) ? 0.1 : 0)
        - (startCleanliness(candidate) === 0 ? 0.3 : 0) + n / 100;
      if (!best || score > best.score + 1e-9) best = { text: candidate, score };
      if (!fitsTitle(run.join(' '), TITLE_MAX_WORDS)) break; // longer runs only cut the same prefix
    }
  }
  return (best as { text: string } | null)?.text ?? prefixCut(text.split(' ').filter(Boolean));
}

function fitsTitle(s: string, maxWords: number): boolean {
  return s.length <= TITLE_MAX_CHARS && s.split(' ').filter(Boolean).length <= maxWords;
}

/** The longest word prefix that fits, not ending on a function word. */
function prefixCut(words: string[]): string {
  const acc: string[] = [];
  for (const w of words) {
    if (!fitsTitle([...acc, w].join(' '), TITLE_MAX_WORDS)) break;
    acc.push(w);
  }
  while (acc.length > TITLE_MIN_WORDS - 1 && DANGLING_END.has(tokens(acc[acc.length - 1]!)[0] ?? '')) acc.pop();
  return cleanEnd(acc.join(' '));
}

function cleanEnd(s: string): string {
  return s.replace(/[\s,;:\-–—.]+$/, '').trim();
}

function titleCase(s: string): string {
  const words = s.split(' ').filter(Boolean);
  return words.map((w, k) => {
    const core = w.replace(/^[^\p{L}\p{N}]+/u, '');
    const lead = w.slice(0, w.length - core.length);
    if (core.length === 0) return w;
    // Acronyms, "iPhone"-style names and numbers keep their shape.
    if (/\p{Lu}.*\p{Lu}/u.test(core) || /^\p{Ll}+\p{Lu}/u.test(core) || /^\d/.test(core)) return w;
    const lower = core.toLowerCase();
    const bare = lower.replace(/[^\p{L}']/gu, '');
    if (k > 0 && k < words.length - 1 && SMALL_WORDS.has(bare)) return lead + lower;
    return lead + lower.charAt(0).toUpperCase() + lower.slice(1);
  }).join(' ');
}

// ---------------------------------------------------------------- description

const STOPWORDS = new Set(`a about above after again against all also am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each
few for from further get gets getting got gonna had hadn't has hasn't have haven't having he he'd he'll he's her here
here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself just let's
like lot lots make made me more most mustn't my myself no nor not now of off on once one only or other ought our ours
ourselves out over own really right same say said says see shan't she she'd she'll she's should shouldn't so some such
than that that's the their theirs them themselves then there there's these they they'd they'll they're they've thing
things think this those through to too under until up upon us very want wanna was wasn't way we we'd we'll we're we've
well were weren't what what's when when's where where's which while who who's whom why why's will with won't would
wouldn't yeah yes you you'd you'll you're you've your yours yourself yourselves okay ok um uh actually basically
literally going know mean kind sort stuff something anything everything nothing someone anyone everyone people time
times day days year years back even still ever never always much many every good great new first last next little big
go goes went come came take took put tell told look looking give gave keep kept start started thing's let maybe
probably pretty quite whole another around away thats dont cant im ive youre theyre whats gotta tbh finally without
within exactly making doing trying tried using used second third part today tonight week weeks month later early usual
normal enough able sure already almost often sometimes else instead across along behind inside outside`.split(/\s+/).filter(Boolean));

/** One summary sentence from the clip, then 3-5 hashtags from its most distinctive words. */
export function writeDescription(clip: readonly Sentence[], transcript: Transcript, title = ''): string {
  const weights = distinctiveWords(clip, transcript, title);
  const summary = summarise(clip, weights, title);
  const tags = hashtags(weights);
  return [summary, tags.join(' ')].filter(Boolean).join(' ');
}

/** Crude plural folding so "startup" and "startups" count as one word. */
function stem(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) return w.slice(0, -1);
  return w;
}

function contentWords(text: string): string[] {
  return tokens(text).filter((t) => t.length >= 3 && !STOPWORDS.has(t) && !NUMBER_WORDS.has(t) && /\p{L}/u.test(t) && !/\d/.test(t) && !t.includes('\''));
}

interface WordWeight { key: string; surface: string; weight: number; clipCount: number }

/** Frequency in the clip, boosted when the word is rarer in the rest of the transcript. */
function distinctiveWords(clip: readonly Sentence[], transcript: Transcript, title: string): Map<string, WordWeight> {
  const titleKeys = new Set(contentWords(title).map(stem));
  const clipCounts = new Map<string, { count: number; surfaces: Map<string, number>; firstSeen: number }>();
  let pos = 0;
  for (const s of clip) {
    for (const w of contentWords(s.sentence)) {
      const key = stem(w);
      const entry = clipCounts.get(key) ?? { count: 0, surfaces: new Map(), firstSeen: pos };
      entry.count++;
      entry.surfaces.set(w, (entry.surfaces.get(w) ?? 0) + 1);
      clipCounts.set(key, entry);
      pos++;
    }
  }
  const totalCounts = new Map<string, number>();
  let totalWords = 0;
  for (const s of transcript.sentences) {
    for (const w of contentWords(s.sentence)) {
      totalCounts.set(stem(w), (totalCounts.get(stem(w)) ?? 0) + 1);
      totalWords++;
    }
  }
  const clipWords = Math.max(1, pos);
  const out = new Map<string, WordWeight>();
  for (const [key, e] of clipCounts) {
    const total = Math.max(e.count, totalCounts.get(key) ?? 0);
    // Share of the word's uses that fall inside the clip, against the clip's share of the transcript.
    const concentration = (e.count / total) / Math.max(1e-9, clipWords / Math.max(clipWords, totalWords));
    // Longer words tend to be the topic ("restaurants") rather than the talk around it ("lose").
    const lengthBonus = key.length >= 6 ? 1.15 : 1;
    const titleBonus = titleKeys.has(key) ? 1.5 : 1;
    const weight = e.count * (0.5 + Math.min(3, concentration) / 2) * lengthBonus * titleBonus - e.firstSeen * 1e-6;
    const surface = [...e.surfaces.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
    out.set(key, { key, surface, weight, clipCount: e.count });
  }
  return out;
}

function hashtags(weights: Map<string, WordWeight>): string[] {
  const ranked = [...weights.values()].sort((a, b) => b.weight - a.weight || a.key.localeCompare(b.key));
  // Prefer words said more than once; single mentions fill in only when the clip is short on them.
  const repeated = ranked.filter((w) => w.clipCount > 1);
  const picked = [...repeated, ...ranked.filter((w) => w.clipCount <= 1)].slice(0, 4);
  // "walk-in" -> #WalkIn: hashtags stop at the first character that is not a letter or digit.
  const tags = picked.map((w) => `#${w.surface.split(/[^\p{L}\p{N}]+/u).filter(Boolean).map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('')}`);
  tags.push('#shorts');
  for (const filler of ['#clips', '#video']) if (tags.length < 3) tags.push(filler);
  return tags;
}

/** The clip sentence that carries most of its distinctive words (other than the title line), cleaned. */
function summarise(clip: readonly Sentence[], weights: Map<string, WordWeight>, title: string): string {
  const titleWords = new Set(tokens(title));
  let best: { text: string; score: number } | null = null;
  for (const s of clip) {
    const text = stripFiller(s.sentence);
    const toks = tokens(text);
    if (toks.length < 5 || startCleanliness(text) === 0) continue;
    const words = contentWords(text);
    // Share of the title's words this sentence repeats: the title line itself makes a poor summary.
    const overlap = titleWords.size > 0 ? [...titleWords].filter((t) => toks.includes(t)).length / titleWords.size : 0;
    const score = words.reduce((acc, w) => acc + (weights.get(stem(w))?.weight ?? 0), 0) / Math.sqrt(toks.length)
      * (overlap > 0.7 ? 0.3 : 1) * (text.trim().endsWith('?') ? 0.5 : 1);
    if (!best || score > best.score + 1e-9) best = { text, score };
  }
  const chosen = (best as { text: string } | null)?.text ?? stripFiller(clip[0]?.sentence ?? '');
  if (!chosen) return '';
  let text = chosen.charAt(0).toUpperCase() + chosen.slice(1);
  if (text.length > SUMMARY_MAX_CHARS) {
    const cut = text.slice(0, SUMMARY_MAX_CHARS);
    text = `${cut.slice(0, Math.max(cut.lastIndexOf(','), cut.lastIndexOf(' '))).replace(/[\s,;:]+$/, '')}…`;
  } else if (!/[.!?…]$/.test(text)) {
    text = `${text}.`;
  }
  return text;
}
