#!/usr/bin/env node
// What writing the copy costs: loading the POS tagger (compromise), tagging real transcript text, and
// writeCopies for every request of the copywriter test's real transcripts (test/fixtures/copywriter/).
// Run after `npm run build`:  node scripts/bench-copy.mjs
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(pathToFileURL(path.join(root, 'dist', p)).href);
const { classifyWords } = await dist('pipeline/analyze/word-classes.js');
const { writeCopies } = await dist('pipeline/analyze/copywriter.js');
const { findHighlights } = await dist('pipeline/analyze/highlights.js');
const { buildSentences } = await dist('pipeline/transcribe/sentences.js');

function saved(name) {
  const t = JSON.parse(readFileSync(path.join(root, 'test', 'fixtures', 'copywriter', `${name}.words.json`), 'utf8'));
  return { ...t, sentences: buildSentences(t.words) };
}

let t0 = performance.now();
classifyWords('Load the tagger.', 'en');
const loadMs = performance.now() - t0;

const sources = ['allison-prompts', 'librivox-austen', 'wannaworktogether'].map(saved);
const sentences = sources.flatMap((t) => t.sentences.map((s) => s.sentence));
const words = sentences.reduce((n, s) => n + s.split(/\s+/).length, 0);
t0 = performance.now();
for (const s of sentences) classifyWords(s, 'en');
const tagMs = performance.now() - t0;

// Requests as the test makes them: 5-minute ranges of the prompt reel and the two short recordings.
const requests = [];
const reel = sources[0];
for (let k = 0; k < 5; k++) {
  const ws = reel.words.filter((w) => w.start >= k * 300 && w.end <= (k + 1) * 300);
  requests.push({ ...reel, range: { start: k * 300, end: (k + 1) * 300 }, words: ws, sentences: buildSentences(ws) });
}
requests.push(sources[1], sources[2]);
let copyMs = 0;
let clips = 0;
for (const t of requests) {
  for (const preferredLength of ['under30sec', 'under60sec']) {
    const hs = findHighlights({ transcript: t, audio: null, heatmap: [], preferredLength, maxShorts: null, noClipping: false, range: t.range });
    t0 = performance.now();
    writeCopies(hs, t);
    copyMs += performance.now() - t0;
    clips += hs.length;
  }
}
console.log(`tagger load: ${loadMs.toFixed(0)} ms`);
console.log(`tagging: ${sentences.length} sentences, ${words} words in ${tagMs.toFixed(0)} ms = ${Math.round(words / (tagMs / 1000))} words/s`);
console.log(`writeCopies: ${requests.length * 2} requests, ${clips} clips in ${copyMs.toFixed(0)} ms = ${(copyMs / clips).toFixed(1)} ms per clip`);
