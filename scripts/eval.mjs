#!/usr/bin/env node
// `npm run eval`: how well the ranker picks the moment a creator would post, on 15 sources whose best
// passages were labelled by a written rubric before any ranking ran on them (test/fixtures/eval/).
// Each source is built once into bench-out/eval/ (git-ignored), transcribed with the real transcriber
// (cached per model and per transcriber code), ranked by pickMoments exactly as `shorts create` ranks,
// and scored: hit@1, hit@3 and NDCG@3 against the graded labels, score calibration on talks with nothing
// worth posting, title completeness, hashtag quality and duplicate picks. Totals are split tune/holdout.
//
//   npm run eval                       # build, then evaluate the current dist/
//   node scripts/eval.mjs --json       # one JSON object on stdout (the table goes to stderr)
//   node scripts/eval.mjs --dist /tmp/eval-base/dist   # evaluate another build (e.g. a baseline worktree)
//   node scripts/eval.mjs --only ant-lecture,boarding-rant --picks   # some items, with every pick shown
//   --split tune|holdout, --max-shorts N|auto (default 3), --fresh (re-transcribe)
//   --neutral: rank with the language-neutral signals only (no English word lists): what a request in
//              any language without word lists gets, measured on these English sources
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSource, debFile, resolveLabels } from './eval-sources.mjs';
import {
  chanceHit, duplicatePairs, firstHitRank, hashtagNounProblem, hashtagProblem, hashtagsIn, hitAt, hits, mean, ndcgAt, pickGains, separation, titleProblem, wordNetLexicon,
} from './eval-metrics.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fixturesDir = path.join(root, 'test', 'fixtures', 'eval');
const cacheDir = path.join(root, 'bench-out', 'eval');

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const option = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const distDir = path.resolve(option('--dist') ?? process.env.EVAL_DIST ?? path.join(root, 'dist'));
const only = option('--only')?.split(',');
const splitFilter = option('--split');
const maxShortsArg = option('--max-shorts') ?? '3';
const maxShorts = maxShortsArg === 'auto' ? null : Number(maxShortsArg);
const asJson = flag('--json');
const showPicks = flag('--picks');
const fresh = flag('--fresh');
const neutral = flag('--neutral');
/** Spec bands of viral_score: 60 and up is "good" or "excellent". */
const GOOD_BAND = 60;

const sharedModel = path.resolve(root, '..', 'shared', 'models', 'ggml-tiny.en-q8_0.bin');
if (!process.env.SHORTS_WHISPER_MODEL && existsSync(sharedModel)) process.env.SHORTS_WHISPER_MODEL = sharedModel;
const log = (...a) => console.error(...a);
const say = asJson ? log : console.log;

/**
 * A module of the build: where this layout has it, else straight in the folder above (a baseline built before
 * src/pipeline had one folder per stage keeps `pipeline/<stage>/x.js` as `pipeline/x.js`).
 */
function distFile(p) {
  const full = path.join(distDir, p);
  return existsSync(full) ? full : path.join(distDir, path.dirname(path.dirname(p)), path.basename(p));
}
const dist = (p) => import(pathToFileURL(distFile(p)).href);
if (!existsSync(distFile('pipeline/analyze/highlights.js'))) {
  log(`eval: no build at ${distDir} (run npm run build, or give --dist)`);
  process.exit(2);
}
const { createTranscriber } = await dist('pipeline/transcribe/transcribe.js');
const { mediaBinaries } = await dist('media/binaries.js');
const ffmpeg = process.env.SHORTS_FFMPEG ?? mediaBinaries().ffmpeg;
const pickMoments = await loadPickMoments();
// WordNet's word lists (Debian wordnet-base) tell nouns from verbs and adjectives for the stricter
// hashtag check; fetched into the cache like the sounds when the package is not installed.
const lexicon = wordNetLexicon((name) => readFileSync(debFile(cacheDir, 'wordnet-base', `usr/share/wordnet/${name}`), 'utf8'));

/**
 * pickMoments (src/pipeline/analyze/moments.ts) is the one entry the orchestrator uses. Builds from before it
 * existed (the baseline) composed the same three stages in the orchestrator: do exactly that for them.
 */
async function loadPickMoments() {
  if (existsSync(distFile('pipeline/analyze/moments.js'))) return (await dist('pipeline/analyze/moments.js')).pickMoments;
  const { measureLoudness } = await dist('pipeline/loudness.js');
  const { findHighlights } = await dist('pipeline/analyze/highlights.js');
  const { writeCopy } = await dist('pipeline/analyze/copywriter.js');
  log('eval: this build has no pipeline/analyze/moments.js; composing loudness + findHighlights + writeCopy as its orchestrator did');
  return async (req) => {
    const loudness = await measureLoudness(req.mediaPath, req.range, req.signal);
    const highlights = findHighlights({ ...req, loudness });
    return highlights.map((highlight) => ({ highlight, copy: writeCopy(highlight, req.transcript) }));
  };
}

/**
 * Transcripts are cached per source audio, model file and transcriber code (the dist files that turn audio
 * into words and sentences), so a change to transcription is measured, and a ranking-only change is not
 * slowed down by re-transcribing.
 */
function transcriberFingerprint() {
  const h = createHash('sha256');
  const model = process.env.SHORTS_WHISPER_MODEL ?? 'tiny.en';
  h.update(model);
  if (existsSync(model)) h.update(String(readFileSync(model).length));
  // By file name, in any subfolder: the same code gives the same key whether or not the pipeline has stage folders.
  for (const dir of ['pipeline', 'media']) {
    const d = path.join(distDir, dir);
    const files = readdirSync(d, { recursive: true }).map(String).filter((n) => /transcri|whisper|sentence|vad|align|speech/i.test(path.basename(n)) && n.endsWith('.js'));
    for (const f of files.sort((a, b) => (path.basename(a) < path.basename(b) ? -1 : 1))) {
      h.update(path.basename(f)).update(readFileSync(path.join(d, f)));
    }
  }
  return h.digest('hex').slice(0, 16);
}

function fileKey(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16);
}

async function transcriptFor(item, built, transcriber, fingerprint) {
  const dir = path.join(cacheDir, 'transcripts');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${item.id}.${fileKey(built.path)}.${fingerprint}.json`);
  if (!fresh && existsSync(file)) return { transcript: JSON.parse(readFileSync(file, 'utf8')), seconds: null };
  log(`eval: transcribing ${item.id} (${built.durationSec.toFixed(0)} s)`);
  const t0 = performance.now();
  const transcript = await transcriber.transcribe({
    mediaPath: built.path, range: { start: 0, end: built.durationSec }, language: 'en',
  });
  const seconds = (performance.now() - t0) / 1000;
  writeFileSync(file, JSON.stringify(transcript));
  return { transcript, seconds };
}

function scoreItem(item, labels, moments, transcript, durationSec) {
  const picks = moments.map((m) => ({
    start: m.highlight.start, end: m.highlight.end, viralScore: m.highlight.viralScore,
    sentenceIndexes: m.highlight.sentenceIndexes, title: m.copy.title, reason: m.copy.reason,
    description: m.copy.description, strengths: m.highlight.strengths,
    text: m.highlight.sentenceIndexes.map((i) => transcript.sentences[i]?.sentence ?? '').join(' '),
  }));
  const gains = pickGains(picks, labels);
  const titles = picks.map((p) => ({ title: p.title, problem: titleProblem(p.title) }));
  const tags = picks.flatMap((p) => hashtagsIn(p.description))
    .map((tag) => ({ tag, problem: hashtagProblem(tag), nounProblem: hashtagNounProblem(tag, lexicon) }));
  const reasons = new Set(picks.map((p) => p.reason));
  const r = {
    id: item.id, split: item.split, strong: item.strong, preferredLength: item.preferredLength,
    picks: picks.map((p, i) => ({ ...p, gain: gains[i], labelled: labels.some((l) => hits(p, l)) })),
    labels,
    hit1: item.strong ? hitAt(picks, labels, 1) : null,
    hit3: item.strong ? hitAt(picks, labels, 3) : null,
    firstHitRank: item.strong ? firstHitRank(picks, labels, 2) : null,
    ndcg3: item.strong ? ndcgAt(picks, labels, 3) : null,
    chanceHit1: item.strong && picks[0] ? chanceHit(picks[0].end - picks[0].start, durationSec, labels) : null,
    titles, tags,
    duplicates: duplicatePairs(picks),
    distinctReasons: picks.length ? reasons.size / picks.length : null,
  };
  return r;
}

function summarise(results) {
  const strong = results.filter((r) => r.strong);
  const weak = results.filter((r) => !r.strong);
  const bestPickScores = strong.flatMap((r) => r.picks.filter((p) => p.gain === 2).map((p) => p.viralScore));
  const weakPickScores = weak.flatMap((r) => r.picks.map((p) => p.viralScore));
  const titles = results.flatMap((r) => r.titles);
  const tags = results.flatMap((r) => r.tags);
  return {
    items: results.length,
    strongItems: strong.length,
    hit1: mean(strong.map((r) => (r.hit1 ? 1 : 0))),
    hit3: mean(strong.map((r) => (r.hit3 ? 1 : 0))),
    chanceHit1: mean(strong.map((r) => r.chanceHit1)),
    ndcg3: mean(strong.map((r) => r.ndcg3)),
    picks: results.reduce((s, r) => s + r.picks.length, 0),
    bestPassageScoreMean: mean(bestPickScores),
    noStrongTopScoreMean: mean(weak.map((r) => r.picks[0]?.viralScore ?? null)),
    noStrongPicksInGoodBand: weakPickScores.filter((s) => s >= GOOD_BAND).length,
    noStrongPicks: weakPickScores.length,
    // Picks of passages the rubric gave grade 0 (procedure, logistics, small talk) anywhere, in the good band.
    otherPicksInGoodBand: results.flatMap((r) => r.picks.filter((p) => !p.labelled && p.viralScore >= GOOD_BAND)).length,
    otherPicks: results.flatMap((r) => r.picks.filter((p) => !p.labelled)).length,
    separation: separation(bestPickScores, weakPickScores),
    titleComplete: titles.length ? titles.filter((t) => !t.problem).length / titles.length : null,
    hashtagContent: tags.length ? tags.filter((t) => !t.problem).length / tags.length : null,
    hashtagNounOrName: tags.length ? tags.filter((t) => !t.nounProblem).length / tags.length : null,
    hashtags: tags.length,
    duplicatePairs: results.reduce((s, r) => s + r.duplicates.length, 0),
    distinctReasons: mean(results.map((r) => r.distinctReasons)),
  };
}

const fmt = (x, d = 2) => (x === null || x === undefined ? '-' : typeof x === 'boolean' ? (x ? 'yes' : 'no') : x.toFixed(d));
const ts = (s) => `${Math.floor(s / 60)}:${(s % 60).toFixed(0).padStart(2, '0')}`;

function printItem(r) {
  const best = r.labels.filter((l) => l.grade === 2).map((l) => `${ts(l.start)}-${ts(l.end)}`).join(' ') || '(none)';
  const picks = r.picks.map((p) => `${ts(p.start)}-${ts(p.end)}:${p.viralScore}${p.gain ? `[${p.gain}]` : ''}`).join(' ');
  const badTitles = r.titles.filter((t) => t.problem).length;
  const badTags = r.tags.filter((t) => t.problem).length;
  say(`| ${r.id} | ${r.split} | ${best} | ${picks || '(no picks)'} | ${fmt(r.hit1)} | ${fmt(r.hit3)} | ${fmt(r.ndcg3)} | ${r.titles.length - badTitles}/${r.titles.length} | ${r.tags.length - badTags}/${r.tags.length} | ${r.duplicates.length} |`);
}

function printPicks(r) {
  say(`\n### ${r.id}`);
  for (const l of r.labels) say(`  label ${ts(l.start)}-${ts(l.end)} grade ${l.grade}: ${l.why}`);
  r.picks.forEach((p, i) => {
    say(`  #${i + 1} ${ts(p.start)}-${ts(p.end)} score ${p.viralScore} gain ${p.gain} strengths ${p.strengths.join(',')}`);
    say(`     title: ${p.title}${titleProblem(p.title) ? `   <- ${titleProblem(p.title)}` : ''}`);
    say(`     reason: ${p.reason}`);
    const tags = hashtagsIn(p.description);
    say(`     tags: ${tags.map((t) => `#${t}${hashtagNounProblem(t, lexicon) ? `(${hashtagNounProblem(t, lexicon)})` : ''}`).join(' ')}`);
    say(`     text: ${p.text.slice(0, 220)}${p.text.length > 220 ? '...' : ''}`);
  });
  for (const d of r.duplicates) say(`  duplicate: #${d.i + 1} and #${d.j + 1} (${d.why})`);
}

function printTotals(label, s) {
  say(`| ${label} | ${s.items} (${s.strongItems} strong) | ${fmt(s.hit1)} | ${fmt(s.chanceHit1)} | ${fmt(s.hit3)} | ${fmt(s.ndcg3)} | ${fmt(s.bestPassageScoreMean, 1)} | ${fmt(s.noStrongTopScoreMean, 1)} | ${s.noStrongPicksInGoodBand}/${s.noStrongPicks} | ${s.otherPicksInGoodBand}/${s.otherPicks} | ${fmt(s.separation)} | ${fmt(s.titleComplete)} | ${fmt(s.hashtagContent)} (${s.hashtags}) | ${fmt(s.hashtagNounOrName)} | ${s.duplicatePairs} | ${fmt(s.distinctReasons)} |`);
}

const { items } = JSON.parse(readFileSync(path.join(fixturesDir, 'labels.json'), 'utf8'));
const chosen = items.filter((i) => (!only || only.includes(i.id)) && (!splitFilter || i.split === splitFilter));
const transcriber = createTranscriber({ dataDir: path.join(cacheDir, 'data'), threads: Math.min(2, os.availableParallelism()) });
const fingerprint = transcriberFingerprint();
const results = [];
const timing = { transcribeSec: 0, audioSec: 0, rankSec: 0 };
for (const item of chosen) {
  const ctx = { fixturesDir, cacheDir, ffmpeg, items };
  const built = buildSource(item, ctx);
  const labels = resolveLabels(item, built, ctx);
  // The labels name paragraphs; "seconds" records where they landed when the labels were committed. A
  // different synthesis (another Festival build) moves them: say so rather than score against stale times.
  if (Array.isArray(item.labels)) item.labels.forEach((l, i) => {
    if (l.seconds && (Math.abs(l.seconds[0] - labels[i].start) > 1 || Math.abs(l.seconds[1] - labels[i].end) > 1)) {
      log(`eval: ${item.id}: ${l.from}-${l.to} now spans ${labels[i].start.toFixed(1)}-${labels[i].end.toFixed(1)} s, labelled at ${l.seconds.join('-')} s`);
    }
  });
  const { transcript, seconds } = await transcriptFor(item, built, transcriber, fingerprint);
  if (seconds !== null) { timing.transcribeSec += seconds; timing.audioSec += built.durationSec; }
  const t0 = performance.now();
  const moments = await pickMoments({
    mediaPath: built.path, transcript, range: { start: 0, end: built.durationSec }, heatmap: [],
    preferredLength: item.preferredLength, maxShorts, noClipping: false, ...(neutral ? { lexical: false } : {}),
  });
  timing.rankSec += (performance.now() - t0) / 1000;
  results.push({ ...scoreItem(item, labels, moments, transcript, built.durationSec), durationSec: built.durationSec });
}

say(`\nClip choice evaluation: ${chosen.length} items, dist ${path.relative(root, distDir) || distDir}, model ${transcriber.modelName}, maxShorts ${maxShortsArg}${neutral ? ', language-neutral signals only' : ''}`);
say('\n| item | split | best passage(s) | picks start-end:score[gain] | hit@1 | hit@3 | NDCG@3 | titles ok | tags ok | dup |');
say('|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) printItem(r);
const totals = {
  all: summarise(results),
  tune: summarise(results.filter((r) => r.split === 'tune')),
  holdout: summarise(results.filter((r) => r.split === 'holdout')),
};
say('\n| set | items | hit@1 | hit@1 by chance | hit@3 | NDCG@3 | score of best-passage picks | top score, no-strong items | no-strong picks ≥ 60 | grade-0 picks ≥ 60 | separation (AUC) | titles complete | hashtags content | hashtags noun/name | duplicate pairs | distinct reasons |');
say('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const [k, s] of Object.entries(totals)) printTotals(k, s);
say(`\n${timing.audioSec > 0 ? `transcribed ${timing.audioSec.toFixed(0)} s of audio in ${timing.transcribeSec.toFixed(1)} s (the rest from the cache); ` : 'transcripts from the cache; '}ranking took ${timing.rankSec.toFixed(1)} s`);
if (showPicks) for (const r of results) printPicks(r);
if (asJson) {
  process.stdout.write(`${JSON.stringify({ dist: distDir, model: transcriber.modelName, maxShorts: maxShortsArg, totals, items: results }, null, 1)}\n`);
}
