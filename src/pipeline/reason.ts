// The clip's `reason`: what is in THIS clip, named from the evidence the scorer found (highlight-
// features.ts) — the question it opens with, the story and its time marker, the laughter and when it
// comes, the line it ends on — quoted from the clip's own words, with clip-relative times. Two clips
// never share a sentence, so their quotes and times, and with them their reasons, differ.
import { hookSignals } from './highlight-features.js';
import type { Evidence, Highlight, Sentence } from './types.js';

/** Quotes longer than this are cut at a word boundary. */
const QUOTE_MAX_CHARS = 70;
/** At most this many clauses: a reason is one sentence a creator reads at a glance. */
const MAX_PARTS = 4;

export function writeReason(h: Highlight, clip: readonly Sentence[]): string {
  const at = (e: Evidence) => clock(Math.max(0, e.at - h.start));
  const ev = h.evidence ?? [];
  const find = (kind: Evidence['kind']) => ev.find((e) => e.kind === kind);
  const parts: string[] = [];
  const first = clip[0];

  const question = find('question');
  const procedure = find('procedure');
  if (procedure && h.features.procedural >= 0.5) {
    // Say plainly why a list of instructions scores low, quoting one.
    parts.push(`Instructions read out (${procedure.detail ?? 'most'} lines), such as ${quote(procedure.text)}`);
  } else if (question && first && question.at - first.start < 3) {
    parts.push(`Opens with a question, ${quote(question.text)}`);
  } else if (first && h.features.hook >= 0.4) {
    parts.push(`Opens with ${openingKind(first.sentence)}${quote(first.sentence)}`);
  }
  const story = find('story');
  if (story) parts.push(`tells a first-hand story, ${quote(story.text, 48)}`);
  if (question && !parts[0]?.startsWith('Opens with a question')) parts.push(`asks ${quote(question.text)} at ${at(question)}`);
  const answer = find('answer');
  if (question && answer && !story) parts.push(`answers it with ${quote(answer.text)}`);

  const reactions = ev.filter((e) => e.kind === 'laughter' || e.kind === 'applause' || e.kind === 'scream' || e.kind === 'burst');
  if (reactions.length > 0) parts.push(reactionPhrase(reactions, at));

  const contrast = find('contrast');
  if (contrast && parts.length < MAX_PARTS - 1) parts.push(`turns on ${quote(contrast.detail ?? '')} at ${at(contrast)}`);
  const number = find('number');
  if (number && !question && parts.length < MAX_PARTS - 1 && !parts[0]?.startsWith('Opens with')) parts.push(`gives a number up front, ${quote(number.text)}`);
  const pitch = find('pitch');
  if (pitch && parts.length < MAX_PARTS - 1) parts.push(`the voice moves most at ${at(pitch)} (${pitch.detail})`);
  const emotion = find('emotion');
  if (emotion && parts.length < MAX_PARTS - 1) parts.push(`charged words (${emotion.detail})`);
  if (find('heatmap') && parts.length < MAX_PARTS - 1) parts.push('one of the most replayed stretches of the video');

  const punchline = find('punchline');
  // Only minor findings (a "but", a number, a lively voice) on a weak clip: say it has no strong point.
  const minorOnly = !story && !question && reactions.length === 0 && !parts[0]?.startsWith('Opens with') && !parts[0]?.startsWith('Instructions');
  if (minorOnly && parts.length > 0 && !punchline && h.viralScore < 50) parts.push('no strong hook or reaction');
  if (punchline) {
    const laughAfter = reactions.some((r) => r.at >= punchline.at);
    parts.push(`ends on ${laughAfter && reactions.some((r) => r.kind === 'laughter') ? 'the punchline' : ''}${laughAfter ? ' ' : ''}${quote(punchline.text)}`.replace(/ends on {2}/, 'ends on '));
  } else if (parts.length === 0 && clip.length > 0) {
    // Nothing stood out: say what the clip is, so the creator can judge it, rather than praise it.
    parts.push(`A steady passage from ${quote(first!.sentence)} to ${quote(clip[clip.length - 1]!.sentence)}, with no strong hook or reaction`);
  }

  const chosen = parts.slice(0, MAX_PARTS);
  if (punchline && !chosen.some((p) => p.startsWith('ends on')) && parts.length > MAX_PARTS) chosen[MAX_PARTS - 1] = parts[parts.length - 1]!;
  const text = chosen.join('; ');
  return text ? `${text.charAt(0).toUpperCase()}${text.slice(1)}.` : 'A passage that fits the requested length.';
}

/** What kind of opening line it is, from the same signals the hook score counted. */
function openingKind(sentence: string): string {
  const s = hookSignals(sentence);
  if (s.surprise) return 'a bold claim, ';
  if (s.contrast) return 'a contrast, ';
  if (s.number) return 'a number, ';
  if (s.address) return 'a line to the viewer, ';
  return '';
}

function reactionPhrase(events: Evidence[], at: (e: Evidence) => string): string {
  const names: Record<string, string> = { laughter: 'laughter', applause: 'applause', scream: 'a scream', burst: 'a burst of sound' };
  const byKind = new Map<string, Evidence[]>();
  for (const e of events) byKind.set(e.kind, [...(byKind.get(e.kind) ?? []), e]);
  const phrases = [...byKind.entries()].map(([kind, es]) => `${names[kind]} at ${es.slice(0, 3).map(at).join(' and ')}`);
  return phrases.join(', ');
}

/** "m:ss" of clip-relative seconds. */
export function clock(sec: number): string {
  const s = Math.round(sec);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** A sentence quoted in double quotes, cut at a word boundary with an ellipsis when long. */
function quote(text: string | undefined, max = QUOTE_MAX_CHARS): string {
  // Inner quotation marks go (they would nest), and so does a final full stop: the reason goes on after it.
  const t = (text ?? '').replace(/\s+/g, ' ').trim().replace(/["“”]/g, '').replace(/\.+$/, '');
  if (t.length <= max) return `"${t}"`;
  const cut = t.slice(0, max);
  return `"${cut.slice(0, Math.max(20, cut.lastIndexOf(' '))).replace(/[\s,;:]+$/, '')}…"`;
}
